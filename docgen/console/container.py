"""The session container: one hardened container per test session, its exec transport, its reset between
pages, and its removal on close, at exit and on SIGTERM/SIGHUP."""

from __future__ import annotations

import atexit
import os
import re
import select
import signal
import socket
import threading
import time
import uuid
from typing import Any

from docgen.console.shell import CONTROL, STDOUT, PersistentShell
from docgen.console.watchdog import OWNER_PID_LABEL, SESSION_LABEL, owner_labels, reap_orphans, watchdog

KEEPALIVE = ["/bin/sh", "-c", "exec sleep infinity"]
# setsid makes bash lead its own process group, so a timeout can kill the command's whole tree.
SHELL_ARGV = ["setsid", "-w", "bash", "--noprofile", "--norc"]
PIDS_LIMIT = 256


class ContainerExecTransport:
    """bash started with the Docker API's exec, spoken to over the attach socket (no TTY, multiplexed:
    stream 1 is the shell's stdout, stream 2 its original stderr, which the shell keeps as fd 9)."""

    def __init__(self, api: Any, container_id: str, argv: list[str] = SHELL_ARGV) -> None:
        self._api = api
        self._container_id = container_id
        self._exec_id = api.exec_create(container_id, argv, stdin=True, stdout=True, stderr=True, tty=False)["Id"]
        self._socket_io = api.exec_start(self._exec_id, socket=True, tty=False)
        self._sock: socket.socket = getattr(self._socket_io, "_sock", self._socket_io)
        self._frames = b""
        self._closed = False

    def send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError:
            pass   # the shell is gone; the next recv reports the end of the stream

    def recv(self, timeout: float) -> tuple[int, bytes]:
        # Frames: 1 byte stream id, 3 zero bytes, 4 bytes big-endian length, then the payload.
        deadline = time.monotonic() + timeout
        while True:
            if len(self._frames) >= 8:
                size = int.from_bytes(self._frames[4:8], "big")
                if len(self._frames) >= 8 + size:
                    stream = CONTROL if self._frames[0] == 2 else STDOUT
                    payload = self._frames[8:8 + size]
                    self._frames = self._frames[8 + size:]
                    if payload:
                        return stream, payload
                    continue
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._sock], [], [], remaining)[0]:
                raise TimeoutError
            try:
                chunk = self._sock.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                return 0, b""
            self._frames += chunk

    def kill_group(self, pgid: int) -> None:
        # a second exec: the first one is busy running the command that has to die
        self._api.exec_start(self._api.exec_create(self._container_id, ["bash", "-c", f"kill -KILL -- -{pgid}"])["Id"])

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._sock.close()
                self._socket_io.close()
            except OSError:
                pass


def hardened_run_options(session_id: str) -> dict[str, Any]:
    """What `containers.run` gets: only the keepalive replaces the image's entrypoint and command;
    the image's environment, working directory and default user stay as a user's `docker run` sees them."""
    return dict(
        entrypoint=KEEPALIVE[:1],
        command=KEEPALIVE[1:],
        detach=True,
        labels={SESSION_LABEL: session_id, **owner_labels()},
        network_mode="none",
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        read_only=True,
        tmpfs={"/tmp": "rw,size=64m"},
        mem_limit=os.environ.get("DOCGEN_CONSOLE_MEMORY", "2g"),
        pids_limit=PIDS_LIMIT,
        init=True,
    )


# Between pages: end every process but init, the keepalive (init's first child) and this script, then empty
# the writable places, so no page sees what an earlier one left behind.
RESET_SCRIPT = r"""
keep=" 1 $$ $(tr ' ' '\n' < /proc/1/task/1/children | sort -n | head -n 1) "
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  case "$keep" in *" $p "*) ;; *) kill -KILL "$p" 2>/dev/null ;; esac
done
for dir in /tmp /dev/shm; do
  [ -d "$dir" ] || continue
  chmod -R u+rwX "$dir" 2>/dev/null
  find "$dir" -mindepth 1 -delete 2>/dev/null
  [ -z "$(ls -A "$dir" 2>/dev/null)" ] || exit 3
done
echo reset-done
"""


class SessionContainer:
    """The one hardened container of a test session; removed on close, at exit and on SIGTERM/SIGHUP.
    Before starting, it removes containers that earlier sessions on this host left behind."""

    def __init__(self, client: Any, image: str) -> None:
        self.client = client
        self.image = image
        self.session_id = os.environ.get("DOCGEN_CONSOLE_SESSION_ID") or uuid.uuid4().hex
        self._lock = threading.RLock()   # re-entered when SIGTERM arrives during remove()
        self.reaped = reap_orphans(client)
        options = hardened_run_options(self.session_id)
        self.memory_limit = options["mem_limit"]
        self.container = None
        try:
            self.container = client.containers.run(image, **options)
            _register_cleanup(self)
            watchdog().watch_container(self.container.id)   # removed even if this process is SIGKILLed
        except BaseException:
            # interrupted (Ctrl-C) after the engine made the container but before it was registered
            self._remove_own_by_label()
            raise

    @property
    def id(self) -> str:
        return self.container.id

    def shell(self) -> PersistentShell:
        return PersistentShell(ContainerExecTransport(self.client.api, self.container.id))

    def state(self) -> dict:
        """The engine's view of the container (Status, ExitCode, OOMKilled...); {} when it is gone."""
        try:
            return self.client.api.inspect_container(self.container.id)["State"]
        except Exception:
            return {}

    def trouble(self) -> str | None:
        """Why this container cannot run another shell (None: it can)."""
        state = self.state()
        if not state.get("Running"):
            return describe_stopped(state)
        try:
            self.client.api.exec_start(self.client.api.exec_create(self.container.id, ["true"])["Id"])
        except Exception as exc:
            return f"the engine could not start a process in the container ({_short(exc)}); the block may have used up its pids limit"
        return None

    def oom_kills(self) -> int | None:
        """How many processes the kernel killed for memory in this container so far (None: unknown)."""
        try:
            out = self.client.api.exec_start(self.client.api.exec_create(
                self.container.id, ["sh", "-c", "cat /sys/fs/cgroup/memory.events "   # cgroup v2, then v1
                                    "/sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"])["Id"])
        except Exception:
            return None
        found = re.search(rb"^oom_kill (\d+)", out, re.M)
        return int(found[1]) if found else None

    def reset(self, timeout: float = 30.0) -> str | None:
        """Kill every process a page left and empty /tmp; None when done, else why it could not be."""
        if not self.state().get("Running"):
            return describe_stopped(self.state())
        try:
            exec_id = self.client.api.exec_create(self.container.id, ["bash", "-c", RESET_SCRIPT])["Id"]
            out = self.client.api.exec_start(exec_id)
        except Exception as exc:
            return f"the engine could not start a process in it ({_short(exc)}); the pids limit may be reached"
        if b"reset-done" not in out:
            return f"its processes and /tmp could not be reset ({out.decode(errors='replace').strip()[-200:]})"
        return None

    def remove(self) -> None:
        with self._lock:
            container = self.container
            if container is None:
                return
            try:
                container.remove(force=True)
            except Exception as exc:   # already gone is fine; anything else shows up in leftovers()
                if getattr(exc, "status_code", None) not in (404, 409):
                    raise
            # only now: a Ctrl-C during the call above leaves it registered, and the exit handler retries
            self.container = None
            _live.discard(self)
            watchdog().forget_container(container.id)

    def _remove_own_by_label(self, attempts: int = 5) -> None:
        # The engine may still be creating a container whose request was cut short, so look a few times
        # (about a second, and only on this path); whatever appears later, the next session reaps.
        mine = {"label": [f"{SESSION_LABEL}={self.session_id}", f"{OWNER_PID_LABEL}={os.getpid()}"]}
        for attempt in range(attempts):
            try:
                found = self.client.containers.list(all=True, filters=mine)
                for container in found:
                    container.remove(force=True)
                if found:
                    return
            except Exception:
                pass
            time.sleep(0.2)

    def leftovers(self) -> list[str]:
        """Ids of this process's containers still carrying this session's label (none after remove). The
        owner filter keeps a concurrent session that was given the same session id out of it."""
        mine = [f"{SESSION_LABEL}={self.session_id}", f"{OWNER_PID_LABEL}={os.getpid()}"]
        found = self.client.containers.list(all=True, filters={"label": mine})
        return [c.id for c in found]


def describe_stopped(state: dict) -> str:
    if not state:
        return "the container is gone"
    why = f"the container stopped (exit code {state.get('ExitCode')}"
    if state.get("OOMKilled"):
        why += ", killed for running out of memory"
    return why + "; a block that ends PID 1, e.g. `kill 1`, stops it)"


def _short(exc: Exception) -> str:
    text = getattr(exc, "explanation", None) or str(exc)
    return str(text).strip().splitlines()[0][:200] if str(text).strip() else type(exc).__name__


_live: set[SessionContainer] = set()
_handlers_installed = False


def _remove_all() -> None:
    for container in list(_live):
        try:
            container.remove()
        except Exception:
            pass


def _on_signal(signum: int, frame: Any) -> None:
    _remove_all()
    previous = _previous_handlers.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    else:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


_previous_handlers: dict[int, Any] = {}


def _register_cleanup(container: SessionContainer) -> None:
    global _handlers_installed
    _live.add(container)
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_remove_all)
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            _previous_handlers[signum] = signal.signal(signum, _on_signal)


