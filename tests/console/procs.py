"""Host processes seen from outside, by their command line (a block's own PIDs may be namespaced), and a
wait for their end on the kernel's word (a pidfd turns readable when its process exits), not a sleep."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):   # gone before the open, or between the open and the read
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"   # a zombie is dead, just not reaped


def processes(cmdline: bytes) -> list[int]:
    """Host PIDs of live processes whose command line is exactly this (NUL-separated, as /proc shows it)."""
    found = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if path.read_bytes() == cmdline and alive(int(path.parent.name)):
                found.append(int(path.parent.name))
        except (OSError, ValueError):
            continue
    return found


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def wait_gone(pids: list[int], net: float = 120) -> list[int]:
    """Waits until every one of these processes has exited; returns those still alive when `net` seconds
    ran out first (a safety net for a hang, not the wait itself)."""
    waiting: dict[int, int] = {}
    try:
        for pid in pids:
            try:
                waiting[os.pidfd_open(pid)] = pid
            except ProcessLookupError:
                continue   # already gone (and reaped)
        poller = select.poll()
        for fd in waiting:
            poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + net
        pending = set(waiting)
        while pending and (left := deadline - time.monotonic()) > 0:
            for fd, _ in poller.poll(left * 1000):
                poller.unregister(fd)
                pending.discard(fd)
        return [waiting[fd] for fd in pending if alive(waiting[fd])]
    finally:
        for fd in waiting:
            os.close(fd)


def wait_for(condition, net: float = 120, what: str = "the condition") -> None:
    """Until `condition()` is true, for a state no process exit or file event announces (a listing in /proc);
    `net` is a safety net for a hang, not a guess at how long it takes."""
    deadline = time.monotonic() + net
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen in {net} s"
        time.sleep(0.05)
