"""Fixtures for the site tests: one strict build of the real site per session, a local server, a browser."""

from __future__ import annotations

import functools
import os
import subprocess
import threading
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.site.chromium import Chromium, find_chromium

REPO = Path(__file__).resolve().parents[2]


@dataclass
class SiteBuild:
    root: Path          # the repository that was built
    site: Path
    returncode: int
    output: str


def build_site(root: Path, dest: Path) -> SiteBuild:
    # scripts/build-docs silences the theme's banners itself: the test must see it do so
    env = {k: v for k, v in os.environ.items() if k not in ("DISABLE_MKDOCS_2_WARNING", "NO_MKDOCS_2_WARNING")}
    proc = subprocess.run(["bash", str(root / "scripts" / "build-docs"), str(dest)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    return SiteBuild(root=root, site=dest, returncode=proc.returncode, output=proc.stdout + proc.stderr)


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> SiteBuild:
    return build_site(REPO, tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def site(site_build) -> Path:
    if site_build.returncode != 0:
        pytest.fail(f"scripts/build-docs failed:\n{site_build.output[-4000:]}")
    return site_build.site


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):  # the server's own log would only clutter the test output
        pass


@pytest.fixture(scope="session")
def site_server(site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    binary = find_chromium()
    if binary is None:
        if os.environ.get("NMP_REQUIRE_BROWSER") == "1":
            pytest.fail("NMP_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
        pytest.skip("no chromium on PATH (apt-get install chromium); set NMP_REQUIRE_BROWSER=1 to fail instead")
    tmp = tmp_path_factory.mktemp("chromium")
    browser = Chromium(binary, tmp / "profile", tmp / "chromium.log")
    yield browser
    browser.close()
