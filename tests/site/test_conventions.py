"""Material's conventions on the built site: the site's own URL, the sitemap, a 404 page that works on a
GitHub Pages project site (served under /nmp-rl-base/), and instant navigation that still draws diagrams."""

from __future__ import annotations

import re
import socket
from xml.etree import ElementTree

import pytest
import yaml

from tests.site.conftest import ARTIFACTS, PROJECT, REPO, serve_site
from tests.site.html_pages import SITE_PATH, read_site
from tests.site.visits import ALL_RENDERED

pytestmark = pytest.mark.slow


def mkdocs_config() -> dict:
    class Loader(yaml.SafeLoader):  # mkdocs.yml names a Python function with !!python/name: keep it as text
        pass
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: suffix)
    return yaml.load((REPO / "mkdocs.yml").read_text(), Loader=Loader)


def test_site_url_repo_and_edit_links_palette_and_features_follow_materials_conventions():
    config = mkdocs_config()
    assert re.fullmatch(rf"https://[^/]+\.github\.io/{PROJECT}/", config["site_url"]), config["site_url"]
    assert config["site_url"].endswith(SITE_PATH)   # where the link checks of tests/site resolve links
    assert config["repo_url"].endswith(f"/{PROJECT}") and config["edit_uri"].startswith("edit/")
    palette = config["theme"]["palette"]
    assert [p["media"] for p in palette] == ["(prefers-color-scheme)", "(prefers-color-scheme: light)",
                                             "(prefers-color-scheme: dark)"]
    assert all("toggle" in p for p in palette) and {p.get("scheme") for p in palette[1:]} == {"default", "slate"}
    assert {"navigation.footer", "navigation.instant", "content.code.copy", "content.code.annotate",
            "content.action.edit"} <= set(config["theme"]["features"])


def test_sitemap_lists_every_page_under_the_site_url(site):
    site_url = mkdocs_config()["site_url"]
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ElementTree.parse(site / "sitemap.xml").getroot().findall("s:url/s:loc", ns)]
    pages = {url for url in read_site(site) if url != "404.html"}
    assert sorted(locs) == sorted(site_url + url for url in pages)


def test_pages_have_edit_links_and_generated_pages_do_not(site):
    index = (site / "index.html").read_text()
    assert 'href="https://github.com/ORG/nmp-rl-base/edit/main/docs/index.md"' in index
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
            browser.wait_for("document.querySelectorAll('div.mermaid svg').length"
                             f" === document.querySelectorAll('div.mermaid').length")
            browser.evaluate("window.__sameDocument = true; true")
            browser.evaluate(link)
            assert browser.wait_for("location.pathname.endsWith('/concepts/workflows/')"
                                    " && document.querySelectorAll('div.mermaid').length === 3"), start
            assert browser.wait_for(ALL_RENDERED), f"from /{start}: the diagrams were not drawn"
            assert browser.evaluate("window.__sameDocument === true") is instant, start
    finally:
        server.shutdown()
        server.server_close()
