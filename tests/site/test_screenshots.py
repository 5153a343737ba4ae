"""Screenshots a reviewer looks at (the docs workflow uploads artifacts/): the home page, a diagram page, the
changelog and the 404 page, at 1280 px and 390 px, in the light and the dark scheme. Each is taken once the
page is drawn in the scheme asked for (its diagrams too), and must show something."""

from __future__ import annotations

import pytest

from tests.site.conftest import ARTIFACTS
from tests.site.visits import SCHEMES, viewport

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGES = {"home": "", "workflows": "concepts/workflows/", "changelog": "changelog/", "404": "no-such-page/"}
DRAWN = ("(() => { const d = [...document.querySelectorAll('div.mermaid')];"
         " return d.every(e => e.querySelector('svg')) && document.readyState === 'complete'; })()")


@pytest.mark.parametrize("width", (1280, 390))
def test_screenshots_of_the_pages_in_both_schemes(browser, site_server, width):
    ARTIFACTS.mkdir(exist_ok=True)
    taken = []
    try:
        for scheme, attribute in SCHEMES.items():
            browser.page("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])
            with viewport(browser, width):
                for name, url in PAGES.items():
                    browser.open(site_server + url)
                    assert browser.wait_for(DRAWN), f"/{url}: not drawn"
                    assert browser.evaluate("document.body.getAttribute('data-md-color-scheme')") == attribute
                    png = browser.screenshot(ARTIFACTS / f"site-{name}-{width}-{scheme}.png")
                    assert len(png) > 10_000, f"/{url} at {width} px, {scheme}: a blank capture"
                    taken.append(name)
    finally:
        browser.page("Emulation.setEmulatedMedia", features=[])
    assert len(taken) == 2 * len(PAGES)
