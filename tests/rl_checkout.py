"""A NeMo-RL checkout made in a temporary folder for tests that run `docgen snapshot --from` on a real git
checkout: the reference's pyproject.toml and uv.lock, its actor registry written back as the Python modules
upstream ships (no facts file, as in a real clone), committed and tagged in a bare "remote" repository.

Git reaches that remote under the fork's real URL: a private global git configuration rewrites the URL
(`url.<bare>.insteadOf`), so a clone records the real URL as its origin while fetching from the folder.
Nothing leaves the machine."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.reference import NEMO_RL_REF

FORK_URL = "https://github.com/soluwalana/RL.git"   # NEMO_RL_REPO's default in Dockerfile.nmp-rl-base
BRANCH = "nmp/customizer"


def git_env(home: Path) -> dict[str, str]:
    """An environment whose git reads only `home/.gitconfig` (no user or system configuration)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="test", GIT_AUTHOR_EMAIL="test@example.invalid",
               GIT_COMMITTER_NAME="test", GIT_COMMITTER_EMAIL="test@example.invalid")
    return env


def git(*args: str, env: dict[str, str], cwd: Path | None = None) -> str:
    run = subprocess.run(["git", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)
    assert run.returncode == 0, f"git {' '.join(args)}: {run.stderr}"
    return run.stdout.strip()


def write_workspace(dest: Path) -> None:
    """pyproject.toml, uv.lock and the registry modules of the reference, as a checkout has them."""
    from docgen.snapshot.registry import read_registry_json
    from docgen.standin.registry_py import render_registry_source

    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copyfile(NEMO_RL_REF / name, dest / name)
    for rel, text in render_registry_source(read_registry_json(NEMO_RL_REF / "registry.json")).items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)


def make_remote(tmp: Path, tag: str, env: dict[str, str]) -> Path:
    """A bare repository holding the workspace on BRANCH, tagged `tag`, reachable as FORK_URL."""
    work = tmp / "rl-work"
    write_workspace(work)
    git("init", "-q", "-b", BRANCH, str(work), env=env)
    git("add", "-A", env=env, cwd=work)
    git("commit", "-q", "-m", "NeMo-RL workspace", env=env, cwd=work)
    git("tag", tag, env=env, cwd=work)
    bare = tmp / "rl.git"
    git("clone", "-q", "--bare", str(work), str(bare), env=env)
    shutil.rmtree(work)
    git("config", "--global", f"url.{bare}.insteadOf", FORK_URL, env=env)
    return bare
