"""A version per image: scripts/publish-docs run as the docs workflow's pages job runs it, into a scratch
repository's gh-pages branch (the development version, two releases: `latest` moves to the second; a tag that
is not a release is refused), that branch's tree served as GitHub Pages serves a project site, and Chromium
at 1280 px and 390 px seeing the header's version selector list the versions from mike's versions.json, the
outdated banner on the older release only, and the root's 404 page styled at the site's sub-path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.site.conftest import ARTIFACTS, PROJECT, REPO, WORKFLOW_ENV, serve_site
from tests.site.visits import viewport

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MIKE = Path(REPO / ".venv/bin/mike")
SELECTOR = """(() => {
  const current = document.querySelector('.md-version__current');
  const items = [...document.querySelectorAll('.md-version__list .md-version__link')];
  return current && items.length ? {current: current.textContent.trim(),
    items: items.map(a => ({text: a.textContent.trim(), href: a.getAttribute('href')}))} : null;
})()"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def publish(root: Path, *args: str) -> subprocess.CompletedProcess:
    """scripts/publish-docs, as the pages job runs it (the repository the workflow runs in, in the env)."""
    env = {**os.environ, **WORKFLOW_ENV, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["bash", str(root / "scripts/publish-docs"), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def deployed(site, tmp_path_factory) -> Path:
    """The gh-pages tree after the pages job's publishes in a copy of this repository (its tracked files as
    they are now, and the mermaid the `site` build put in place): the default branch (`dev`), then the
    release tags v1.0 and v1.1 (`latest` moves to each), and a tag that is not a release (refused)."""
    if not MIKE.exists():
        pytest.skip(f"mike is not installed in {MIKE.parent} (requirements/dev.txt)")
    root = tmp_path_factory.mktemp("mike") / "repo"
    files = git(REPO, "ls-files", "-z").split("\0")
    for name in [f for f in files if f] + ["docs/assets/js/mermaid.min.js"]:
        src = REPO / name
        if src.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / name)
    (root / ".venv").symlink_to(REPO / ".venv", target_is_directory=True)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "scratch")
    for args in (("branch",), ("tag", "v1.0"), ("tag", "v1.1")):
        proc = publish(root, *args)
        assert proc.returncode == 0, f"publish-docs {' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    before = git(root, "rev-parse", "gh-pages")
    refused = publish(root, "tag", "nightly-3")
    assert refused.returncode == 2 and "not a release tag" in refused.stderr, refused.stderr
    assert git(root, "rev-parse", "gh-pages") == before   # nothing written: `latest` stays on v1.1
    tree = tmp_path_factory.mktemp("gh-pages") / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(root), "archive", "gh-pages"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def test_release_tags_move_latest_and_the_root_has_a_404_page(deployed):
    versions = json.loads((deployed / "versions.json").read_text())
    assert {v["version"]: v["aliases"] for v in versions} == {"v1.1": ["latest"], "v1.0": [], "dev": []}
    for folder in ("dev", "v1.0", "v1.1", "latest"):
        assert (deployed / folder / "index.html").is_file(), folder
    assert (deployed / "dev" / "changelog" / "index.html").is_file()
    # the project site's own 404 page: the default version's, its links into that version's folder
    assert (deployed / "404.html").read_text() == (deployed / "v1.1" / "404.html").read_text()
    assert f"/{PROJECT}/v1.1/assets/stylesheets/" in (deployed / "404.html").read_text()


BANNER = ("(() => { const b = document.querySelector('[data-md-component=outdated]');"
          " return b ? {shown: !b.hidden, text: b.textContent.trim(), href: b.querySelector('a')?.href} : null; })()")
SELECTOR_DRAWN = "document.querySelector('.md-version__current') !== null"


@pytest.mark.parametrize("width", (1280, 390))
def test_every_version_but_the_newest_says_it_is_outdated(deployed, browser, tmp_path, width):
    server, base = serve_site(deployed, tmp_path)
    try:
        with viewport(browser, width):
            for version, outdated in (("v1.0", True), ("v1.1", False), ("latest", False), ("dev", False)):
                browser.open(f"{base}{version}/concepts/workers/")
                assert browser.wait_for(SELECTOR_DRAWN), f"{version}: the version selector never appeared"
                if outdated:
                    browser.wait_for(f"({BANNER})?.shown")
                banner = browser.evaluate(BANNER)
                assert banner and banner["shown"] is outdated, (version, banner)
                if outdated:
                    assert "older release" in banner["text"] and banner["href"] == base, banner
                    ARTIFACTS.mkdir(exist_ok=True)
                    browser.screenshot(ARTIFACTS / f"site-outdated-{width}.png")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", (1280, 390))
def test_the_root_404_page_is_styled_and_has_the_version_selector(deployed, browser, tmp_path, width):
    server, base = serve_site(deployed, tmp_path)   # a missing path is answered with the root's 404.html
    try:
        with viewport(browser, width):
            for missing in ("no-such-page/", "v1.0/gone/page.html"):
                browser.open(base + missing)
                assert browser.wait_for(SELECTOR_DRAWN), f"/{missing}: no version selector"
                facts = browser.evaluate(
                    "({h1: document.querySelector('article h1')?.textContent,"
                    " rules: [...document.styleSheets].filter(s => s.href && s.href.includes('/stylesheets/main'))"
                    "   .map(s => s.cssRules.length),"
                    " header: getComputedStyle(document.querySelector('header.md-header')).position,"
                    " version: document.querySelector('.md-version__current').textContent.trim()})")
                assert facts["h1"] and "404" in facts["h1"], facts
                assert facts["rules"] and all(n > 100 for n in facts["rules"]), facts
                assert facts["header"] == "sticky" and facts["version"].startswith("v1.1"), facts
            ARTIFACTS.mkdir(exist_ok=True)
            try:
                for scheme in ("light", "dark"):
                    browser.page("Emulation.setEmulatedMedia",
                                 features=[{"name": "prefers-color-scheme", "value": scheme}])
                    browser.open(base + "no-such-page/")
                    browser.wait_for(SELECTOR_DRAWN)
                    browser.screenshot(ARTIFACTS / f"site-versioned-404-{width}-{scheme}.png")
            finally:
                browser.page("Emulation.setEmulatedMedia", features=[])
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("width", (1280, 390))
def test_the_header_selector_lists_every_version(deployed, browser, tmp_path, width):
    server, base = serve_site(deployed, tmp_path)
    try:
        with viewport(browser, width):
            for version, other in (("dev", "v1.1"), ("v1.1", "dev"), ("v1.0", "v1.1")):
                browser.open(f"{base}{version}/image/layering/")
                found = browser.wait_for(SELECTOR)
                assert found, f"/{PROJECT}/{version}/ at {width} px: no version selector in the header"
                assert found["current"].startswith(version), found   # the alias, if any, follows
                texts = [i["text"] for i in found["items"]]
                assert any(t.startswith("v1.0") for t in texts) and any(t.startswith("v1.1") for t in texts) \
                    and "dev" in texts, found
                # each entry leads to that version's copy of the site
                href = next(i["href"] for i in found["items"] if i["text"].startswith(other))
                assert href.rstrip("/").endswith(f"/{PROJECT}/{other}"), found
            ARTIFACTS.mkdir(exist_ok=True)
            browser.evaluate("document.querySelector('.md-version').dispatchEvent(new MouseEvent('mouseenter'));"
                             " document.querySelector('.md-version__list').style.maxHeight = 'none'; true")
            browser.screenshot(ARTIFACTS / f"site-versions-{width}.png")
    finally:
        server.shutdown()
        server.server_close()
