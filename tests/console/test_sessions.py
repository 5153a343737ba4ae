"""Page containers on a shared engine: each ends with the process that holds its lifeline, however that
process ends, and no session touches a container that is not its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import docker
import pytest

from docgen.console.container import SESSION_LABEL
from tests.console.docrun import (at_once, read_outcomes, run_page, session_env, start_page, wait_for_container,
                                  wait_until_started)

OWNER = {"owner": "console-tests"}     # every container these tests create themselves carries it


def _containers(docker_client, session_id: str):
    return docker_client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={session_id}"})


def _removed(docker_client, container_id: str, seconds: float = 60) -> bool:
    """Waits for the engine to remove the container (an event the engine reports), up to `seconds`."""
    try:
        docker_client.api.wait(container_id, timeout=seconds, condition="removed")
    except docker.errors.NotFound:
        return True
    except Exception:
        return False
    return True


# The block ignores every signal a terminal or `docker stop` would send, and never ends by itself.
STUBBORN_PAGE = textwrap.dedent(
    """\
    # Stubborn

    <!-- console: timeout=300 -->
    ```console
    $ touch /tmp/ready; bash -c "trap '' TERM INT HUP QUIT; sleep infinity & wait"
    ```
    """
)


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_a_session_that_dies_in_any_way_takes_its_container_with_it(tmp_path, docker_client, runner_image):
    """SIGKILL, SIGTERM and SIGINT, each to a session of its own; the three sessions run at once."""
    signals = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
    sessions = [session_env(runner_image) for _ in signals]

    def die(signum: int, session_id: str, env: dict[str, str]) -> None:
        name = signal.Signals(signum).name
        child = start_page(tmp_path / name, STUBBORN_PAGE, env=env)
        try:
            container = wait_for_container(docker_client, session_id, child)
            wait_until_started(container, child)
            child.send_signal(signum)
            child.wait(timeout=60)
            assert _removed(docker_client, container.id), f"{name}: the container outlived its session"
        finally:
            child.kill()

    try:
        at_once(die, signals, *zip(*sessions))
    finally:
        for session_id, _ in sessions:
            for leftover in _containers(docker_client, session_id):
                leftover.remove(force=True)


# A session as a CI job in a container would run it: in its own PID namespace (it is PID 1 there, as the
# other one is in its own), same host name, same kernel, same engine.
NAMESPACED_SESSION = textwrap.dedent(
    """\
    import os, sys
    from docgen.console.container import Engine, PageContainer
    container = PageContainer(Engine(60), sys.argv[1], sys.argv[2])
    print(os.getpid(), container.id, flush=True)
    sys.stdin.read()
    container.close()
    """
)


def _namespaced_session(runner_image: str, session_id: str) -> tuple[subprocess.Popen, int, str]:
    child = subprocess.Popen(
        ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", sys.executable, "-c", NAMESPACED_SESSION,
         runner_image, session_id],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    line = child.stdout.readline().split()
    assert len(line) == 2, f"the namespaced session did not start (exit {child.poll()})"
    return child, int(line[0]), line[1]


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_sessions_in_two_pid_namespaces_keep_their_containers_and_a_killed_ones_goes(docker_client, runner_image):
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode != 0:
        pytest.skip("this machine lets no process make a PID namespace (unshare --pid needs privileges)")
    ids = [f"docgen-test-ns-{uuid.uuid4().hex}" for _ in range(2)]
    children = []
    try:
        first, first_pid, first_container = _namespaced_session(runner_image, ids[0])
        children.append(first)
        second, second_pid, second_container = _namespaced_session(runner_image, ids[1])
        children.append(second)
        assert first_pid == second_pid == 1        # what a PID-and-host-name rule would confuse
        # SIGKILL to the whole namespace: no clean-up runs anywhere in it
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(timeout=30)
        assert _removed(docker_client, second_container), "the killed session's container was not removed"
        assert docker_client.containers.get(first_container).status == "running"
        first.stdin.close()
        assert first.wait(timeout=60) == 0
        assert _removed(docker_client, first_container)
    finally:
        for child in children:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                pass
        for session_id in ids:
            for container in _containers(docker_client, session_id):
                container.remove(force=True)


# The first block waits for the test's word (a file the test makes in its container), not for a time.
WAITING_PAGE = textwrap.dedent(
    """\
    # Waits

    <!-- console: timeout=300 -->
    ```console
    $ touch /tmp/ready; until [ -e /tmp/go ]; do sleep 0.02; done; echo went
    went
    ```

    ## After

    ```console
    $ echo after
    after
    ```
    """
)

QUICK_PAGE = "# Quick\n\n```console\n$ echo quick\nquick\n```\n"


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_two_sessions_on_one_engine_both_pass(tmp_path, docker_client, runner_image):
    (first_id, first_env), (second_id, second_env) = session_env(runner_image), session_env(runner_image)
    first = start_page(tmp_path / "first", WAITING_PAGE, env=first_env)
    try:
        first_container = wait_for_container(docker_client, first_id, first)
        wait_until_started(first_container, first)
        # the second session starts, runs and ends while the first one's block is still running
        outcomes, proc = run_page(tmp_path / "second", QUICK_PAGE, env=second_env)
        assert outcomes["page.md::quick::1"].outcome == "passed", proc.stdout
        assert first.poll() is None, "the first session should still be running"
        first_container.reload()
        assert first_container.status == "running"
        assert first_container.exec_run(["touch", "/tmp/go"]).exit_code == 0
        output, _ = first.communicate(timeout=300)
        assert first.returncode == 0, output
        first_outcomes = read_outcomes(tmp_path / "first")
        assert {k: v.outcome for k, v in first_outcomes.items()} == {"page.md::waits::1": "passed", "page.md::after::1": "passed"}
        assert _containers(docker_client, first_id) == [] and _containers(docker_client, second_id) == []
    finally:
        first.kill()


def _at(moment, docker_client, session_id: str, child: subprocess.Popen) -> None:
    """Returns at the moment named: seconds after the start, when the engine first lists the session's
    container (it is being created, attached or started), that plus 0.1 s, or once the block runs."""
    if isinstance(moment, float):
        time.sleep(moment)
        return
    container = wait_for_container(docker_client, session_id, child)
    if moment == "listed+0.1":
        time.sleep(0.1)
    elif moment == "running":
        wait_until_started(container, child)


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_sigint_at_any_moment_of_start_up_leaves_nothing(tmp_path, docker_client, runner_image):
    # The probe that found the leak sent SIGINT within the first second. The `docker run` that creates,
    # attaches and starts the container runs in a session of its own, out of the signal's reach, and ends with
    # the pipe the process holds, so an interrupted start-up either made no container or made one whose
    # lifeline ends with the process; no other session is needed. The moments aim at that window; the five
    # sessions run at once, each interrupted at its own moment.
    moments = [0.3, 0.9, "listed", "listed+0.1", "running"]
    sessions = [session_env(runner_image, PYTHONFAULTHANDLER="1") for _ in moments]

    def interrupt(n: int, moment, session_id: str, env: dict[str, str]) -> None:
        child = start_page(tmp_path / f"run{n}", STUBBORN_PAGE, env=env)
        try:
            _at(moment, docker_client, session_id, child)
            # CPython may drop a SIGINT that lands in its import machinery at start-up ("Exception ignored
            # in ... _get_module_lock ... KeyboardInterrupt"); a reader then presses Ctrl-C again
            for _ in range(3):
                child.send_signal(signal.SIGINT)
                try:
                    child.communicate(timeout=20)
                    return
                except subprocess.TimeoutExpired:
                    continue
            child.send_signal(signal.SIGABRT)   # the faulthandler prints where it stands
            raise AssertionError(f"SIGINT at {moment} did not end the session:\n{child.communicate()[0][-6000:]}")
        finally:
            child.kill()

    try:
        at_once(interrupt, range(len(moments)), moments, *zip(*sessions))
        left = {s: [c.id for c in _containers(docker_client, s)] for s, _ in sessions}
        assert all(_removed(docker_client, c) for ids in left.values() for c in ids)
        assert [s for s, _ in sessions if _containers(docker_client, s)] == []
    finally:
        for session_id, _ in sessions:
            for container in _containers(docker_client, session_id):
                container.remove(force=True)


# --- containers that are not a session's own ------------------------------------------------------

@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_a_session_leaves_containers_that_are_not_its_own_alone_whatever_their_labels(tmp_path, docker_client, runner_image):
    """Another host's session, and sessions of an older docgen with a malformed or an expired lease label:
    a session runs beside them and touches none."""
    labels = {
        "other-session": {SESSION_LABEL: "another-host"},
        "malformed-lease": {SESSION_LABEL: "old", f"{SESSION_LABEL}.lease": "../../etc/passwd",
                            f"{SESSION_LABEL}.lease-expires": "soon"},
        "expired-lease": {SESSION_LABEL: "old", f"{SESSION_LABEL}.lease": uuid.uuid4().hex,
                          f"{SESSION_LABEL}.lease-expires": "1"},
    }
    made = []
    try:
        for name, extra in labels.items():   # one runs, the others never started
            made.append(docker_client.containers.create(
                runner_image, ["sleep", "infinity"], entrypoint=[], network_mode="none",
                labels={**OWNER, **extra}, name=f"console-test-{name}-{uuid.uuid4().hex[:6]}"))
        made[0].start()
        _, env = session_env(runner_image)
        outcomes, proc = run_page(tmp_path, QUICK_PAGE, env=env)
        assert outcomes["page.md::quick::1"].outcome == "passed", proc.stdout
        for container in made:
            container.reload()
        assert [c.status for c in made] == ["running", "created", "created"]
    finally:
        for container in made:
            container.remove(force=True)
