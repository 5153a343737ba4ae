"""Session containers on a shared engine: owners named by leases, orphans reaped, live sessions left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from docgen.console.container import KEEPALIVE
from docgen.console.watchdog import (
    EXPIRES_LABEL, LEASE_DIR_ENV, LEASE_LABEL, SESSION_LABEL, Lease, lease_has_expired, reap_orphans,
)
from tests.console.docrun import read_outcomes, run_page, session_env, start_page

OWNER = {"owner": "issue-12"}     # every container these tests create carries it, for a manual clean-up


LEASE_HOLDER = textwrap.dedent(
    """\
    import sys
    from docgen.console.watchdog import Lease
    lease = Lease()
    print(lease.id, lease.expires, flush=True)
    sys.stdin.read()
    """
)


def _held_lease(tmp_path) -> tuple[subprocess.Popen, dict[str, str]]:
    """A lease held by another process, in the lease folder under tmp_path; and its labels."""
    holder = subprocess.Popen([sys.executable, "-c", LEASE_HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, LEASE_DIR_ENV: str(tmp_path / "leases")})
    lease, expires = holder.stdout.readline().split()
    return holder, {SESSION_LABEL: "x", LEASE_LABEL: lease, EXPIRES_LABEL: expires}


@pytest.mark.probe("container ownership")
def test_a_lease_has_expired_only_once_its_holder_is_dead(tmp_path, monkeypatch):
    monkeypatch.setenv(LEASE_DIR_ENV, str(tmp_path / "leases"))
    holder, labels = _held_lease(tmp_path)
    try:
        assert lease_has_expired(labels) is False
        holder.kill()              # SIGKILL: no clean-up ran, the file stays, the kernel dropped the lock
        holder.wait(timeout=30)
        assert (tmp_path / "leases" / labels[LEASE_LABEL]).exists()
        assert lease_has_expired(labels) is True
    finally:
        holder.kill()


@pytest.mark.probe("container ownership")
def test_a_lease_without_its_file_counts_only_after_its_expiry(tmp_path, monkeypatch):
    monkeypatch.setenv(LEASE_DIR_ENV, str(tmp_path / "leases"))
    now = time.time()
    elsewhere = {LEASE_LABEL: uuid.uuid4().hex, EXPIRES_LABEL: str(int(now) + 60)}   # another host's
    assert lease_has_expired(elsewhere, now) is False
    assert lease_has_expired(elsewhere, now + 61) is True
    assert lease_has_expired({SESSION_LABEL: "x"}, now + 10**9) is False             # no lease: never judged
    assert lease_has_expired({**elsewhere, LEASE_LABEL: "../../etc/passwd"}, now + 61) is False
    assert lease_has_expired({**elsewhere, EXPIRES_LABEL: "soon"}, now + 61) is False


@pytest.mark.probe("container ownership")
def test_a_held_lease_is_locked_and_released_with_its_file(tmp_path, monkeypatch):
    monkeypatch.setenv(LEASE_DIR_ENV, str(tmp_path / "leases"))
    lease = Lease()
    assert lease_has_expired(lease.labels()) is False        # this process holds it (flock is per open file)
    assert oct(lease.path.parent.stat().st_mode & 0o777) == "0o700"
    lease.release()
    assert not lease.path.exists()


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_reaper_removes_containers_of_expired_leases_only(tmp_path, monkeypatch, docker_client, runner_image):
    monkeypatch.setenv(LEASE_DIR_ENV, str(tmp_path / "leases"))
    live_holder, live = _held_lease(tmp_path)
    dead_holder, dead = _held_lease(tmp_path)
    dead_holder.kill()
    dead_holder.wait(timeout=30)
    later = str(int(time.time()) + 3600)
    cases = {
        "live": live,
        "dead": dead,
        "other-host": {LEASE_LABEL: uuid.uuid4().hex, EXPIRES_LABEL: later},
        "other-host-expired": {LEASE_LABEL: uuid.uuid4().hex, EXPIRES_LABEL: str(int(time.time()) - 1)},
        "no-lease": {},
    }
    made = {}
    try:
        for name, labels in cases.items():
            made[name] = docker_client.containers.create(
                runner_image, entrypoint=KEEPALIVE[:1], command=KEEPALIVE[1:], network_mode="none",
                labels={**OWNER, **labels, SESSION_LABEL: f"issue-20-reaper-{name}"}, name=f"issue-20-reaper-{name}-{uuid.uuid4().hex[:6]}",
            )
        removed = set(reap_orphans(docker_client))
        expired = {made["dead"].id, made["other-host-expired"].id}
        kept = {made["live"].id, made["other-host"].id, made["no-lease"].id}
        assert removed >= expired and not removed & kept
        left = {c.id for c in docker_client.containers.list(all=True, filters={"label": f"owner={OWNER['owner']}"})}
        assert kept <= left and not expired & left
        assert not (tmp_path / "leases" / dead[LEASE_LABEL]).exists()    # the reaper also drops the dead lease file
    finally:
        live_holder.kill()
        for container in made.values():
            try:
                container.remove(force=True)
            except Exception:
                pass


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_a_container_removed_while_the_reaper_looks_is_passed_over(tmp_path, monkeypatch, docker_client, runner_image):
    """The Docker SDK lists containers, then inspects each one. A container its own session removes between
    the two (a session on another worker, ending) is gone, not a reason to fail the session starting now.
    The engine, the list and the removal are real; only the moment of the removal is forced."""
    monkeypatch.setenv(LEASE_DIR_ENV, str(tmp_path / "leases"))
    labels = {LEASE_LABEL: uuid.uuid4().hex, EXPIRES_LABEL: str(int(time.time()) + 3600)}   # another host's, live
    vanishing = docker_client.containers.create(
        runner_image, entrypoint=KEEPALIVE[:1], command=KEEPALIVE[1:], network_mode="none",
        labels={**OWNER, **labels, SESSION_LABEL: f"issue-18-vanishing-{uuid.uuid4().hex[:6]}"})
    inspect, removed = docker_client.api.inspect_container, []

    def removed_just_before(container, *args, **kwargs):
        if container == vanishing.id and not removed:
            docker_client.api.remove_container(vanishing.id, force=True)
            removed.append(vanishing.id)
        return inspect(container, *args, **kwargs)

    monkeypatch.setattr(docker_client.api, "inspect_container", removed_just_before)
    try:
        assert vanishing.id not in reap_orphans(docker_client)
        assert removed == [vanishing.id]   # the reaper did look at it
    finally:
        try:
            vanishing.remove(force=True)
        except Exception:
            pass   # gone, as the test made it


# A session as a CI job in a container would run it: in its own PID namespace (it is PID 1 there, as the
# other one is in its own), same host name, same kernel, same engine.
NAMESPACED_SESSION = textwrap.dedent(
    """\
    import os, sys, docker
    from docgen.console.container import SessionContainer
    session = SessionContainer(docker.from_env(timeout=60), sys.argv[1])
    print(os.getpid(), session.id, len(session.reaped), flush=True)
    sys.stdin.read()
    session.remove()
    """
)


def _namespaced_session(runner_image: str, session_id: str) -> tuple[subprocess.Popen, int, str]:
    child = subprocess.Popen(
        ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", sys.executable, "-c", NAMESPACED_SESSION, runner_image],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "DOCGEN_CONSOLE_SESSION_ID": session_id}, start_new_session=True,
    )
    line = child.stdout.readline().split()
    assert len(line) == 3, f"the namespaced session did not start (exit {child.poll()})"
    return child, int(line[0]), line[1]


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_sessions_in_two_pid_namespaces_keep_their_containers_and_a_dead_ones_is_reaped(docker_client, runner_image):
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode != 0:
        pytest.skip("this machine lets no process make a PID namespace (unshare --pid needs privileges)")
    ids = [f"docgen-test-ns-{uuid.uuid4().hex}" for _ in range(3)]
    children = []
    try:
        first, first_pid, first_container = _namespaced_session(runner_image, ids[0])
        children.append(first)
        second, second_pid, second_container = _namespaced_session(runner_image, ids[1])
        children.append(second)
        assert first_pid == second_pid == 1        # what the PID-and-host-name rule confused
        for container_id in (first_container, second_container):
            assert docker_client.containers.get(container_id).status == "running"
        # SIGKILL to the namespace's init ends everything in it, the session's watchdog too: no clean-up runs
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(timeout=30)
        time.sleep(1)
        assert docker_client.containers.get(second_container).status == "running"   # left over
        third, _, third_container = _namespaced_session(runner_image, ids[2])
        children.append(third)
        assert _containers(docker_client, ids[1]) == [], "the dead session's container was not reaped"
        assert docker_client.containers.get(first_container).status == "running"
        assert docker_client.containers.get(third_container).status == "running"
        for child in (first, third):
            child.stdin.close()
            assert child.wait(timeout=60) == 0
        assert _containers(docker_client, ids[0]) == [] and _containers(docker_client, ids[2]) == []
    finally:
        for child in children:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                pass
        for session_id in ids:
            for container in _containers(docker_client, session_id):
                container.remove(force=True)


def _containers(docker_client, session_id: str):
    return docker_client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={session_id}"})


def _wait_for_container(docker_client, session_id: str, child: subprocess.Popen, seconds: float = 120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = _containers(docker_client, session_id)
        if found:
            return found[0]
        assert child.poll() is None, child.stdout.read()
        time.sleep(0.2)
    raise AssertionError("the docs session never started its container")


SLOW_PAGE = textwrap.dedent(
    """\
    # Slow

    <!-- console: timeout=300 -->
    ```console
    $ sleep {seconds}; echo slept
    slept
    ```

    ## After

    ```console
    $ echo after
    after
    ```
    """
)

QUICK_PAGE = "# Quick\n\n```console\n$ echo quick\nquick\n```\n"


def _watchdog_of(pid: int) -> int:
    """The console watchdog a docs session started (a child process running the watchdog source)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and b"docgen-console-watchdog" in cmdline:
            return int(stat.parent.name)
    raise AssertionError(f"process {pid} has no console watchdog")


def _gone(docker_client, session_id: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _containers(docker_client, session_id):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_a_sigkilled_session_has_its_container_removed_by_its_watchdog(tmp_path, docker_client, runner_image):
    session_id, env = session_env(runner_image)
    child = start_page(tmp_path / "killed", SLOW_PAGE.format(seconds=300), env=env)
    try:
        _wait_for_container(docker_client, session_id, child)
        time.sleep(1)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        assert _gone(docker_client, session_id, 60), "the watchdog did not remove the SIGKILLed session's container"
    finally:
        child.kill()
        for leftover in _containers(docker_client, session_id):
            leftover.remove(force=True)


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_a_session_killed_with_its_watchdog_leaves_a_container_the_next_session_removes(tmp_path, docker_client, runner_image):
    (killed_id, killed_env), (next_id, next_env) = session_env(runner_image), session_env(runner_image)
    child = start_page(tmp_path / "killed", SLOW_PAGE.format(seconds=300), env=killed_env)
    try:
        container = _wait_for_container(docker_client, killed_id, child)
        time.sleep(1)                   # let the block's shell start in it
        os.kill(_watchdog_of(child.pid), signal.SIGKILL)   # as `kill -9` of everything would
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        time.sleep(2)
        container.reload()
        assert container.status == "running"          # no clean-up ran: the container is left over
        outcomes, proc = run_page(tmp_path / "next", QUICK_PAGE, env=next_env)
        assert outcomes["page.md::quick::1"].outcome == "passed", proc.stdout
        assert _containers(docker_client, killed_id) == []
        assert _containers(docker_client, next_id) == []
    finally:
        child.kill()
        for leftover in _containers(docker_client, killed_id):
            leftover.remove(force=True)


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_two_sessions_on_one_engine_both_pass(tmp_path, docker_client, runner_image):
    (first_id, first_env), (second_id, second_env) = session_env(runner_image), session_env(runner_image)
    first = start_page(tmp_path / "first", SLOW_PAGE.format(seconds=8), env=first_env)
    try:
        first_container = _wait_for_container(docker_client, first_id, first)
        # the second session starts (and runs its reaper) while the first one's block is still running
        outcomes, proc = run_page(tmp_path / "second", QUICK_PAGE, env=second_env)
        assert outcomes["page.md::quick::1"].outcome == "passed", proc.stdout
        assert first.poll() is None, "the first session should still be running"
        first_container.reload()
        assert first_container.status == "running"
        output, _ = first.communicate(timeout=300)
        assert first.returncode == 0, output
        first_outcomes = read_outcomes(tmp_path / "first")
        assert {k: v.outcome for k, v in first_outcomes.items()} == {"page.md::slow::1": "passed", "page.md::after::1": "passed"}
        assert _containers(docker_client, first_id) == [] and _containers(docker_client, second_id) == []
    finally:
        first.kill()


@pytest.mark.probe("container ownership")
@pytest.mark.docker
def test_sigint_at_any_moment_of_start_up_leaves_nothing_after_the_next_session(tmp_path, docker_client, runner_image):
    # The probe that found the leak sent SIGINT within the first second; sweep that window and beyond. An
    # interrupted start-up removes its container itself; one the engine was still creating when the
    # process exited is an orphan the next session removes.
    delays = [0.3, 0.6, 0.9, 1.2, 1.5, 1.8, 2.4, 3.0]
    sessions = []
    try:
        for n, delay in enumerate(delays):
            session_id, env = session_env(runner_image)
            sessions.append(session_id)
            child = start_page(tmp_path / f"run{n}", SLOW_PAGE.format(seconds=30), env=env)
            try:
                time.sleep(delay)
                child.send_signal(signal.SIGINT)
                child.communicate(timeout=120)
            finally:
                child.kill()
        right_after = [s for s in sessions if _containers(docker_client, s)]
        outcomes, proc = run_page(tmp_path / "next", QUICK_PAGE, env={"NMP_IMAGE": runner_image})
        assert outcomes["page.md::quick::1"].outcome == "passed", proc.stdout
        assert [s for s in sessions if _containers(docker_client, s)] == [], f"left right after SIGINT: {right_after}"
    finally:
        for session_id in sessions:
            for container in _containers(docker_client, session_id):
                container.remove(force=True)
