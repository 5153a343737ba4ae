"""A scratch checkout of this repository and a local NeMo-RL mirror with two commits on the fork's branch, for
the tests of `docgen bump`, its workflow and the maintainer runbooks.

The mirror is a bare repository made from the reference's files (tests/rl_checkout.py writes them as a clone
holds them): commit A is the reference, commit B moves one package of the lock (tqdm 4.69.0 -> 4.69.1). The
scratch checkout is this repository's tracked files as they are now, with its snapshot re-recorded at A (so
the bump has an older commit to move from) and committed. Git reads only a private configuration."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from tests.rl_checkout import BRANCH, git, git_env, write_workspace

REPO = Path(__file__).resolve().parents[1]
DOCGEN = REPO / ".venv" / "bin" / "docgen"
OLD_TQDM, NEW_TQDM = 'name = "tqdm"\nversion = "4.69.0"', 'name = "tqdm"\nversion = "4.69.1"'


def make_mirror(tmp: Path, env: dict[str, str]) -> tuple[Path, str, str]:
    """A bare mirror at tmp/mirror.git with BRANCH at B and a tag `v0.0.1` at A; (path, A, B)."""
    work = tmp / "rl-work"
    write_workspace(work)
    git("init", "-q", "-b", BRANCH, str(work), env=env)
    git("add", "-A", env=env, cwd=work)
    git("commit", "-q", "-m", "A: the reference", env=env, cwd=work)
    git("tag", "v0.0.1", env=env, cwd=work)
    a = git("rev-parse", "HEAD", env=env, cwd=work)
    lock = work / "uv.lock"
    text = lock.read_text()
    assert text.count(OLD_TQDM) == 1
    lock.write_text(text.replace(OLD_TQDM, NEW_TQDM))
    git("commit", "-q", "-am", "B: tqdm 4.69.1", env=env, cwd=work)
    b = git("rev-parse", "HEAD", env=env, cwd=work)
    mirror = tmp / "mirror.git"
    git("clone", "-q", "--mirror", str(work), str(mirror), env=env)
    shutil.rmtree(work)
    return mirror, a, b


def copy_tracked(dest: Path) -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for rel in filter(None, tracked.decode().split("\0")):
        if (REPO / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, dest / rel)


def docgen(*args: str, cwd: Path, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(DOCGEN), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def scratch(tmp: Path) -> dict:
    """tmp/repo (this repository, snapshot at A, committed), tmp/mirror.git, and tmp/RL absent."""
    env = git_env(tmp)
    env["DOCKER_HOST"] = f"unix://{tmp}/no-engine.sock"   # nothing listens there: the bump needs no engine
    mirror, a, b = make_mirror(tmp, env)
    repo = tmp / "repo"
    copy_tracked(repo)
    (repo / ".venv").symlink_to(REPO / ".venv")
    git("init", "-q", "-b", "main", str(repo), env=env)
    (repo / ".git" / "info" / "exclude").write_text(".venv\n")   # the link to the project's venv is no file of it
    # the snapshot at A, recorded from a clone of the mirror, and the pages rendered from it
    at_a = tmp / "rl-at-a"
    git("clone", "-q", "-b", BRANCH, str(mirror), str(at_a), env=env)
    git("reset", "-q", "--hard", a, env=env, cwd=at_a)   # the branch as it was at A
    made = docgen("snapshot", "--from", str(at_a), "--ref", BRANCH, "--repo", "soluwalana/RL", cwd=repo, env=env)
    assert made.returncode == 0, made.stderr
    shutil.rmtree(at_a)
    wrote = docgen("write", cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    git("add", "-A", env=env, cwd=repo)
    git("commit", "-q", "-m", "snapshot at A", env=env, cwd=repo)
    return {"tmp": tmp, "repo": repo, "mirror": mirror, "a": a, "b": b, "env": env, "rl": tmp / "RL"}


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under root (the .venv link aside) -> sha256 of its bytes, with .git included."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".venv" or rel.startswith(".venv/") or not path.is_file() or path.is_symlink():
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


EXTRA_ACTOR = "nemo_rl.algorithms.extra_worker.ExtraWorker"


def push_broken_branch(s: dict, branch: str = "broken") -> str:
    """A commit on `branch` of the mirror, on top of B, whose registry adds a uv actor the Dockerfile neither
    prefetches nor lists as left out: `docgen check` fails on it. Returns the commit."""
    import json

    from docgen.snapshot.registry import read_registry_json
    from docgen.standin.registry_py import render_registry_source
    from tests.reference import NEMO_RL_REF

    env, work = s["env"], s["tmp"] / "rl-broken"
    git("clone", "-q", "-b", BRANCH, str(s["mirror"]), str(work), env=env)
    facts = json.loads((NEMO_RL_REF / "registry.json").read_text())
    facts["registry"].append({"actor": EXTRA_ACTOR, "py_executable": "VLLM",
                              "command": "uv run --locked --extra vllm --directory {git_root}",
                              "with_NEMO_RL_PY_EXECUTABLES_SYSTEM=1": "sys.executable", "source": "upstream"})
    facts_file = s["tmp"] / "registry-broken.json"
    facts_file.write_text(json.dumps(facts))
    for rel, text in render_registry_source(read_registry_json(facts_file)).items():
        (work / rel).write_text(text)
    git("commit", "-q", "-am", "C: an actor nobody prefetches", env=env, cwd=work)
    git("push", "-q", str(s["mirror"]), f"HEAD:refs/heads/{branch}", env=env, cwd=work)
    commit = git("rev-parse", "HEAD", env=env, cwd=work)
    shutil.rmtree(work)
    return commit
