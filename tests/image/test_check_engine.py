"""scripts/check-engine: the engine-version gate scripts/build-image runs before it builds.

The engine is stood in for by a `docker` script that prints a given server version, so every branch
runs here; the last test asks the real engine, when there is one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-engine"


def run(tmp_path: Path, version: str | None) -> subprocess.CompletedProcess:
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\nexit 1\n" if version is None else f"#!/bin/sh\necho '{version}'\n")
    fake.chmod(0o755)
    return subprocess.run([str(SCRIPT)], env={"PATH": "/usr/bin:/bin", "DOCKER": str(fake)},
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("version", ["28.5.0", "28.5.2+dfsg4", "29.0.1", "28.10.0"])
def test_new_enough_engines_pass(tmp_path, version):
    proc = run(tmp_path, version)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.parametrize("version", ["28.4.0", "26.1.5+dfsg1", "20.10.24"])
def test_older_engines_stop_the_build_with_the_reason(tmp_path, version):
    proc = run(tmp_path, version)
    assert proc.returncode == 2
    assert f"Docker Engine {version} is too old" in proc.stderr and "28.5.0 or newer" in proc.stderr
    assert "COPY --exclude" in proc.stderr


def test_no_engine_or_an_unreadable_version_is_reported(tmp_path):
    proc = run(tmp_path, None)
    assert proc.returncode == 2 and "no Docker Engine answers" in proc.stderr
    proc = run(tmp_path, "dev")
    assert proc.returncode == 2 and "cannot read the Docker Engine version" in proc.stderr


@pytest.mark.docker
def test_the_engine_here_passes():
    if not shutil.which("/usr/bin/docker"):
        pytest.skip("no docker CLI at /usr/bin/docker; set up with `bash scripts/bootstrap`")
    proc = subprocess.run([str(SCRIPT)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
