"""Material's conventions on the built site: the site's own URL, the sitemap, a 404 page that works on a
GitHub Pages project site (served under /nmp-rl-base/), and instant navigation that still draws diagrams."""

from __future__ import annotations

import re
import socket
import subprocess
from xml.etree import ElementTree

import pytest
import yaml

from tests.site.conftest import ARTIFACTS, PROJECT, REPO, REPO_URL, SITE_URL, WORKFLOW_ENV, serve_site
from tests.site.html_pages import SITE_PATH, read_site
from tests.site.visits import ALL_RENDERED

pytestmark = pytest.mark.slow


def mkdocs_config() -> dict:
    class Loader(yaml.SafeLoader):  # mkdocs.yml names a Python function with !!python/name: keep it as text
        pass
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: suffix)
    return yaml.load((REPO / "mkdocs.yml").read_text(), Loader=Loader)


def test_palette_and_features_follow_materials_conventions():
    config = mkdocs_config()
    palette = config["theme"]["palette"]
    assert [p["media"] for p in palette] == ["(prefers-color-scheme)", "(prefers-color-scheme: light)",
                                             "(prefers-color-scheme: dark)"]
    assert all("toggle" in p for p in palette) and {p.get("scheme") for p in palette[1:]} == {"default", "slate"}
    assert {"navigation.footer", "navigation.instant", "content.code.copy", "content.code.annotate",
            "content.action.edit"} <= set(config["theme"]["features"])
    assert config["edit_uri"].startswith("edit/")


def test_built_as_the_workflow_builds_it_no_placeholder_is_published(site):
    """The address and the links come from the repository the workflow runs in (conftest.WORKFLOW_ENV): the
    canonical URLs, the sitemap, the header's repository link, the edit links and the changelog's commits."""
    assert SITE_URL.endswith(SITE_PATH)   # where the link checks of tests/site resolve links
    placeholders = []
    for f in sorted(site.rglob("*")):
        if f.is_file() and f.suffix in (".html", ".xml", ".json", ".txt", ".js") and "assets/js" not in f.as_posix():
            text = f.read_text(errors="replace")
            placeholders += [f"{f.relative_to(site)}: {m.group(0)!r}" for m in
                             re.finditer(r".{0,40}\bORG\b.{0,40}", text)]
    assert placeholders == []
    pages = read_site(site)
    for url in ("", "concepts/workers/"):
        refs = {(tag, value) for tag, _, value in pages[url].refs}
        assert ("link:canonical", SITE_URL + url) in refs, url
        assert ("a", REPO_URL) in refs, url   # the header's repository link
    assert ("a", f"{REPO_URL}/edit/main/docs/index.md") in {(t, v) for t, _, v in pages[""].refs}
    assert any(t == "a" and v.startswith(f"{REPO_URL}/commit/") for t, _, v in pages["changelog/"].refs)


def test_the_address_comes_from_the_workflow_then_the_git_remote(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("repository_hook", REPO / "docs/overrides/hooks/repository.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.repository_of(WORKFLOW_ENV, tmp_path) == ("https://github.com", "nmp-example/nmp-rl-base")
    assert hook.pages_url("https://github.com", "Nmp-Example/nmp-rl-base") \
        == "https://nmp-example.github.io/nmp-rl-base/"
    assert hook.pages_url("https://github.com", "acme/acme.github.io") == "https://acme.github.io/"
    assert hook.pages_url("https://ghe.example", "acme/docs") == "https://ghe.example/pages/acme/docs/"
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert hook.repository_of({}, tmp_path) is None   # no remote: mkdocs.yml's own values stay
    for remote in ("git@github.com:acme/nmp-rl-base.git", "https://github.com/acme/nmp-rl-base",
                   "ssh://git@github.com/acme/nmp-rl-base.git"):
        subprocess.run(["git", "-C", str(tmp_path), "remote", "remove", "origin"], capture_output=True)
        subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", remote], check=True)
        assert hook.repository_of({}, tmp_path) == ("https://github.com", "acme/nmp-rl-base"), remote
    subprocess.run(["git", "-C", str(tmp_path), "remote", "set-url", "origin", "https://forge.example/acme/x"],
                   check=True)
    assert hook.repository_of({}, tmp_path) is None


def test_sitemap_lists_every_page_under_the_site_url(site):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ElementTree.parse(site / "sitemap.xml").getroot().findall("s:url/s:loc", ns)]
    pages = {url for url in read_site(site) if url != "404.html"}
    assert sorted(locs) == sorted(SITE_URL + url for url in pages)


def test_generated_pages_have_no_edit_link(site):
    # the reference pages are written at build time: there is no file in the repository to edit
    assert "md-content__button" not in (site / "reference" / "cli" / "index.html").read_text()


@pytest.mark.browser
def test_404_page_is_styled_under_a_project_path(browser, site, site_server):
    base = site_server   # the site under /nmp-rl-base/, a missing path answered with 404.html (conftest)
    for missing in ("no-such-page/", "concepts/no/such/page.html"):
        browser.open(base + missing)
        facts = browser.evaluate(
            "({h1: document.querySelector('article h1')?.textContent,"
            " sheets: [...document.styleSheets].filter(s => s.href && s.href.includes('/assets/stylesheets/main'))"
            "   .map(s => ({href: s.href, rules: s.cssRules.length})),"
            " header: getComputedStyle(document.querySelector('header.md-header')).position,"
            " home: new URL(document.querySelector('a.md-header__button.md-logo').href).pathname})")
        assert facts["h1"] and "404" in facts["h1"], facts
        assert facts["sheets"] and all(s["href"].startswith(base) and s["rules"] > 100 for s in facts["sheets"]), facts
        assert facts["header"] == "sticky", f"/{missing}: the theme's stylesheet did not apply: {facts}"
        assert facts["home"] == f"/{PROJECT}/", facts
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot(ARTIFACTS / "site-404.png")


def _port_80_free() -> bool:
    try:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", 80))
        return True
    except OSError:
        return False


@pytest.mark.browser
@pytest.mark.skipif(not _port_80_free(), reason="instant navigation needs the site on a port-less URL (port 80)")
def test_instant_navigation_draws_the_next_pages_diagrams(browser, site, tmp_path):
    """Material matches links against the sitemap by protocol and host, not port, so this runs on port 80.
    Reached from a page with diagrams, mermaid draws in place (no reload); from one without, the page loads."""
    server, base = serve_site(site, tmp_path, port=80)
    link = "document.querySelector('a.md-nav__link[href$=\"concepts/workflows/\"]').click(); true"
    try:
        for start, instant in (("", True), ("contributing/", False)):
            browser.open(base + start)
            assert browser.wait_for("document.querySelectorAll('div.mermaid svg').length"
                                    " === document.querySelectorAll('div.mermaid').length"), f"/{start}: not drawn"
            browser.evaluate("window.__sameDocument = true; true")
            browser.evaluate(link)
            assert browser.wait_for("location.pathname.endsWith('/concepts/workflows/')"
                                    " && document.querySelectorAll('div.mermaid').length === 3"), start
            assert browser.wait_for(ALL_RENDERED), f"from /{start}: the diagrams were not drawn"
            assert browser.evaluate("window.__sameDocument === true") is instant, start
    finally:
        server.shutdown()
        server.server_close()
