"""`docker buildx bake` on this checkout's stand-in, for image tests that build probe images of their own.

Probe images get a tag naming this test area and the label owner=issue-11, and the tests remove only
those tags; nothing here touches the image the other tests read (NMP_IMAGE).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKER = "/usr/bin/docker"
CACERT = "/etc/ssl/certs/ca-certificates.crt"
STANDIN = ROOT / "build" / "standin"
OWNER = "issue-11"


def probe_tag(purpose: str) -> str:
    return f"nmp-rl-base:{purpose}-probe-{OWNER}"


def need_standin() -> None:
    if not (STANDIN / "uv.lock").is_file():
        pytest.skip("no stand-in workspace at build/standin; set up with `bash scripts/bootstrap` (or scripts/build-image)")


def bake(target: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run bake on `target` with plain progress; stdout+stderr in .stdout."""
    need_standin()
    return subprocess.run(
        [DOCKER, "buildx", "bake", f"--allow=fs.read={CACERT}", f"--allow=fs.read={STANDIN}", "--progress=plain",
         "--set", f"{target}.labels.owner={OWNER}", *args, target],
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", "STANDIN_DIR": str(STANDIN), "CACERT": CACERT},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)


def remove_tag(tag: str) -> None:
    """Untag a probe image (the image itself goes only when no other tag names it)."""
    subprocess.run([DOCKER, "image", "rm", tag], capture_output=True)
