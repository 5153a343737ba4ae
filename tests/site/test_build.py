"""The site builds with --strict, every page is in the nav, and no internal link or anchor is broken."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from tests.site.conftest import REPO
from tests.site.html_pages import LOADED, is_external, local_target, page_url, read_site

pytestmark = pytest.mark.slow


def test_strict_build_succeeds_without_warnings(site_build):
    assert site_build.returncode == 0, site_build.output[-4000:]
    assert not re.search(r"^WARNING", site_build.output, re.M), site_build.output
    # the theme's end-of-life banner and properdocs' notice are silenced the way each documents
    assert "end of life" not in site_build.output and "ProperDocs" not in site_build.output, site_build.output


def test_mermaid_is_the_pinned_version_served_from_the_site(site):
    pinned = json.loads((REPO / "package.json").read_text())["dependencies"]["mermaid"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), f"package.json must pin an exact version, not {pinned!r}"
    js = site / "assets" / "js" / "mermaid.min.js"
    assert js.is_file()
    assert f'version:"{pinned}"' in js.read_text(encoding="utf-8", errors="replace")


def test_nav_covers_every_page(site):
    pages = read_site(site)
    home = pages[""]
    in_nav = set()
    for href in home.nav_links:
        path, _ = local_target(site, home, href)
        in_nav.add(page_url(site, path))
    content_pages = {url for url in pages if url != "404.html"}
    assert len(content_pages) > 10
    assert content_pages - in_nav == set(), "pages missing from the nav"
    assert in_nav - content_pages == set(), "nav entries without a page"


def test_generated_reference_pages_follow_the_model(site, repo_model):
    from docgen.cli import build_parser

    model = repo_model
    venv_pages = sorted(p.parent.name for p in (site / "reference" / "venvs").glob("*/index.html"))
    assert venv_pages == sorted(v.class_name for v in model.venvs)
    for venv in model.venvs:
        text = (site / "reference" / "venvs" / venv.class_name / "index.html").read_text()
        rows = text.count("<tr>") - 1  # minus the header row
        assert rows == len(model.snapshot.install_set(venv.extras)), venv.actor
        assert venv.path in text

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    cli = (site / "reference" / "cli" / "index.html").read_text()
    for name, subparser in sub.choices.items():
        assert f'id="docgen-{name}"' in cli, name
        for action in subparser._actions:
            for flag in action.option_strings:
                assert flag in cli, f"docgen {name} {flag}"


def test_no_broken_internal_link_or_anchor(site):
    pages = read_site(site)
    ids_by_file = {p.path.resolve(): p.ids for p in pages.values()}
    broken, checked = [], 0
    for page in pages.values():
        for tag, attr, value in page.refs:
            if value.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = local_target(site, page, value)
            if target is None:
                continue
            path, fragment = target
            checked += 1
            # the outdated banner's link (docs/overrides/main.html): one level above the version's folder, the
            # project site's root, which mike's index sends to the newest version (tests/site/test_versions.py
            # follows it on a deployment); outside a single build, so not checked here
            if tag == "a" and value.rstrip("/").endswith("..") and path == site / "(outside the site's path)":
                continue
            if not path.exists():
                broken.append(f"{page.url or 'index'}: <{tag} {attr}={value!r}>: no file {path.relative_to(site)}")
            elif fragment and path.suffix == ".html" and fragment not in ids_by_file.get(path.resolve(), set()):
                broken.append(f"{page.url or 'index'}: <{tag} {attr}={value!r}>: no id {fragment!r}")
    assert checked > 200, f"only {checked} local references found: the parser is not seeing the pages"
    assert broken == []


def test_pages_load_nothing_from_outside(site):
    outside = []
    for page in read_site(site).values():
        for tag, attr, value in page.refs:
            if (tag, attr) in LOADED and is_external(value):
                outside.append(f"{page.url or 'index'}: <{tag} {attr}={value!r}>")
    assert outside == []
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\(\s*['\"]?(https?:)?//", css.read_text(errors="replace")), css
