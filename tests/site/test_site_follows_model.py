"""Changing the model changes the site, with no hand edit: a copy of the repository with one prefetch
filter fewer, after `docgen write` and a site build, shows one filter row fewer and eight venvs."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.site.conftest import REPO, build_site
from tests.test_mutations import not_inputs

pytestmark = pytest.mark.slow

DROPPED_FILTER = "megatron_policy_worker.MegatronPolicyWorker"
NOT_COPIED = {".venv", "node_modules", ".git", "site", "artifacts", ".pytest_cache", ".hypothesis"}


def _copy_repo(dst: Path) -> Path:
    shutil.copytree(REPO, dst, symlinks=True,
                    ignore=lambda d, names: NOT_COPIED & set(names) if Path(d) == REPO else not_inputs(d, names))
    (dst / ".venv").symlink_to(REPO / ".venv")
    if (REPO / "node_modules").is_dir():  # saves the npm install; build-docs checks the pinned version
        (dst / "node_modules").symlink_to(REPO / "node_modules")
    return dst


def _python(root: Path, *args: str) -> subprocess.CompletedProcess:
    # docgen finds the tree to work on from the working directory: the copy, whatever .venv it runs from
    return subprocess.run([str(root / ".venv" / "bin" / "python"), *args], cwd=root,
                          env={"PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def _drop_filter(dockerfile: Path, name: str) -> None:
    lines = dockerfile.read_text().splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if line.strip().rstrip("\\").strip() == name]
    assert len(hits) == 1, f"expected one prefetch filter line {name!r} in {dockerfile.name}, found {len(hits)}"
    del lines[hits[0]]
    dockerfile.write_text("".join(lines))


def _text(page: Path) -> str:
    """The page's words: comments (the docgen markers) vanish in place, tags become spaces."""
    no_comments = re.sub(r"<!--.*?-->", "", page.read_text(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", no_comments)).split())


def _filter_table(venvs_page: Path) -> str:
    doc = venvs_page.read_text()
    start = doc.index('id="the-filter-table"')
    return doc[start:doc.index("<h2", start)]


def test_one_filter_fewer_changes_the_site(tmp_path, site):
    """`site`, the session's build of this repository, is the site before the change."""
    root = _copy_repo(tmp_path / "repo")
    probe = _python(root, "-c", "import docgen; print(docgen.__file__)")
    assert Path(probe.stdout.strip()).is_relative_to(root), "docgen would write into the checkout, not the copy"

    current = _python(root, "-m", "docgen", "check")   # so the session's site is this copy's, before the change
    assert current.returncode == 0, current.stdout + current.stderr

    _drop_filter(root / "Dockerfile.nmp-rl-base", DROPPED_FILTER)
    written = _python(root, "-m", "docgen", "write")
    assert written.returncode == 0, written.stdout + written.stderr
    after = build_site(root, tmp_path / "after")
    assert after.returncode == 0, after.output[-3000:]

    venvs_before = site / "image" / "venvs" / "index.html"
    venvs_after = after.site / "image" / "venvs" / "index.html"
    table_before, table_after = _filter_table(venvs_before), _filter_table(venvs_after)
    assert table_after.count("<tr>") == table_before.count("<tr>") - 1
    assert DROPPED_FILTER in table_before and DROPPED_FILTER not in table_after

    assert "Those filters give nine (9) worker venvs" in _text(venvs_before)
    assert "Those filters give eight (8) worker venvs" in _text(venvs_after)
    assert "The image passes seven filters" in _text(venvs_after)
    assert (site / "reference/venvs/MegatronPolicyWorker/index.html").exists()
    assert not (after.site / "reference/venvs/MegatronPolicyWorker/index.html").exists()
