"""Verified provenance (issue 31 part 3), on a scratch checkout of this repository and a local NeMo-RL mirror
(tests/bump_scratch.py): `docgen snapshot` refuses a ref that does not resolve and a dirty tree (unless
--allow-dirty, which is recorded and reported), records the git blob ids of the files it read and a local
remote as its path; `docgen check --against` holds those files to the recorded commit; every provenance
finding ends with the command that fixes it."""

from __future__ import annotations

import json
import re

import pytest

from tests.reference import needs_reference

pytestmark = [needs_reference, pytest.mark.slow, pytest.mark.xdist_group("provenance")]

FIX = re.compile(r"run `docgen bump nmp/customizer`$")


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    from tests.bump_scratch import scratch
    from tests.rl_checkout import FORK_URL, git
    s = scratch(tmp_path_factory.mktemp("provenance"))
    git("config", "--global", f"url.{s['mirror']}.insteadOf", FORK_URL, env=s["env"])
    clone = s["tmp"] / "clone"   # a clone of the fork as a maintainer has it: origin is the fork's URL
    git("clone", "-q", "-b", "nmp/customizer", FORK_URL, str(clone), env=s["env"])
    return {**s, "clone": clone}


def docgen(s, *args):
    from tests.bump_scratch import docgen as run
    return run(*args, cwd=s["repo"], env=s["env"])


def provenance_of(run) -> dict:
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["provenance"]


def test_a_ref_that_does_not_resolve_is_refused(s):
    run = docgen(s, "snapshot", "--from", str(s["clone"]), "--ref", "v9.9.9", "-o", "-")
    assert run.returncode == 2 and run.stdout == ""
    assert "--ref v9.9.9: no tag, branch or commit of that name" in run.stderr
    assert f"`git -C {s['clone']} fetch origin v9.9.9`" in run.stderr


def test_a_ref_of_another_commit_than_the_checkout_is_refused(s):
    run = docgen(s, "snapshot", "--from", str(s["clone"]), "--ref", "v0.0.1", "-o", "-")
    assert run.returncode == 2 and f"--ref v0.0.1 is commit {s['a'][:12]}, but the checkout is at" in run.stderr


def test_the_files_read_are_recorded_as_the_commits_blob_ids(s):
    from tests.rl_checkout import git
    prov = provenance_of(docgen(s, "snapshot", "--from", str(s["clone"]), "--ref", "nmp/customizer", "-o", "-"))
    assert prov["commit"] == s["b"] and prov["repo"] == "soluwalana/RL" and "dirty" not in prov
    assert {"pyproject.toml", "uv.lock"} <= prov["files"].keys() and len(prov["files"]) >= 3
    for rel, blob in prov["files"].items():
        assert git("rev-parse", f"{s['b']}:{rel}", env=s["env"], cwd=s["clone"]) == blob


def test_a_local_remote_is_recorded_as_its_path(s, tmp_path):
    from tests.rl_checkout import git
    local = tmp_path / "local-clone"
    git("clone", "-q", "-b", "nmp/customizer", str(s["mirror"]), str(local), env=s["env"])
    prov = provenance_of(docgen(s, "snapshot", "--from", str(local), "-o", "-"))
    assert prov["repo"] == str(s["mirror"])   # a path, not `tmp/mirror`


def test_a_dirty_tree_is_refused_unless_allowed_and_then_reported(s):
    from tests.bump_scratch import tree_digest
    lock = s["clone"] / "uv.lock"
    text = lock.read_text()
    lock.write_text(text + "\n")
    try:
        before = tree_digest(s["repo"])
        run = docgen(s, "snapshot", "--from", str(s["clone"]))
        assert run.returncode == 2 and "uv.lock differs from commit" in run.stderr
        assert f"`git -C {s['clone']} stash`" in run.stderr and "--allow-dirty" in run.stderr
        assert tree_digest(s["repo"]) == before
        allowed = docgen(s, "snapshot", "--from", str(s["clone"]), "--allow-dirty")
        assert allowed.returncode == 0 and "recorded as dirty" in allowed.stderr
        snap = json.loads((s["repo"] / "snapshot/nemo-rl.json").read_text())
        assert snap["provenance"]["dirty"] == ["uv.lock"]
        check = docgen(s, "check", "--no-diff")
        assert check.returncode == 1
        [finding] = [x for x in check.stdout.splitlines() if "[provenance]" in x and "dirty tree" in x]
        assert FIX.search(finding), finding
        # --against: the dirty file's blob is not the commit's
        against = docgen(s, "check", "--no-diff", "--against", str(s["clone"]))
        [differs] = [x for x in against.stdout.splitlines() if "uv.lock: the snapshot read blob" in x]
        assert f"commit {s['b'][:12]}" in differs and FIX.search(differs), differs
    finally:
        lock.write_text(text)
        from tests.rl_checkout import git
        git("checkout", "-q", "--", "snapshot", "docs", env=s["env"], cwd=s["repo"])


def test_check_against_passes_on_the_recorded_commit_and_fails_on_a_changed_digest(s):
    from tests.rl_checkout import git
    path = s["repo"] / "snapshot/nemo-rl.json"
    assert docgen(s, "check", "--no-diff", "--against", str(s["clone"])).returncode == 0   # the snapshot at A
    original = path.read_text()
    snap = json.loads(original)
    snap["provenance"]["files"]["pyproject.toml"] = "0" * 40
    path.write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
    try:
        run = docgen(s, "check", "--no-diff", "--against", str(s["clone"]))
        assert run.returncode == 1
        [finding] = [x for x in run.stdout.splitlines() if "pyproject.toml: the snapshot read blob 000000000000" in x]
        assert FIX.search(finding), finding
        missing = docgen(s, "check", "--no-diff", "--against", str(s["tmp"] / "not-a-repo"))
        assert missing.returncode == 2 and "is not in this repository" in missing.stderr
    finally:
        path.write_text(original)
    assert git("status", "--porcelain", env=s["env"], cwd=s["repo"]) == ""


def test_every_provenance_finding_names_its_fix(s):
    """A Dockerfile that builds another ref than the snapshot records, and a snapshot without repository."""
    from tests.rl_checkout import git
    dockerfile = s["repo"] / "Dockerfile.nmp-rl-base"
    snapshot = s["repo"] / "snapshot/nemo-rl.json"
    df, snap = dockerfile.read_text(), snapshot.read_text()
    try:
        dockerfile.write_text(df.replace("ARG NEMO_RL_REF=nmp/customizer", "ARG NEMO_RL_REF=v0.0.1", 1))
        data = json.loads(snap)
        data["provenance"]["repo"] = None
        snapshot.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        run = docgen(s, "check", "--no-diff")
        found = [x for x in run.stdout.splitlines() if "[provenance]" in x]
        assert len(found) == 2, run.stdout
        assert all(x.endswith("run `docgen bump v0.0.1`") for x in found), found
    finally:
        dockerfile.write_text(df)
        snapshot.write_text(snap)
    assert git("status", "--porcelain", env=s["env"], cwd=s["repo"]) == ""
