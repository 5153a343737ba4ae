"""Session containers on a shared engine: owners on labels, orphans reaped, live sessions left alone."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from docgen.console.container import KEEPALIVE
from docgen.console.watchdog import (
    OWNER_BOOT_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, OWNER_START_LABEL, SESSION_LABEL,
    owner_is_gone, owner_labels, process_start, reap_orphans,
)
from tests.console.docrun import read_outcomes, run_page, session_env, start_page

OWNER = {"owner": "issue-12"}     # every container these tests create carries it, for a manual clean-up


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_owner_labels_name_this_process():
    labels = owner_labels()
    assert labels[OWNER_PID_LABEL] == str(os.getpid())
    assert labels[OWNER_HOST_LABEL] == socket.gethostname()
    assert labels[OWNER_START_LABEL] == process_start(os.getpid()) and labels[OWNER_START_LABEL].isdigit()
    assert not owner_is_gone(labels)


def test_owner_is_gone_only_when_provably_so():
    live = owner_labels()
    assert owner_is_gone({**live, OWNER_PID_LABEL: str(_dead_pid())}) is True
    later = str(int(live[OWNER_START_LABEL]) + 1)      # the PID now names another process
    assert owner_is_gone({**live, OWNER_START_LABEL: later}) is True
    assert owner_is_gone({**live, OWNER_BOOT_LABEL: "another-boot"}) is True
    assert owner_is_gone({**live, OWNER_HOST_LABEL: "another-host", OWNER_PID_LABEL: str(_dead_pid())}) is False
    assert owner_is_gone({SESSION_LABEL: "x"}) is False                         # no owner recorded: never judged
    assert owner_is_gone({**live, OWNER_PID_LABEL: "12x"}) is False


@pytest.mark.docker
def test_reaper_removes_orphans_only(docker_client, runner_image):
    live = owner_labels()
    cases = {
        "live": live,
        "dead-pid": {**live, OWNER_PID_LABEL: str(_dead_pid())},
        "recycled-pid": {**live, OWNER_START_LABEL: str(int(live[OWNER_START_LABEL]) + 1)},
        "other-host": {**live, OWNER_HOST_LABEL: f"elsewhere-{uuid.uuid4().hex[:6]}", OWNER_PID_LABEL: str(_dead_pid())},
        "no-owner": {},
    }
    made = {}
    try:
        for name, labels in cases.items():
            made[name] = docker_client.containers.create(
                runner_image, entrypoint=KEEPALIVE[:1], command=KEEPALIVE[1:], network_mode="none",
                labels={**OWNER, SESSION_LABEL: f"issue-12-reaper-{name}", **labels}, name=f"issue-12-reaper-{name}-{uuid.uuid4().hex[:6]}",
            )
        removed = set(reap_orphans(docker_client))
        assert removed >= {made["dead-pid"].id, made["recycled-pid"].id}
        assert not removed & {made["live"].id, made["other-host"].id, made["no-owner"].id}
        left = {c.id for c in docker_client.containers.list(all=True, filters={"label": "owner=issue-12"})}
        assert {made["live"].id, made["other-host"].id, made["no-owner"].id} <= left
        assert not {made["dead-pid"].id, made["recycled-pid"].id} & left
    finally:
        for container in made.values():
            try:
                container.remove(force=True)
            except Exception:
                pass


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
