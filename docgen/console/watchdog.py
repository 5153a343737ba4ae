"""The watchdog and the reaper: nothing a console session starts outlives it.

The watchdog is a separate process that kills the session's process groups, removes its folders and its
container when this process ends, however it ends. The reaper removes the session containers that an
earlier process on this host left behind, judged by the owner labels every session container carries.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

SESSION_LABEL = "org.nmp-rl-base.docs-session"
# Who owns a session container: a later session on the same host removes it only once that process is gone.
OWNER_HOST_LABEL = SESSION_LABEL + ".host"
OWNER_BOOT_LABEL = SESSION_LABEL + ".boot"
OWNER_PID_LABEL = SESSION_LABEL + ".pid"
OWNER_START_LABEL = SESSION_LABEL + ".pid-start"


# A separate process that outlives this one: it reads registrations on stdin and, when the pipe ends (this
# process exited, however it exited, SIGKILL included), kills the registered process groups, removes the
# registered folders and the registered session containers. Only this process holds the pipe's write end.
WATCHDOG_SOURCE = r"""# docgen-console-watchdog
import os, shutil, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups, folders, containers = set(), set(), set()
verbs = {"group": groups.add, "forget-group": groups.discard, "folder": folders.add,
         "forget-folder": folders.discard, "container": containers.add, "forget-container": containers.discard}
for line in sys.stdin.buffer:
    verb, _, arg = line.decode().rstrip("\n").partition(" ")
    verbs.get(verb, lambda a: None)(arg)
for pgid in groups:
    try:
        os.killpg(int(pgid), signal.SIGKILL)
    except OSError:
        pass
for folder in folders:
    shutil.rmtree(folder, ignore_errors=True)
if containers:
    try:
        import docker
        client = docker.from_env(timeout=60)
        for container in containers:
            try:
                client.api.remove_container(container, force=True)
            except Exception:
                pass
    except Exception:
        pass   # no engine: the next session's reaper removes them
"""


class Watchdog:
    def __init__(self) -> None:
        self._lock = threading.RLock()   # re-entered when SIGTERM's clean-up runs during a registration
        self._proc: subprocess.Popen[bytes] | None = None

    def _send(self, line: str, *, start: bool = True) -> None:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                if not start:      # nothing to forget in a watchdog that is not running
                    return
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-c", WATCHDOG_SOURCE], stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                )
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write((line + "\n").encode())
                self._proc.stdin.flush()
            except OSError:
                pass   # it died; the next registration starts another

    def watch_group(self, pgid: int) -> None:
        self._send(f"group {pgid}")

    def forget_group(self, pgid: int) -> None:
        self._send(f"forget-group {pgid}", start=False)

    def watch_container(self, container_id: str) -> None:
        self._send(f"container {container_id}")

    def forget_container(self, container_id: str) -> None:
        self._send(f"forget-container {container_id}", start=False)

    def watch_folder(self, path: Path) -> None:
        self._send(f"folder {path}")

    def forget_folder(self, path: Path) -> None:
        self._send(f"forget-folder {path}", start=False)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None


_watchdog: Watchdog | None = None


def watchdog() -> Watchdog:
    global _watchdog
    if _watchdog is None:
        _watchdog = Watchdog()
    return _watchdog


# --- the reaper ---------------------------------------------------------------------------------

def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def process_start(pid: int) -> str | None:
    """The start time of process `pid` in clock ticks since boot (None: no such process). With the PID it
    names one process: a recycled PID has a later start time."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def owner_labels(pid: int | None = None) -> dict[str, str]:
    pid = os.getpid() if pid is None else pid
    return {
        OWNER_HOST_LABEL: socket.gethostname(),
        OWNER_BOOT_LABEL: _boot_id(),
        OWNER_PID_LABEL: str(pid),
        OWNER_START_LABEL: process_start(pid) or "",
    }


def owner_is_gone(labels: dict[str, str]) -> bool:
    """True only for a container this host can prove is orphaned: its owner ran here (same host name)
    and that process no longer exists (other boot, PID absent, or the PID now names a later process).
    A container without owner labels, or from another host, is never judged."""
    pid, start = labels.get(OWNER_PID_LABEL, ""), labels.get(OWNER_START_LABEL, "")
    if labels.get(OWNER_HOST_LABEL) != socket.gethostname() or not pid.isdigit() or not start:
        return False
    if labels.get(OWNER_BOOT_LABEL) and labels[OWNER_BOOT_LABEL] != _boot_id():
        return True
    return process_start(int(pid)) != start


def reap_orphans(client: Any) -> list[str]:
    """Remove session containers whose owner process is gone; return their ids. Costs one list call
    when nothing is left over."""
    host_filter = f"{OWNER_HOST_LABEL}={socket.gethostname()}"
    removed = []
    for container in client.containers.list(all=True, filters={"label": [SESSION_LABEL, host_filter]}):
        if owner_is_gone(container.labels or {}):
            try:
                container.remove(force=True)
                removed.append(container.id)
            except Exception as exc:   # another session reaping the same orphan got there first (gone, or
                if getattr(exc, "status_code", None) not in (404, 409):   # its removal already in progress)
                    raise
    return removed


