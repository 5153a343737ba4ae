"""Blocks that break their shell or the container: each fails alone, with a message, and what follows runs."""

from __future__ import annotations

import re
import socket
import textwrap
import threading
import time

import pytest

from docgen.console.watchdog import SESSION_LABEL
from tests.console.docrun import run_page, session_env


def _outcomes(outcomes):
    return {k: v.outcome for k, v in outcomes.items()}


KILL_INIT_PAGE = textwrap.dedent(
    """\
    # Before

    ```console
    $ echo kept > /tmp/mark; cat /tmp/mark
    kept
    ```

    ## Kill init

    ```console
    $ kill 1; sleep 20
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
def test_killing_pid_1_fails_that_block_and_a_fresh_container_runs_the_rest(tmp_path, runner_image, docker_client):
    session_id, env = session_env(runner_image)
    outcomes, proc = run_page(tmp_path, KILL_INIT_PAGE, env=env)
    assert _outcomes(outcomes) == {"page.md::before::1": "passed", "page.md::kill-init::1": "failed",
                                   "page.md::after::1": "passed"}, proc.stdout
    message = outcomes["page.md::kill-init::1"].message
    assert "the container stopped" in message and "a fresh session container runs the blocks that follow" in message
    assert "Traceback" not in proc.stdout
    # the engine's answer to removing a container twice; not any "409" (pytest's temporary folders count up)
    assert not re.search(r"\b409 Client Error|\bConflict\b", proc.stdout), proc.stdout
    assert docker_client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={session_id}"}) == []


FORK_BOMB_PAGE = textwrap.dedent(
    """\
    # Bomb

    <!-- console: timeout=8 -->
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
    assert "timed out after 8 s" in message
    assert "fresh session container" in message or "continues in a fresh one" in message
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
    assert "closed the shell's standard output" in message and "continues in a fresh one" in message


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


@pytest.mark.probe("engine faults")
def test_a_hung_engine_fails_each_block_in_bounded_time_and_says_so(tmp_path):
    engine = SilentEngine(tmp_path / "engine.sock")
    try:
        started = time.monotonic()
        outcomes, proc = run_page(tmp_path / "page", HUNG_PAGE, env={
            "DOCKER_HOST": f"unix://{engine.path}", "DOCGEN_CONSOLE_ENGINE_TIMEOUT": "3", "NMP_IMAGE": "any:image"})
        elapsed = time.monotonic() - started
    finally:
        engine.close()
    assert _outcomes(outcomes) == {f"page.md::{name}::1": "failed" for name in ("first", "second", "third")}, proc.stdout
    for outcome in outcomes.values():
        assert "the Docker engine did not answer within 3 s" in outcome.message, outcome.message
        assert "gone" not in outcome.message and "fresh session container" not in outcome.message
    assert engine.accepted == 1          # one call waited; the blocks after it failed without asking again
    # one 3 s wait plus a child pytest's start (a few seconds on a loaded machine), not 3 s per block or call
    assert elapsed < 3 + 20, elapsed
    print(f"hung engine: 3 blocks failed in {elapsed:.1f} s (engine timeout 3 s)")


@pytest.mark.probe("engine faults")
def test_one_timed_out_engine_call_fails_every_later_call_at_once_and_other_errors_pass_through():
    import requests

    from docgen.console.engine import Engine, EngineHung

    class Client:
        class api:   # noqa: N801 - the shape of docker's client.api
            timeout = 7

    calls = []

    def hang(*args, **kwargs):
        calls.append(args)
        raise requests.exceptions.ReadTimeout("UnixHTTPConnectionPool(host='localhost', port=None): Read timed out.")

    engine = Engine(Client())
    with pytest.raises(EngineHung, match=r"did not answer within 7 s \(to inspect the session container\)"):
        engine.call("inspect the session container", hang, "id")
    with pytest.raises(EngineHung, match="within 7 s"):
        engine.call("remove the session container", hang, "id")
    assert calls == [("id",)]

    def refuse():
        raise ValueError("no such container")

    other = Engine(Client())
    with pytest.raises(ValueError):
        other.call("inspect the session container", refuse)
    assert other.hung is None
