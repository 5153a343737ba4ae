"""The build fails at its verification step, naming the actor, when a prefetch filter goes missing."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.image, pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
DOCKER = "/usr/bin/docker"
CACERT = "/etc/ssl/certs/ca-certificates.crt"
DROPPED_FILTER = "nemo_gym.NemoGym"
MISSING_ACTOR = "nemo_rl.environments.nemo_gym.NemoGym"


def test_dropping_a_filter_fails_the_build_naming_the_actor(tmp_path, hermetic_image):
    standin = ROOT / "build" / "standin"
    if not (standin / "uv.lock").is_file() or not shutil.which(DOCKER):
        pytest.skip(f"needs the stand-in workspace at build/standin and a docker CLI at {DOCKER}; "
                    "set up with `bash scripts/bootstrap`")
    text = (ROOT / "Dockerfile.nmp-rl-base").read_text()
    filter_line = re.compile(rf"^\s+{re.escape(DROPPED_FILTER)} \\\n", re.M)
    assert len(filter_line.findall(text)) == 1, "the prefetch filter line to drop is not in the Dockerfile"
    dockerfile = tmp_path / "Dockerfile.dropped-filter"
    dockerfile.write_text(filter_line.sub("", text))

    proc = subprocess.run(
        [DOCKER, "buildx", "bake", f"--allow=fs.read={CACERT}", f"--allow=fs.read={tmp_path}",
         "--progress=plain", "--set", f"hermetic.dockerfile={dockerfile}",
         "--set", "hermetic.tags=nmp-rl-base:dropped-filter-probe", "hermetic"],
        cwd=ROOT, env={"PATH": "/usr/bin:/bin", "STANDIN_DIR": str(standin), "CACERT": CACERT},
        capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert f"no prefetched venv for {MISSING_ACTOR}" in out, out[-3000:]
    assert "ray_actor_environment_registry.py" in out
    # the prefetch itself ran and skipped the actor: the failure is the verification loop's, not an earlier step's
    assert "Skipped (filtered out): " in out
