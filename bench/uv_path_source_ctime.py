"""Why a second COPY of unchanged files made the prefetch rebuild path sources: uv's cache of a built
path source is keyed on the change time (ctime) of its files, not only their contents or mtime.

    .venv/bin/python bench/uv_path_source_ctime.py

Builds one local path package with this project's uv into a throwaway cache, then syncs three more
venvs from that cache: with nothing touched (baseline), after rewriting pyproject.toml with the same
bytes and the same mtime (only ctime moves, as when COPY stores the file again), and after a chmod
round trip (ctime only). Prints, for each, whether uv built the package again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UV = Path(sys.executable).parent / "uv"
BACKEND = ROOT / "docgen" / "standin" / "files" / "standin_backend.py"

DEP = """[build-system]
requires = []
build-backend = "standin_backend"
backend-path = ["."]

[project]
name = "probe-dep"
version = "1.0"

[tool.standin]
packages = ["probe_dep"]
"""
APP = """[project]
name = "probe-app"
version = "0"
requires-python = ">=3.11"
dependencies = ["probe-dep"]

[tool.uv]
package = false

[tool.uv.sources]
probe-dep = { path = "dep" }
"""


def sync(work: Path, venv: str) -> bool:
    """Sync a new venv; True when uv built probe-dep for it."""
    env = dict(os.environ, UV_CACHE_DIR=str(work / "cache"), UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never",
               UV_PROJECT_ENVIRONMENT=str(work / venv), UV_NO_PROGRESS="1")
    proc = subprocess.run([str(UV), "sync"], cwd=work, env=env, capture_output=True, text=True, check=True)
    return "Built probe-dep" in proc.stderr


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-uv-ctime-") as tmp:
        work = Path(tmp)
        (work / "dep" / "probe_dep").mkdir(parents=True)
        (work / "dep" / "probe_dep" / "__init__.py").write_text("")
        (work / "dep" / "pyproject.toml").write_text(DEP)
        shutil.copy(BACKEND, work / "dep")
        (work / "pyproject.toml").write_text(APP)
        env = dict(os.environ, UV_CACHE_DIR=str(work / "cache"), UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never")
        subprocess.run([str(UV), "lock", "-q"], cwd=work, env=env, check=True)
        assert sync(work, "v0"), "the first sync must build the package"
        rows = [("nothing touched (baseline)", sync(work, "v1"))]
        dep = work / "dep" / "pyproject.toml"
        st = dep.stat()
        dep.write_text(DEP)                                  # same bytes
        os.utime(dep, ns=(st.st_atime_ns, st.st_mtime_ns))   # same mtime: only ctime moved
        rows.append(("same bytes, same mtime, new ctime", sync(work, "v2")))
        dep.chmod(0o600)
        dep.chmod(0o644)
        rows.append(("chmod round trip (ctime only)", sync(work, "v3")))
    version = subprocess.run([str(UV), "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}: does a new venv rebuild a cached path source?")
    for what, rebuilt in rows:
        print(f"  {what:36} {'rebuilt' if rebuilt else 'linked from the cache'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
