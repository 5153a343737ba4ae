"""Issue 19, point 3: a snapshot knows where it came from. `docgen snapshot --from CHECKOUT` with no --repo or
--ref fills both, and the commit, from the checkout's git; a snapshot that records no provenance is a finding
(exit 1, on the snapshot file) and no page renders "None" for it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docgen.snapshot.build import repo_name
from tests.docgen_cli import docgen
from tests.reference import needs_reference
from tests.rl_checkout import BRANCH, FORK_URL, git, git_env, make_remote

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("url", [
    "https://github.com/soluwalana/RL.git", "https://github.com/soluwalana/RL", "https://github.com/soluwalana/RL/",
    "git@github.com:soluwalana/RL.git", "git@github.com:soluwalana/RL", "ssh://git@github.com:22/soluwalana/RL.git",
    "https://token@github.com/soluwalana/RL.git"])
def test_remote_urls_normalise_to_owner_and_name(url):
    assert repo_name(url) == "soluwalana/RL"


@pytest.mark.parametrize("url, recorded", [
    ("/srv/mirrors/soluwalana/RL.git", "/srv/mirrors/soluwalana/RL.git"), ("../RL", "../RL"),
    ("file:///srv/mirrors/RL", "/srv/mirrors/RL")])
def test_a_local_remote_stays_a_path(url, recorded):
    """A folder on this machine is not a hosted repository: it is never dressed up as owner/name."""
    assert repo_name(url) == recorded


@needs_reference
@pytest.mark.parametrize("on", ["tag", "branch"])
def test_snapshot_from_a_git_checkout_fills_in_provenance(tmp_path, on):
    env = git_env(tmp_path)
    make_remote(tmp_path, "v9.1.0", env)
    checkout = tmp_path / "RL"
    git("clone", "-q", "-b", BRANCH, FORK_URL, str(checkout), env=env)
    if on == "tag":
        git("checkout", "-q", "--detach", "v9.1.0", env=env, cwd=checkout)
    commit = git("rev-parse", "HEAD", env=env, cwd=checkout)
    out = tmp_path / "nemo-rl.json"
    run = docgen("snapshot", "--from", str(checkout), "--root", str(tmp_path), "-o", str(out), env=env)
    assert run.returncode == 0, run.stderr
    assert "warning" not in run.stderr
    prov = json.loads(out.read_text())["provenance"]
    assert (prov["repo"], prov["ref"], prov["commit"]) == ("soluwalana/RL", "v9.1.0", commit)   # a tag wins
    if on == "branch":   # ... over the branch it also sits on; without the tag, the branch is the ref
        git("tag", "-d", "v9.1.0", env=env, cwd=checkout)
        assert docgen("snapshot", "--from", str(checkout), "--root", str(tmp_path), "-o", str(out),
                      env=env).returncode == 0
        assert json.loads(out.read_text())["provenance"]["ref"] == BRANCH
    # a ref that names nothing in the checkout is refused (never recorded as given), nothing written
    before = out.read_bytes()
    run = docgen("snapshot", "--from", str(checkout), "--root", str(tmp_path), "-o", str(out),
                 "--repo", "other/RL", "--ref", "main", env=env)
    assert run.returncode == 2 and "--ref main: no tag, branch or commit of that name" in run.stderr
    assert out.read_bytes() == before
    # what is given wins over git, once git says the ref is the checked-out commit
    run = docgen("snapshot", "--from", str(checkout), "--root", str(tmp_path), "-o", str(out),
                 "--repo", "other/RL", "--ref", BRANCH, env=env)
    assert run.returncode == 0, run.stderr
    prov = json.loads(out.read_text())["provenance"]
    assert (prov["repo"], prov["ref"], prov["commit"]) == ("other/RL", BRANCH, commit)


@needs_reference
def test_a_folder_inside_another_checkout_does_not_borrow_its_history(tmp_path):
    from tests.rl_checkout import write_workspace

    env = git_env(tmp_path)
    outer = tmp_path / "outer"
    outer.mkdir()
    git("init", "-q", str(outer), env=env)
    git("remote", "add", "origin", "https://github.com/someone/else.git", env=env, cwd=outer)
    write_workspace(outer / "RL")
    git("add", "-A", env=env, cwd=outer)
    git("commit", "-q", "-m", "x", env=env, cwd=outer)
    out = tmp_path / "nemo-rl.json"
    run = docgen("snapshot", "--from", str(outer / "RL"), "--root", str(tmp_path), "-o", str(out), env=env)
    assert run.returncode == 0, run.stderr
    assert "records no repository (--repo OWNER/NAME) and no ref (--ref REF)" in run.stderr
    prov = json.loads(out.read_text())["provenance"]
    assert (prov["repo"], prov["ref"], prov["commit"]) == (None, None, None)


@pytest.mark.parametrize("drop", [("repo",), ("ref", "commit"), ("repo", "ref", "commit")])
def test_a_snapshot_without_provenance_is_a_finding_and_renders_no_none(tmp_path, drop):
    data = json.loads((ROOT / "snapshot/nemo-rl.json").read_text())
    for key in drop:
        data["provenance"][key] = None
    snapshot = tmp_path / "nemo-rl.json"
    snapshot.write_text(json.dumps(data))
    lint = docgen("lint", "--snapshot", str(snapshot))
    assert lint.returncode == 1, lint.stdout + lint.stderr
    [line] = [x for x in lint.stdout.splitlines() if "[provenance]" in x]
    assert line.startswith(f"{snapshot}: [provenance] the snapshot records no ")
    assert ("repository" in line) == ("repo" in drop) and ("ref or commit" in line) == ("ref" in drop)
    # the page that names the NeMo-RL it describes says so in words, never "None"
    check = docgen("check", "--snapshot", str(snapshot), "docs/index.md")
    stale = dict(re.findall(r"value `(nemo_rl\.\w+)` is stale: '[^']*' -> '([^']*)'", check.stdout))
    assert stale and not any("None" in text for text in stale.values()), check.stdout
    if "repo" in drop:
        assert stale["nemo_rl.repo"] == "an unrecorded repository"
    if drop == ("ref", "commit"):
        assert stale == {"nemo_rl.ref": "an unrecorded ref"}
