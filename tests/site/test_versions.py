"""A version per image: `mike deploy` run twice into a scratch repository's gh-pages branch (a development
version and a release aliased `latest`, as the docs workflow's pages job does), that branch's tree served as
GitHub Pages serves a project site, and Chromium at 1280 px and 390 px seeing the header's version selector
list both versions from mike's versions.json."""

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


def mike(root: Path, *args: str) -> None:
    # mike runs the site's builder by name (mkdocs, or properdocs where mkdocs-gen-files pulled it in): the
    # venv's bin first on PATH, as the pages job puts it
    env = {**os.environ, **WORKFLOW_ENV, "PATH": f"{MIKE.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    proc = subprocess.run([str(MIKE), *args], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"mike {' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"


@pytest.fixture(scope="module")
def deployed(site, tmp_path_factory) -> Path:
    """The gh-pages tree after `mike deploy dev` and `mike deploy --update-aliases v1.0 latest` in a copy of
    this repository (its tracked files as they are now, and the mermaid the `site` build put in place)."""
    if not MIKE.exists():
        pytest.skip(f"mike is not installed in {MIKE.parent} (requirements/dev.txt)")
    root = tmp_path_factory.mktemp("mike") / "repo"
    files = git(REPO, "ls-files", "-z").split("\0")
    for name in [f for f in files if f] + ["docs/assets/js/mermaid.min.js"]:
        src = REPO / name
        if src.is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / name)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "scratch")
    mike(root, "deploy", "dev")
    mike(root, "deploy", "--update-aliases", "v1.0", "latest")
    mike(root, "set-default", "latest")
    tree = tmp_path_factory.mktemp("gh-pages") / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(root), "archive", "gh-pages"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def test_mike_writes_both_versions_and_the_latest_alias(deployed):
    versions = json.loads((deployed / "versions.json").read_text())
    assert {v["version"]: v["aliases"] for v in versions} == {"v1.0": ["latest"], "dev": []}
    for folder in ("dev", "v1.0", "latest"):
        assert (deployed / folder / "index.html").is_file(), folder
    assert (deployed / "dev" / "changelog" / "index.html").is_file()


@pytest.mark.parametrize("width", (1280, 390))
def test_the_header_selector_lists_both_versions(deployed, browser, tmp_path, width):
    server, base = serve_site(deployed, tmp_path)
    try:
        with viewport(browser, width):
            for version, other in (("dev", "v1.0"), ("v1.0", "dev")):
                browser.open(f"{base}{version}/image/layering/")
                found = browser.wait_for(SELECTOR)
                assert found, f"/{PROJECT}/{version}/ at {width} px: no version selector in the header"
                assert found["current"].startswith(version), found   # the alias, if any, follows
                texts = [i["text"] for i in found["items"]]
                assert any(t.startswith("v1.0") for t in texts) and "dev" in texts, found
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
