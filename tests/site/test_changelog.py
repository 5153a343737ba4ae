"""The "What changed" page: `docgen diff` between consecutive commits of the snapshot in a scratch repository's
git history, newest first, each entry linking to its commit; and a page that says why when there is no
history to read (no git, no repository, one snapshot commit). No browser: the site tests build the real page."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from docgen.changelog import read_history
from docgen.inputs.dockerfile import read_dockerfile
from docgen.render.site import changelog_page
from tests.site.conftest import REPO

SNAPSHOT = "snapshot/nemo-rl.json"
DOCKERFILE = "Dockerfile.nmp-rl-base"
REPO_URL = "https://forge.example/ORG/nmp-rl-base"
ADDED = "nemo_rl.environments.scratch_env.ScratchEnvironment"
REMOVED = "nemo_rl.models.generation.sglang.sglang_worker.SGLangGenerationWorker"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def write_snapshot(root: Path, data: dict) -> None:
    (root / SNAPSHOT).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


@pytest.fixture
def scratch(tmp_path) -> tuple[Path, list[str]]:
    """A repository whose snapshot changed in three commits (plus one commit that leaves it alone): the
    committed snapshot, then an actor added to its registry, then another actor removed."""
    root = tmp_path / "repo"
    (root / "snapshot").mkdir(parents=True)
    git(root, "init", "-q")
    shutil.copy(REPO / DOCKERFILE, root / DOCKERFILE)
    data = json.loads((REPO / SNAPSHOT).read_text())
    write_snapshot(root, data)
    shas = [commit(root, "first snapshot")]
    grown = copy.deepcopy(data)
    grown["registry"]["actors"].append({**grown["registry"]["actors"][0], "actor": ADDED,
                                        "command": "sys.executable", "member": "SCRATCH"})
    write_snapshot(root, grown)
    shas.append(commit(root, "add the scratch environment <b>"))
    (root / "unrelated.txt").write_text("not the snapshot\n")
    commit(root, "an unrelated change")
    shrunk = copy.deepcopy(grown)
    shrunk["registry"]["actors"] = [a for a in shrunk["registry"]["actors"] if a["actor"] != REMOVED]
    assert len(shrunk["registry"]["actors"]) == len(grown["registry"]["actors"]) - 1
    write_snapshot(root, shrunk)
    shas.append(commit(root, "drop the SGLang worker"))
    return root, shas


def history(root: Path):
    return read_history(root, SNAPSHOT, DOCKERFILE, read_dockerfile(REPO / DOCKERFILE))


def test_three_snapshot_commits_give_two_entries_newest_first_each_linking_its_commit(scratch):
    root, (first, second, third) = scratch
    h = history(root)
    assert h.note is None
    assert [(e.commit.sha, e.previous.sha) for e in h.entries] == [(third, second), (second, first)]
    newest, older = (e.report for e in h.entries)
    assert [a["actor"] for a in newest["actors"]["removed"]] == [REMOVED] and not newest["actors"]["added"]
    assert [a["actor"] for a in older["actors"]["added"]] == [ADDED] and not older["actors"]["removed"]
    assert all(e.dockerfile == "at this commit" for e in h.entries)

    page = changelog_page(h, SNAPSHOT, REPO_URL)
    headings = [line for line in page.splitlines() if line.startswith("## ")]
    assert headings == [f"## {h.entries[0].commit.date}: commit {third[:8]}",
                        f"## {h.entries[1].commit.date}: commit {second[:8]}"]
    sections = page.split("\n## ")[1:]
    assert f"[`{third[:8]}`]({REPO_URL}/commit/{third})" in sections[0]
    assert f"[`{second[:8]}`]({REPO_URL}/commit/{second})" in sections[0]   # the version before it
    assert f"[`{second[:8]}`]({REPO_URL}/commit/{second})" in sections[1]
    assert f"[`{first[:8]}`]({REPO_URL}/commit/{first})" in sections[1]
    assert REMOVED in sections[0] and ADDED not in sections[0].split("### Actors", 1)[1].split("###", 1)[0]
    assert ADDED in sections[1]
    # the diff's sections are the entry's subsections, and a commit message is text, not markup
    assert "### Actors" in sections[0] and "### Key versions" in sections[0] and "#### " not in page
    assert "add the scratch environment &lt;b&gt;" in sections[1] and "<b>" not in page


def test_a_version_that_no_longer_reads_is_an_entry_that_says_so(scratch):
    root, shas = scratch
    (root / SNAPSHOT).write_text('{"format": 999}\n')
    newest = commit(root, "a snapshot of a future format")
    h = history(root)
    assert h.entries[0].commit.sha == newest and h.entries[0].report is None
    assert "unsupported snapshot format" in h.entries[0].problem
    assert "> **No comparison:** a version does not read" in changelog_page(h, SNAPSHOT, REPO_URL)


def test_one_snapshot_commit_no_repository_or_no_git_is_said_on_the_page(scratch, tmp_path, monkeypatch):
    root, _ = scratch
    single = tmp_path / "single"
    (single / "snapshot").mkdir(parents=True)
    git(single, "init", "-q")
    shutil.copy(root / SNAPSHOT, single / SNAPSHOT)
    commit(single, "only snapshot")
    plain = tmp_path / "plain"
    shutil.copytree(single / "snapshot", plain / "snapshot")
    pages = {}
    for name, where in (("single", single), ("plain", plain)):
        h = history(where)
        assert h.entries == [] and h.note
        pages[name] = changelog_page(h, SNAPSHOT, REPO_URL)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    h = history(root)
    assert h.entries == []
    pages["no git"] = changelog_page(h, SNAPSHOT, REPO_URL)
    assert "holds one commit of `snapshot/nemo-rl.json`" in pages["single"]
    assert "outside a git repository" in pages["plain"]
    assert "git is not available" in pages["no git"]
    assert all(p.startswith("# What changed\n") and "## " not in p for p in pages.values())
