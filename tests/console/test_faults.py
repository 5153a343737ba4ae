"""Blocks that break their shell or the container: each fails alone, with a message, and what follows runs."""

from __future__ import annotations

import os
import shutil
import socket
import textwrap
import threading
import time

import pytest

from docgen.console.container import SESSION_LABEL
from tests.console.docrun import (at_once, read_outcomes, run_page, session_env, start_page, wait_for_container,
                                  wait_until_started)


def _outcomes(outcomes):
    return {k: v.outcome for k, v in outcomes.items()}


KILL_ALL_PAGE = textwrap.dedent(
    """\
    # Before

    ```console
    $ echo kept > /tmp/mark; cat /tmp/mark
    kept
    ```

    ## Init

    ```console
    $ kill -KILL 1; kill -TERM 1; kill -STOP 1; echo still here
    still here
    ```

    ## Kill all

    ```console
    $ kill -KILL -1; kill -KILL $$
    ```

    ## After

    ```console
    $ echo after; cat /tmp/mark
    after
    cat: /tmp/mark: No such file or directory
    [1]
    ```
    """
)


@pytest.mark.probe("engine faults")
@pytest.mark.docker
def test_no_block_can_end_the_lifeline_and_one_that_kills_its_shell_fails_alone(tmp_path, runner_image, docker_client):
    # PID 1 of a PID namespace gets no signal it has no handler for from inside it, SIGKILL and SIGSTOP included
    session_id, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, KILL_ALL_PAGE, env=env)
    assert _outcomes(outcomes) == {"page.md::before::1": "passed", "page.md::init::1": "passed",
                                   "page.md::kill-all::1": "failed", "page.md::after::1": "passed"}, proc.stdout
    message = outcomes["page.md::kill-all::1"].message
    assert "the shell ended" in message and "the page continues in a fresh container" in message
    assert "Traceback" not in proc.stdout
    assert docker_client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={session_id}"}) == []


STOPPED_PAGE = textwrap.dedent(
    """\
    # Stopped

    <!-- console: timeout=120 -->
    ```console
    $ touch /tmp/ready; sleep 100
    ```

    ## After

    ```console
    $ echo after
    after
    ```
    """
)


@pytest.mark.probe("engine faults")
@pytest.mark.docker
def test_a_container_stopped_from_outside_fails_that_block_and_a_fresh_one_runs_the_rest(tmp_path, runner_image, docker_client):
    """One session's container killed, another's removed, while a block runs; the two sessions run at once."""
    def stop(how: str) -> None:
        session_id, env = session_env(runner_image)
        child = start_page(tmp_path / how, STOPPED_PAGE, env=env)
        try:
            container = wait_for_container(docker_client, session_id, child)
            wait_until_started(container, child)   # the block runs
            container.kill() if how == "kill" else container.remove(force=True)
            output, _ = child.communicate(timeout=120)
        finally:
            child.kill()
        outcomes = read_outcomes(tmp_path / how)
        assert _outcomes(outcomes) == {"page.md::stopped::1": "failed", "page.md::after::1": "passed"}, (how, output)
        message = outcomes["page.md::stopped::1"].message
        assert "stopped" in message and "from outside" in message and "fresh container" in message, (how, message)
        assert "Traceback" not in output, how

    at_once(stop, ["kill", "remove"])


FORK_BOMB_PAGE = textwrap.dedent(
    """\
    # Bomb

    <!-- console: timeout=0.5 -->
    ```console
    $ bomb() { bomb | bomb & }; bomb; sleep 30
    ```

    ## After

    ```console
    $ echo after
    after
    ```
    """
)


@pytest.mark.probe("engine faults")
@pytest.mark.docker
def test_exhausting_pids_fails_that_block_only(tmp_path, runner_image, docker_client):
    session_id, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, FORK_BOMB_PAGE, env=env)
    assert _outcomes(outcomes) == {"page.md::bomb::1": "failed", "page.md::after::1": "passed"}, proc.stdout
    message = outcomes["page.md::bomb::1"].message
    assert "timed out after 0.5 s" in message and "the page continues in a fresh container" in message, message
    assert "limit of 256 processes" in message
    assert "Traceback" not in proc.stdout
    assert docker_client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={session_id}"}) == []


MEMORY_PAGE = textwrap.dedent(
    """\
    # Memory

    ```console
    $ python3 -c "data = b'x' * (512 * 2**20)"; echo "status $?"
    status 0
    ```

    ## After

    ```console
    $ echo after
    after
    ```
    """
)


@pytest.mark.probe("engine faults")
@pytest.mark.docker
def test_exhausting_memory_fails_that_block_and_says_why(tmp_path, runner_image):
    # a small limit keeps the probe light on a shared machine; the mechanism is the same at the default 2g
    _, env = session_env(runner_image, DOCGEN_CONSOLE_MEMORY="192m")
    outcomes, proc = run_page(tmp_path, MEMORY_PAGE, env=env)
    assert _outcomes(outcomes) == {"page.md::memory::1": "failed", "page.md::after::1": "passed"}, proc.stdout
    message = outcomes["page.md::memory::1"].message
    assert "+status 137" in message
    assert "killed a process of this block for memory" in message and "(192m)" in message


CLOSE_STDOUT_PAGE = textwrap.dedent(
    """\
    # Close

    {opts}
    ```console
    $ exec >&-
    ```

    ## After

    {opts}
    ```console
    $ echo after
    after
    ```
    """
)


def _check_closed_stdout(outcomes, proc):
    assert _outcomes(outcomes) == {"page.md::close::1": "failed", "page.md::after::1": "passed"}, proc.stdout
    message = outcomes["page.md::close::1"].message
    assert "closed the shell's standard output" in message and "the page continues in a fresh" in message


@pytest.mark.probe("engine faults")
def test_closing_stdout_on_the_host_fails_that_block_only(tmp_path):
    outcomes, proc = run_page(tmp_path, CLOSE_STDOUT_PAGE.format(opts="<!-- console: where=host timeout=20 -->"))
    _check_closed_stdout(outcomes, proc)


@pytest.mark.probe("engine faults")
@pytest.mark.docker
def test_closing_stdout_in_the_container_fails_that_block_only(tmp_path, runner_image):
    _, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, CLOSE_STDOUT_PAGE.format(opts="<!-- console: timeout=20 -->"), env=env)
    _check_closed_stdout(outcomes, proc)


LEAVES_THINGS = textwrap.dedent(
    """\
    # Leaves things

    ```console
    $ touch /tmp/left-behind /dev/shm/left-behind; mkdir -p /tmp/d && chmod 0 /tmp/d
    $ setsid sleep 917 >/dev/null 2>&1 < /dev/null & echo started
    started
    $ python3 -c "import ctypes; c = ctypes.CDLL(None); print(c.msgget(917, 0o1600) >= 0, c.shmget(918, 4096, 0o1600) >= 0, c.semget(919, 1, 0o1600) >= 0)"
    True True True
    $ cat /proc/sysvipc/msg /proc/sysvipc/shm /proc/sysvipc/sem | wc -l
    6
    ```
    """
)

FINDS_NOTHING = textwrap.dedent(
    """\
    # Finds nothing

    ```console
    $ ls -A /tmp /dev/shm
    /dev/shm:

    /tmp:
    $ for f in /proc/[0-9]*/cmdline; do cat "$f"; echo; done 2>/dev/null | grep -ac '^sleep.917'
    0
    [1]
    $ cat /proc/sysvipc/msg /proc/sysvipc/shm /proc/sysvipc/sem | wc -l
    3
    ```
    """
)


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_each_page_gets_a_clean_tmp_no_processes_and_no_ipc_objects_of_earlier_pages(tmp_path, runner_image):
    _, env = session_env(runner_image)
    # pages run in name order: page.md, then z-page.md in the same session container
    outcomes, proc = run_page(tmp_path, LEAVES_THINGS, env=env, extra_pages={"z-page.md": FINDS_NOTHING})
    assert _outcomes(outcomes) == {"page.md::leaves-things::1": "passed", "z-page.md::finds-nothing::1": "passed"}, \
        proc.stdout + "\n".join(o.message for o in outcomes.values())


class SilentEngine:
    """A unix socket that accepts every connection and never answers: an engine that hangs."""

    def __init__(self, path) -> None:
        self.path = path
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(64)
        self._held: list[socket.socket] = []
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            self._held.append(conn)
            self.accepted += 1

    def close(self) -> None:
        self._server.close()
        for conn in self._held:
            conn.close()


HUNG_PAGE = textwrap.dedent(
    """\
    # First

    ```console
    $ echo one
    one
    ```

    ## Second

    ```console
    $ echo two
    two
    ```

    ## Third

    ```console
    $ echo three
    three
    ```
    """
)


def _docker_on_path(folder, body: str) -> dict[str, str]:
    """A `docker` first on PATH, in `folder`: it logs each call's arguments to folder/calls, then runs `body`."""
    (folder / "docker").write_text(f'#!/bin/sh\necho "$*" >> "{folder}/calls"\n{body}\n')
    (folder / "docker").chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.probe("engine faults")
def test_a_hung_engine_fails_each_block_in_bounded_time_and_says_so(tmp_path):
    real = shutil.which("docker") or pytest.skip("no docker CLI")
    engine = SilentEngine(tmp_path / "engine.sock")
    try:
        started = time.monotonic()
        outcomes, proc = run_page(tmp_path / "page", HUNG_PAGE, env={
            "DOCKER_HOST": f"unix://{engine.path}", "DOCGEN_CONSOLE_ENGINE_TIMEOUT": "3", "NMP_IMAGE": "any:image",
            **_docker_on_path(tmp_path, f'exec {real} "$@"')})
        elapsed = time.monotonic() - started
    finally:
        engine.close()
    assert _outcomes(outcomes) == {f"page.md::{name}::1": "failed" for name in ("first", "second", "third")}, proc.stdout
    for outcome in outcomes.values():
        assert "the Docker engine did not answer within 3 s" in outcome.message, outcome.message
        assert "gone" not in outcome.message and "fresh" not in outcome.message
    assert engine.accepted >= 1          # the engine was asked, and hung
    # one call waited; the blocks after it failed without asking again
    assert (tmp_path / "calls").read_text().splitlines() == ["image inspect --format={{.Id}} any:image"]
    # one 3 s wait plus a child pytest's start (a few seconds on a loaded machine), not 3 s per block or call
    assert elapsed < 3 + 20, elapsed
    print(f"hung engine: 3 blocks failed in {elapsed:.1f} s (engine timeout 3 s)")


@pytest.mark.probe("engine faults")
def test_one_timed_out_engine_call_fails_every_later_call_at_once_and_other_errors_pass_through(tmp_path, monkeypatch):
    from docgen.console.container import Engine, EngineHung

    # a Docker CLI that refuses `rm` and never ends anything else
    path = _docker_on_path(tmp_path, '[ "$1" = rm ] && { echo "no such container" >&2; exit 1; }; exec sleep 60')
    monkeypatch.setenv("PATH", path["PATH"])
    engine = Engine(1)
    with pytest.raises(EngineHung, match=r"did not answer within 1 s \(to inspect the session container\)"):
        engine.run("inspect the session container", "inspect", "id")
    with pytest.raises(EngineHung, match="within 1 s"):
        engine.run("remove the session container", "rm", "id")
    assert (tmp_path / "calls").read_text() == "inspect id\n"

    other = Engine(1)
    assert other.run("remove the session container", "rm", "id").stderr == "no such container\n"
    assert other.hung is None


# A Docker CLI whose `run` prints RUN_SAYS and then reads its input to the end; whose `exec` is a local bash, and
# fails as the engine's does once the file `stopped` exists; and whose `container inspect` says whether the
# container runs, or, once the file `removed` exists, that there is none.
_FAKE_ENGINE = """here="$(dirname "$0")"
case "$1" in
  run) printf '%s\\n' "$RUN_SAYS"; [ "$RUN_SAYS" = up ] || { echo "$RUN_ERROR" >&2; exec sleep "$RUN_HOLDS"; }; cat >/dev/null;;
  exec) [ ! -e "$here/stopped" ] || { echo "Error response from daemon: container $2 is not running" >&2; exit 1; }
        [ "$2" = -i ] && exec bash --noprofile --norc; exec "$3";;
  container) [ ! -e "$here/removed" ] || { echo "Error: No such container: $4" >&2; exit 1; }
             [ -e "$here/stopped" ] && echo false || echo true;;
esac"""


@pytest.mark.probe("engine faults")
@pytest.mark.parametrize("holds, raised", [("0", r"docker run: no such image"), ("60", r"did not answer within 1 s")])
def test_a_page_container_that_fails_to_start_is_still_the_sessions_to_check(tmp_path, monkeypatch, holds, raised):
    """`docker run` that prints something else than `up`: its error once it has ended (bounded by the engine's
    timeout when it does not end), and the container is in the session's list, whose close checks its removal."""
    from docgen.console.container import Engine, EngineHung, PageContainer

    monkeypatch.setenv("PATH", _docker_on_path(tmp_path, _FAKE_ENGINE)["PATH"])
    monkeypatch.setenv("RUN_SAYS", "nope")
    monkeypatch.setenv("RUN_ERROR", "no such image")
    monkeypatch.setenv("RUN_HOLDS", holds)
    started: list = []
    began = time.monotonic()
    with pytest.raises((RuntimeError, EngineHung), match=raised):
        PageContainer(Engine(1), "any:image", "a-session", started)
    assert time.monotonic() - began < 20 and len(started) == 1


@pytest.mark.probe("engine faults")
def test_a_page_container_is_gone_only_once_the_engine_knows_it_no_more(tmp_path, monkeypatch):
    """Its `docker run` ending is not enough (that command can fail to remove it, or be killed): the engine is
    asked, and only "No such container" counts as removed."""
    from docgen.console.container import Engine, PageContainer

    monkeypatch.setenv("PATH", _docker_on_path(tmp_path, _FAKE_ENGINE)["PATH"])
    monkeypatch.setenv("RUN_SAYS", "up")
    container = PageContainer(Engine(5), "any:image", "a-session")
    assert container.run("echo hi", 5).output == ["hi"]
    assert not container.stopped()   # a process started in it
    (tmp_path / "stopped").touch()
    assert container.stopped()   # none starts, and the engine says it runs no more
    container.close()
    assert not container.gone(5)   # docker run ended, but the engine still lists the container
    (tmp_path / "removed").touch()
    assert container.gone(5)
