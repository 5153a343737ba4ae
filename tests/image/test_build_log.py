"""A cold build of the Gym-enabled hermetic target, read from its plain-progress log and its image.

- The actor prefetch builds none of the packages the warm-up syncs built: it only links.
- NEMO_GYM_PREFETCH_CONFIGS set gives one venv per Gym environment server under /opt/gym_venvs,
  linked into the uv cache and read-only to the runtime user.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from tests.image.bake import bake, probe_tag, remove_tag

pytestmark = [pytest.mark.image, pytest.mark.docker, pytest.mark.slow]

GYM_TAG = probe_tag("gym")
GYM_SERVER = "standin_echo"
LINE = re.compile(r"^#(\d+) (?:[\d.]+ )?(.*)$")
BUILT = re.compile(r"^\s*Built (\S+) @ ")


def step_outputs(log: str) -> dict[str, list[str]]:
    """BuildKit step id -> the lines that step printed."""
    out = defaultdict(list)
    for line in log.splitlines():
        if m := LINE.match(line):
            out[m.group(1)].append(m.group(2))
    return out


def step_running(steps: dict[str, list[str]], command: str) -> list[str]:
    """The output of the one step whose shell trace (bash -x) ran `command`."""
    found = [lines for lines in steps.values() if any(l.startswith("+ ") and command in l for l in lines)]
    assert len(found) == 1, f"{len(found)} steps ran {command!r}"
    return found[0]


def built(lines: list[str]) -> set[str]:
    return {m.group(1) for line in lines if (m := BUILT.match(line))}


@pytest.fixture(scope="module")
def cold_gym_build(docker_client):
    # --no-cache is harmless here: the Dockerfile has no cache mounts (the uv cache lives in the image)
    proc = bake("hermetic-gym", "--no-cache", "--set", f"hermetic-gym.tags={GYM_TAG}")
    try:
        assert proc.returncode == 0, proc.stdout[-3000:]
        yield proc.stdout, docker_client.images.get(GYM_TAG)
    finally:
        remove_tag(GYM_TAG)


def test_prefetch_builds_nothing_the_warm_up_built(cold_gym_build):
    steps = step_outputs(cold_gym_build[0])
    warm = built(step_running(steps, "uv sync"))
    prefetch = built(step_running(steps, "nemo_rl/utils/prefetch_venvs.py"))
    assert len(warm) >= 10, f"the warm-up built only {sorted(warm)}"
    assert not warm & prefetch, f"the prefetch rebuilt {sorted(warm & prefetch)}"


def test_gym_servers_get_a_venv_each(docker_client, cold_gym_build):
    log, image = cold_gym_build
    gym_step = step_running(step_outputs(log), "examples/nemo_gym/prefetch_venvs.py")
    assert f"Prefetching Gym server {GYM_SERVER}: /opt/gym_venvs/{GYM_SERVER}" in gym_step
    server = f"/opt/nemo-rl/3rdparty/Gym-workspace/Gym/resources_servers/{GYM_SERVER}"
    script = (f"cd {server} && ls /opt/gym_venvs && /opt/gym_venvs/{GYM_SERVER}/bin/python -c "
              "'import app, os, standin_echo_helper as h; print(app.step(7)); print(os.path.realpath(h.__file__))'; "
              f"touch /opt/gym_venvs/{GYM_SERVER}/probe 2>&1 || echo refused")
    out = docker_client.containers.run(image.id, ["bash", "-c", script], network_mode="none", remove=True).decode()
    lines = out.strip().splitlines()
    assert len(lines) == 5, out
    venvs, result, real, denied, refused = lines
    assert venvs == GYM_SERVER, out
    assert result == "{'observation': 7}", out
    assert real.startswith("/opt/uv_cache/"), out
    assert "Permission denied" in denied and refused == "refused", out


def test_gym_step_fails_when_it_leaves_more_than_the_limit_in_the_gym_tree():
    # The stand-in's server leaves nothing in the Gym tree (0 MiB), so only a negative limit trips the
    # guard here; what this shows is that the step checks the tree after the prefetch and fails the build.
    proc = bake("hermetic-gym", "--set", "hermetic-gym.args.NEMO_GYM_INTREE_MAX_MIB=-1",
                "--set", "hermetic-gym.output=type=cacheonly", "--set", f"hermetic-gym.tags={GYM_TAG}")
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert "the Gym venv prefetch grew 3rdparty/Gym-workspace/Gym by 0 MiB (limit -1)" in proc.stdout, proc.stdout[-3000:]
    assert "Prefetching Gym server standin_echo" in proc.stdout
