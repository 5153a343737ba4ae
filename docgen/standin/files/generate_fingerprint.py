"""Print a stable fingerprint of what the container's environments were built from.

The fingerprint covers pyproject.toml, uv.lock and the state of every 3rdparty workspace
(the submodules upstream). Two checkouts that would build the same venvs print the same line.
"""

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def digest_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "absent"


def submodule_state(workspace: Path) -> str:
    """Hash of a workspace's file names and contents (a checkout has no .git to ask)."""
    h = hashlib.sha256()
    for path in sorted(workspace.rglob("*")):
        if path.is_file() and ".git" not in path.parts and "__pycache__" not in path.parts:
            h.update(path.relative_to(workspace).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def fingerprint() -> dict[str, str]:
    parts = {"pyproject.toml": digest_file(ROOT / "pyproject.toml"), "uv.lock": digest_file(ROOT / "uv.lock")}
    third = ROOT / "3rdparty"
    if third.is_dir():
        for ws in sorted(p for p in third.iterdir() if p.is_dir()):
            parts[f"3rdparty/{ws.name}"] = submodule_state(ws)
    return parts


def main() -> int:
    parts = fingerprint()
    total = hashlib.sha256("".join(f"{k}={v}\n" for k, v in parts.items()).encode()).hexdigest()
    print(f"nemo-rl-fingerprint sha256:{total}")
    for name, value in parts.items():
        print(f"  {name} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
