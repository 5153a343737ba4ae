"""Create the per-actor virtual environments ahead of time (docgen stand-in of NeMo-RL's tool).

    python nemo_rl/utils/prefetch_venvs.py [FILTER ...] [--negative-filters FILTER ...]

Filters are case-sensitive substrings of the actor's fully qualified name and are OR-ed; with no
filter every actor is selected. Negative filters then drop actors again. Actors that run on the
system interpreter get no venv. Every other actor gets its own venv at $NEMO_RL_VENV_DIR/<FQN>,
synced from the lock with the `--extra` flags of its executable.
"""

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from nemo_rl.distributed.ray_actor_environment_registry import ACTOR_ENVIRONMENT_REGISTRY

GIT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VENV_DIR = GIT_ROOT / "venvs"
WRAPPER_DIR = Path("/usr/local/bin")


def is_system(executable: str) -> bool:
    return executable == sys.executable


def extra_flags(executable: str) -> list[str]:
    tokens = shlex.split(executable)
    flags = []
    for i, tok in enumerate(tokens):
        if tok == "--extra" and i + 1 < len(tokens):
            flags += ["--extra", tokens[i + 1]]
        elif tok.startswith("--extra="):
            flags += ["--extra", tok.partition("=")[2]]
    return flags


def selected(actor: str, filters: list[str], negative: list[str]) -> bool:
    if filters and not any(f in actor for f in filters):
        return False
    return not any(f in actor for f in negative)


def create_venv(actor: str, executable: str, venv_dir: Path) -> Path:
    venv = venv_dir / actor
    env = dict(os.environ, UV_PROJECT_ENVIRONMENT=str(venv))
    subprocess.run(["uv", "venv", "--allow-existing", str(venv)], check=True, cwd=GIT_ROOT, env=env)
    subprocess.run(["uv", "sync", "--locked", *extra_flags(executable)], check=True, cwd=GIT_ROOT, env=env)
    return venv


def write_wrapper(actor: str, venv: Path) -> Path:
    """python-<ClassName>: run an actor's interpreter by hand inside the container."""
    path = WRAPPER_DIR / f"python-{actor.rsplit('.', 1)[-1]}"
    path.write_text(
        "#!/bin/sh\n"
        f"export VIRTUAL_ENV={shlex.quote(str(venv))}\n"
        'export PATH="$VIRTUAL_ENV/bin:$PATH"\n'
        'exec "$VIRTUAL_ENV/bin/python" "$@"\n'
    )
    path.chmod(0o755)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("filters", nargs="*", help="substrings of actor FQNs to include (OR-ed)")
    parser.add_argument("--negative-filters", nargs="*", default=[], help="substrings of actor FQNs to exclude")
    args = parser.parse_args(argv)

    venv_dir = Path(os.environ.get("NEMO_RL_VENV_DIR", DEFAULT_VENV_DIR))
    in_container = bool(os.environ.get("NRL_CONTAINER"))
    prefetched, system, filtered = [], [], []
    for actor, executable in ACTOR_ENVIRONMENT_REGISTRY.items():
        if not selected(actor, args.filters, args.negative_filters):
            filtered.append(actor)
        elif is_system(executable):
            system.append(actor)
        else:
            print(f"Prefetching {actor}: {executable}", flush=True)
            venv = create_venv(actor, executable, venv_dir)
            prefetched.append(actor)
            if in_container:
                write_wrapper(actor, venv)

    print("\nVenv prefetch summary")
    print(f"  Prefetched: {len(prefetched)}")
    for actor in prefetched:
        print(f"    {actor}")
    print(f"  Skipped (system Python): {len(system)}")
    print(f"  Skipped (filtered out): {len(filtered)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
