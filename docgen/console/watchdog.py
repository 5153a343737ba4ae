"""The watchdog and the reaper: nothing a console session starts outlives it.

The watchdog is a separate process that kills the session's process groups, removes its folders, lease
files and containers when this process ends, however it ends. The reaper removes the session containers
that a dead session left behind, judged by the lease every session container carries (see Lease).
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from docgen.console.engine import EngineHung, as_engine

SESSION_LABEL = "org.nmp-rl-base.docs-session"


# A separate process that outlives this one: it reads registrations on stdin and, when the pipe ends (this
# process exited, however it exited, SIGKILL included), kills the registered process groups, removes the
# registered folders and the registered session containers. Only this process holds the pipe's write end.
WATCHDOG_SOURCE = r"""# docgen-console-watchdog
import os, shutil, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups, folders, files, containers = set(), set(), set(), set()
verbs = {"group": groups.add, "forget-group": groups.discard, "folder": folders.add,
         "forget-folder": folders.discard, "file": files.add, "forget-file": files.discard,
         "container": containers.add, "forget-container": containers.discard}
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
removed_all = True
if containers:
    try:
        import docker
        client = docker.from_env(timeout=20)
        for container in containers:
            try:
                client.api.remove_container(container, force=True)
            except Exception as exc:
                removed_all &= getattr(exc, "status_code", None) == 404
    except Exception:
        removed_all = False   # no engine: the next session's reaper removes them (their leases are unlocked now)
# Lease files only once their containers are gone: a container whose lease file is missing waits out its
# expiry label, while one whose file is here and unlocked is reaped by the next session at once.
for name in files if removed_all else ():
    try:
        os.unlink(name)
    except OSError:
        pass
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

    def watch_file(self, path: Path) -> None:
        self._send(f"file {path}")

    def forget_file(self, path: Path) -> None:
        self._send(f"forget-file {path}", start=False)

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


# --- the lease and the reaper ------------------------------------------------------------------
#
# A session container names its owner by a lease: a random id (a label) and a file of that name in the lease
# folder, which the owning process holds locked with flock(2) for as long as it lives. flock is kernel-wide:
# a process in another PID namespace, or a CI job in a container on the same kernel that shares the folder,
# sees the lock held, whatever PIDs and host names look like from where it stands. The lock goes when the
# owner dies, however it dies. A lease file the reaper cannot find (the owner ran on another host, or in a
# mount namespace with its own /tmp) says nothing; such a container is removed only once the expiry time on
# its labels has passed.

LEASE_LABEL = SESSION_LABEL + ".lease"
EXPIRES_LABEL = SESSION_LABEL + ".lease-expires"   # unix seconds; only for reapers that cannot see the lock
LEASE_DIR_ENV = "DOCGEN_CONSOLE_LEASE_DIR"
LEASE_SECONDS_ENV = "DOCGEN_CONSOLE_LEASE_SECONDS"
DEFAULT_LEASE_SECONDS = 6 * 3600    # far beyond a docs session (minutes); a longer one should not share an engine
_LEASE_NAME = re.compile(r"[0-9a-f]{32}")


def lease_dir() -> Path:
    """The folder of lease files: per user, so no other account can plant or lock one."""
    configured = os.environ.get(LEASE_DIR_ENV)
    return Path(configured) if configured else Path(tempfile.gettempdir()) / f"docgen-console-leases-{os.getuid()}"


def lease_seconds() -> int:
    raw = os.environ.get(LEASE_SECONDS_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_LEASE_SECONDS


class Lease:
    """A lease this process holds: its file in the lease folder, locked until release() or death."""

    def __init__(self) -> None:
        self.id = uuid.uuid4().hex
        self.expires = int(time.time()) + lease_seconds()
        folder = lease_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path = folder / self.id
        # O_CLOEXEC (Python's default): a child the session execs does not inherit the lock
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def labels(self) -> dict[str, str]:
        return {LEASE_LABEL: self.id, EXPIRES_LABEL: str(self.expires)}

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def lease_has_expired(labels: dict[str, str], now: float | None = None) -> bool:
    """True only for a container whose owner is provably gone: its lease file is here and unlocked (the
    owner died), or the file is not here and the expiry time on the labels has passed. A container
    without a well-formed lease is never judged."""
    lease, expires = labels.get(LEASE_LABEL, ""), labels.get(EXPIRES_LABEL, "")
    if not _LEASE_NAME.fullmatch(lease) or not expires.isdigit():
        return False
    try:
        fd = os.open(lease_dir() / lease, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return (time.time() if now is None else now) > int(expires)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False     # held: the owner lives
    finally:
        os.close(fd)     # (also drops the lock taken just now)
    return True


def _forget_lease_file(lease: str) -> None:
    try:
        (lease_dir() / lease).unlink()
    except OSError:
        pass


def reap_orphans(engine: Any) -> list[str]:
    """Remove session containers whose lease has expired; return their ids. Costs one list call when
    nothing is left over. `engine`: an Engine (each call bounded in time) or a plain Docker client."""
    engine = as_engine(engine)
    removed = []
    leased = {"label": [SESSION_LABEL, LEASE_LABEL]}
    # ignore_removed: the SDK inspects each container it lists, and another session may remove its own in between
    for container in engine.call("list the session containers", engine.client.containers.list, all=True,
                                 filters=leased, ignore_removed=True):
        labels = container.labels or {}
        if not lease_has_expired(labels):
            continue
        try:
            engine.call("remove an orphaned session container", container.remove, force=True)
            removed.append(container.id)
        except EngineHung:
            raise
        except Exception as exc:   # another session reaping the same orphan got there first (gone, or
            if getattr(exc, "status_code", None) not in (404, 409):   # its removal already in progress)
                raise
        _forget_lease_file(labels[LEASE_LABEL])
    return removed
