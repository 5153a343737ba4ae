"""`docgen bump` on a scratch checkout of this repository with a local NeMo-RL mirror (tests/bump_scratch.py):
it moves the snapshot from commit A to B and prints the pull-request body; a missing ref, an upstream clone
without the fork's branch, an unreachable repository, a ref older than the snapshot and a failing check each
stop it with the cause named, leaving every byte of the checkout as it was."""

from __future__ import annotations

import json
import re

import pytest

from tests.reference import needs_reference

pytestmark = [needs_reference, pytest.mark.slow, pytest.mark.xdist_group("bump")]   # one scratch, in order


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    from tests.bump_scratch import scratch
    return scratch(tmp_path_factory.mktemp("bump"))


def bump(s, *args):
    from tests.bump_scratch import docgen
    return docgen("bump", *args, cwd=s["repo"], env=s["env"])


def unchanged(s, run, code: int, cause: str):
    """The run failed with `code`, named `cause`, and left every file (.git included) as it was."""
    from tests.bump_scratch import tree_digest
    assert run.returncode == code, run.stdout + run.stderr
    assert re.search(cause, run.stderr), run.stderr
    assert run.stdout == ""
    assert tree_digest(s["repo"]) == s["before"]


@pytest.fixture
def before(s):
    from tests.bump_scratch import tree_digest
    s["before"] = tree_digest(s["repo"])
    return s


def test_a_missing_ref_is_named_and_changes_nothing(before):
    unchanged(before, bump(before, "no-such-branch", "--repo", str(before["mirror"])), 2,
              r"no branch or tag no-such-branch there")


def test_an_upstream_clone_without_the_forks_branch_is_named(before, tmp_path):
    from tests.rl_checkout import git
    upstream = tmp_path / "upstream.git"   # the same history, without the fork's branch
    git("clone", "-q", "--bare", "-b", "v0.0.1", str(before["mirror"]), str(upstream), env=before["env"])
    git("branch", "-q", "-D", "nmp/customizer", env=before["env"], cwd=upstream)
    unchanged(before, bump(before, "--repo", str(upstream)), 2, r"upstream clone lacks the branches of the fork")


def test_an_unreachable_repository_is_named(before):
    unchanged(before, bump(before, "--repo", "http://127.0.0.1:9/RL.git"), 2, r"could not reach the repository")


def test_a_failing_check_puts_every_byte_back(before):
    from tests.bump_scratch import EXTRA_ACTOR, push_broken_branch
    push_broken_branch(before)
    run = bump(before, "broken", "--repo", str(before["mirror"]))
    unchanged(before, run, 1, r"`docgen check` fails on broken .* every file was put back")
    assert EXTRA_ACTOR in run.stderr   # the finding itself is shown


def test_the_bump_moves_to_the_newest_commit_and_prints_the_body(s):
    from tests.bump_scratch import docgen
    from tests.rl_checkout import git
    run = bump(s, "--repo", str(s["mirror"]))
    assert run.returncode == 0, run.stderr
    prov = json.loads((s["repo"] / "snapshot/nemo-rl.json").read_text())["provenance"]
    assert (prov["repo"], prov["ref"], prov["commit"]) == ("soluwalana/RL", "nmp/customizer", s["b"])
    assert docgen("check", cwd=s["repo"], env=s["env"]).returncode == 0
    body = run.stdout
    headline = body.split("\n\n", 1)[0]
    assert f"at `{s['a'][:12]}` to `nmp/customizer` at `{s['b'][:12]}`, 1 commit on" in headline
    assert "tqdm 4.69.0 -> 4.69.1" in body and "### NeMo-RL bump" in body
    assert str(s["tmp"]) not in body and "/tmp" not in body and "docgen-bump-" not in body
    # the files it recorded are the commit's, blob for blob: check --against the fetched repository agrees
    against = docgen("check", "--against", str(s["rl"]), cwd=s["repo"], env=s["env"])
    assert against.returncode == 0, against.stdout + against.stderr
    assert git("status", "--porcelain", env=s["env"], cwd=s["rl"]) == ""   # ../RL's own tree: left alone


def test_a_second_bump_finds_nothing_to_do(s):
    from tests.bump_scratch import tree_digest
    before = tree_digest(s["repo"])
    run = bump(s, "--repo", str(s["mirror"]))
    assert run.returncode == 0 and run.stdout == "" and "nothing to bump" in run.stderr
    assert tree_digest(s["repo"]) == before


def test_a_ref_older_than_the_snapshot_is_refused(s):
    from tests.bump_scratch import tree_digest
    assert bump(s, "--repo", str(s["mirror"])).returncode == 0   # the snapshot at B (or already there)
    before = {**s, "before": tree_digest(s["repo"])}              # the tag v0.0.1 is A
    unchanged(before, bump(before, "v0.0.1", "--repo", str(before["mirror"])), 2,
              r"v0\.0\.1 \(commit \w+\) is older than the snapshot's commit")


def test_a_plain_clone_of_the_fork_serves_its_branch_from_refs_remotes(s, tmp_path):
    """A clone (not a mirror) holds the fork's other branches as origin/NAME only."""
    from tests.rl_checkout import git
    clone = tmp_path / "clone"
    git("clone", "-q", "-b", "v0.0.1", str(s["mirror"]), str(clone), env=s["env"])
    assert "refs/heads/broken" not in git("show-ref", env=s["env"], cwd=clone)
    run = bump(s, "broken", "--repo", str(clone))
    assert run.returncode == 1 and "fails on broken" in run.stderr   # fetched (and then refused by check)


def test_docgen_diff_names_no_temporary_path(tmp_path):
    """The old routine's `mktemp` copy of the snapshot: the report says what it is, not where it was."""
    import shutil
    import subprocess

    from tests.bump_scratch import DOCGEN, REPO
    old = tmp_path / "tmp.Xy12ab"
    shutil.copyfile(REPO / "snapshot/nemo-rl.json", old)
    for fmt in ("text", "markdown"):
        run = subprocess.run([str(DOCGEN), "diff", str(old), "snapshot/nemo-rl.json", "--format", fmt], cwd=REPO,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert str(tmp_path) not in run.stdout and "tmp.Xy12ab" not in run.stdout
        assert "a temporary file" in run.stdout and "snapshot/nemo-rl.json" in run.stdout


def test_a_full_commit_id_is_fetched_and_pointed_at(s):
    """It leaves the Dockerfile pointing at a commit id. The snapshot is at B by now."""
    from tests.bump_scratch import docgen
    run = bump(s, s["b"], "--repo", str(s["mirror"]))
    assert run.returncode == 0, run.stderr
    assert f"ARG NEMO_RL_REF={s['b']}\n" in (s["repo"] / "Dockerfile.nmp-rl-base").read_text()
    prov = json.loads((s["repo"] / "snapshot/nemo-rl.json").read_text())["provenance"]
    assert (prov["ref"], prov["commit"]) == (s["b"], s["b"])
    assert ", 0 commits on" in run.stdout.split("\n\n", 1)[0]
    # the pages' sentences that name the fork's branch now name a ref that moved: the body lists them, and
    # check holds them for a person (edit, or `docgen review`); nothing else is left
    check = docgen("check", cwd=s["repo"], env=s["env"])
    assert set(re.findall(r"^\S+: \[([\w-]+)\]", check.stdout, re.M)) <= {"review"}, check.stdout
    assert "### Sentences to review" in run.stdout or check.returncode == 0


def _branch_from_a(s, tmp_path, name: str, date: str) -> None:
    """A branch of the mirror that starts again from A (a rewritten fork branch), committed at `date`."""
    from tests.bump_scratch import NEW_TQDM, OLD_TQDM
    from tests.rl_checkout import git
    env = {**s["env"], "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    work = tmp_path / name
    git("clone", "-q", "-b", "v0.0.1", str(s["mirror"]), str(work), env=env)
    lock = work / "uv.lock"
    lock.write_text(lock.read_text().replace(OLD_TQDM, NEW_TQDM.replace("4.69.1", "4.69.5")))
    git("commit", "-q", "-am", f"{name}: tqdm 4.69.5", env=env, cwd=work)
    git("push", "-q", "origin", f"HEAD:refs/heads/{name}", env=env, cwd=work)


def test_a_rewritten_branch_moves_forward_by_date(s, tmp_path):
    """A branch that no longer contains the snapshot's commit: newer by its commit date is a bump (the body
    says so), older is refused like any older ref. Last: the snapshot ends on a commit dated 2099."""
    from tests.bump_scratch import tree_digest
    assert bump(s, "--repo", str(s["mirror"])).returncode == 0   # the snapshot at B (or already there)
    _branch_from_a(s, tmp_path, "backdated", "2001-01-01T00:00:00+0000")
    unchanged({**s, "before": tree_digest(s["repo"])}, bump(s, "backdated", "--repo", str(s["mirror"])), 2,
              r"backdated \(commit \w+\) is older than the snapshot's commit")
    _branch_from_a(s, tmp_path, "rewritten", "2099-01-01T00:00:00+0000")
    run = bump(s, "rewritten", "--repo", str(s["mirror"]))
    assert run.returncode == 0, run.stderr
    assert "which does not contain the snapshot's commit (a rewritten branch)" in run.stdout.split("\n\n", 1)[0]
    assert "tqdm 4.69.1 -> 4.69.5" in run.stdout
