"""The build cache travels: a builder with no local state, given an exported cache, rebuilds nothing.

The docker driver on the classic image store (the engine the other tests use) refuses cache export, so
this test starts a private Docker Engine of its own with the containerd image store, on its own socket,
data root and network bridge, and removes all of it afterwards. On that engine it builds the hermetic
target with `cache-to type=local,mode=max` (what production does with `type=registry`), empties the
engine's build cache, and builds again with only `cache-from`: every Dockerfile step must come from
the cache. A control build of the first stage in between, with neither, shows that the emptied engine
does rebuild.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.image.bake import CACERT, DOCKER, ROOT, STANDIN, need_standin, probe_tag

pytestmark = [pytest.mark.image, pytest.mark.docker, pytest.mark.slow]

DOCKERD = "/usr/sbin/dockerd"
BASE_IMAGES = ("local/python:3.13-trixie", "ghcr.io/astral-sh/uv:0.11.33")
STEP = re.compile(r"^#(\d+) \[(base|builder|nmp-rl-base) +\d+/\d+\] (\S+)")
SOCKET_PATH_MAX = 108   # bytes in a unix socket address (sun_path), its closing NUL included
STATUS = re.compile(r"^#(\d+) (CACHED|DONE)\b")


def _run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def private_engine(hermetic_image):
    """DOCKER_HOST of a private containerd-store engine; torn down (daemon, bridge, data) afterwards."""
    need_standin()
    if os.geteuid() != 0 or not shutil.which(DOCKERD) or not shutil.which("ip"):
        pytest.skip("needs root, dockerd and ip to start a private engine")
    # The engine's state (the loaded base images, their unpacked layers, the builds and the exported cache)
    # is about 840 MiB, written and thrown away: in the suite's scratch, in memory where the machine allows
    # (tests/conftest.py). Under /tmp otherwise: unix socket paths are limited.
    scratch = tempfile.gettempdir()
    fits = len(f"{scratch}/nmpc-12345678/docker.sock") < SOCKET_PATH_MAX
    state = Path(tempfile.mkdtemp(prefix="nmpc-", dir=scratch if fits else "/tmp"))
    # A bridge of its own: never `--bridge=none`, with which dockerd deletes the host's docker0 (the shared
    # engine's default bridge) on start.
    bridge = f"nmpc{os.getpid() % 100000}"
    host = f"unix://{state}/docker.sock"
    (state / "daemon.json").write_text('{"features": {"containerd-snapshotter": true}}\n')
    had_docker0 = _run("ip", "link", "show", "docker0").returncode == 0
    made = _run("ip", "link", "add", bridge, "type", "bridge")
    if made.returncode != 0:
        shutil.rmtree(state, ignore_errors=True)
        pytest.fail(f"cannot create the bridge {bridge}: {made.stderr}")
    daemon = None
    try:
        _run("ip", "addr", "add", "172.31.211.1/24", "dev", bridge, check=True)
        _run("ip", "link", "set", bridge, "up", check=True)
        log = open(state / "dockerd.log", "w")
        daemon = subprocess.Popen(
            [DOCKERD, "--config-file", str(state / "daemon.json"), "--data-root", str(state / "data"),
             "--exec-root", str(state / "exec"), "--pidfile", str(state / "dockerd.pid"), "-H", host,
             "--iptables=false", "--ip6tables=false", f"--bridge={bridge}"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        env = {"PATH": "/usr/bin:/bin", "DOCKER_HOST": host}
        # until the engine answers, or its process ends; the deadline is only a net for a hang
        deadline = time.monotonic() + 600
        while _run(DOCKER, "info", env=env).returncode != 0:
            if daemon.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the private engine did not start:\n{(state / 'dockerd.log').read_text()[-2000:]}")
            time.sleep(0.2)
        save = subprocess.Popen([DOCKER, "image", "save", *BASE_IMAGES], stdout=subprocess.PIPE)
        load = subprocess.run([DOCKER, "image", "load"], stdin=save.stdout, env=env, capture_output=True, text=True)
        save.stdout.close()
        assert save.wait() == 0 and load.returncode == 0, load.stderr
        yield env, state
    finally:
        if daemon is not None:
            daemon.terminate()
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        _run("ip", "link", "del", bridge)
        shutil.rmtree(state, ignore_errors=True)
        if had_docker0 and _run("ip", "link", "show", "docker0").returncode != 0:
            pytest.fail("the private engine removed the host's docker0 bridge")


def bake_on(env: dict, state: Path, *args: str) -> dict[str, str]:
    """Build the hermetic target on the private engine; {Dockerfile step: CACHED or DONE}."""
    proc = subprocess.run(
        [DOCKER, "buildx", "bake", f"--allow=fs.read={CACERT}", f"--allow=fs.read={STANDIN}", f"--allow=fs.write={state}",
         "--progress=plain", "--set", "hermetic.output=type=cacheonly", "--set", f"hermetic.tags={probe_tag('cache')}",
         *args, "hermetic"],
        cwd=ROOT, env={**env, "STANDIN_DIR": str(STANDIN), "CACERT": CACERT},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    names, status = {}, {}
    for line in proc.stdout.splitlines():
        if (m := STEP.match(line)) and m.group(3) != "FROM":
            names[m.group(1)] = line.split(" ", 1)[1]
        elif m := STATUS.match(line):
            status[m.group(1)] = m.group(2)
    return {name: status.get(n, "?") for n, name in names.items()}


def test_a_fresh_builder_rebuilds_nothing_from_an_exported_cache(private_engine):
    env, state = private_engine
    cache = state / "cache"
    first = bake_on(env, state, "--set", f"hermetic.cache-to=type=local,dest={cache},mode=max")
    assert len(first) >= 15 and (cache / "index.json").is_file(), first

    def empty_build_cache():
        _run(DOCKER, "builder", "prune", "--all", "--force", env=env, check=True)

    empty_build_cache()
    # The control needs only show that the emptied engine builds again: the base stage, the first one
    # built, is enough (its steps run in a second; the whole target would be a second cold build).
    control = bake_on(env, state, "--set", "hermetic.target=base")
    assert control and set(control) <= set(first), control
    assert "DONE" in control.values(), "the emptied engine took the build from somewhere"
    empty_build_cache()
    again = bake_on(env, state, "--set", f"hermetic.cache-from=type=local,src={cache}")
    assert set(again) == set(first)
    ran = sorted(step for step, how in again.items() if how != "CACHED")
    assert not ran, f"rebuilt despite the cache: {ran}"
