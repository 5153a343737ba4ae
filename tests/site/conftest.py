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


# The site is built as the docs workflow builds it: GitHub names the repository that runs the workflow, and
# the site's address and links follow it (docs/overrides/hooks/repository.py). A fixed repository here, so
# the tests know the address whichever fork runs them.
WORKFLOW_ENV = {"GITHUB_REPOSITORY": "nmp-example/nmp-rl-base", "GITHUB_SERVER_URL": "https://github.com"}
SITE_URL = "https://nmp-example.github.io/nmp-rl-base/"
REPO_URL = "https://github.com/nmp-example/nmp-rl-base"


def build_site(root: Path, dest: Path) -> SiteBuild:
    # scripts/build-docs silences the theme's banners itself: the test must see it do so
    env = {k: v for k, v in os.environ.items() if k not in ("DISABLE_MKDOCS_2_WARNING", "NO_MKDOCS_2_WARNING")}
    env.update(WORKFLOW_ENV)
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


# The site is published as a GitHub Pages project site, under /nmp-rl-base/ (SITE_URL above), and the
# tests serve it the same way: 404.html and the sitemap hold links that only work under that path.
PROJECT = "nmp-rl-base"


class ProjectSiteHandler(SimpleHTTPRequestHandler):
    """Serves a folder holding the site as /nmp-rl-base/ and answers a missing path with the site's 404.html
    and status 404, as GitHub Pages does for a project site. Quiet: the server's log would only clutter."""

    def log_message(self, fmt, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / PROJECT / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def versions_json(base: str) -> str:
    """Where Material's version selector (mkdocs.yml: extra.version.provider mike) looks for mike's list of
    versions: one level above the version's own folder."""
    from urllib.parse import urljoin
    return urljoin(base, "../versions.json")


def serve_site(site: Path, folder: Path, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve `site` under /nmp-rl-base/ from `folder` (empty); returns the server and the site's base URL.
    A plain build is served as mike would serve it as the one version of a deployment, the newest (aliased
    latest, so Material shows no outdated banner): beside it, a versions.json naming it (a mike deployment's
    own tree, served as the site, has its own one level up)."""
    (folder / PROJECT).symlink_to(site, target_is_directory=True)
    if not (site / "versions.json").exists():
        (folder / "versions.json").write_text(
            f'[{{"version": "{PROJECT}", "title": "this build", "aliases": ["latest"]}}]\n')
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(ProjectSiteHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host = "127.0.0.1" if port == 80 else f"127.0.0.1:{server.server_address[1]}"
    return server, f"http://{host}/{PROJECT}/"


@pytest.fixture(scope="session")
def site_server(site, tmp_path_factory):
    server, base = serve_site(site, tmp_path_factory.mktemp("served"))
    yield base
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    binary = find_chromium()
    if binary is None:
        if os.environ.get("NMP_REQUIRE_BROWSER") == "1":
            pytest.fail("NMP_REQUIRE_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
        pytest.skip("no chromium on PATH (apt-get install chromium); set NMP_REQUIRE_BROWSER=1 to fail instead")
    tmp = tmp_path_factory.mktemp("chromium")
    browser = Chromium(binary, tmp / "profile", tmp / "chromium.log")
    yield browser
    browser.close()


@pytest.fixture
def browser(chromium):
    """The session's browser for one test, left on a blank page after it: a site page left open keeps its
    timers running (panzoom's, mermaid's) between tests, and its server may be gone."""
    yield chromium
    chromium.open("about:blank")


ARTIFACTS = REPO / "artifacts"


@pytest.fixture(scope="session")
def plain_tour(chromium, site, site_server):
    """Every page of the site, visited once in the browser's own window (tests/site/visits.py)."""
    from tests.site.visits import plain_tour
    ARTIFACTS.mkdir(exist_ok=True)
    return plain_tour(chromium, site, site_server, ARTIFACTS)


@pytest.fixture(scope="session")
def diagram_tour(chromium, site, site_server):
    """diagram_tour(width): the pages with diagrams (and, at a phone's width, the pages whose tables are
    checked), visited once per width (tests/site/visits.py); the first test at a width makes the tour."""
    from tests.site.visits import diagram_tour
    tours: dict[int, dict] = {}

    def at(width: int):
        if width not in tours:
            ARTIFACTS.mkdir(exist_ok=True)
            tours[width] = diagram_tour(chromium, site, site_server, width, ARTIFACTS)
        return tours[width]
    return at
