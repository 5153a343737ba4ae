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

from docgen.console.engine import Engine, EngineHung, as_engine
from docgen.console.shell import CONTROL, STDOUT, PersistentShell
from docgen.console.watchdog import LEASE_LABEL, SESSION_LABEL, Lease, reap_orphans, watchdog

KEEPALIVE = ["/bin/sh", "-c", "exec sleep infinity"]
# setsid makes bash lead its own process group, so a timeout can kill the command's whole tree.
SHELL_ARGV = ["setsid", "-w", "bash", "--noprofile", "--norc"]
PIDS_LIMIT = 256


class ContainerExecTransport:
    """bash started with the Docker API's exec, spoken to over the attach socket (no TTY, multiplexed:
    stream 1 is the shell's stdout, stream 2 its original stderr, which the shell keeps as fd 9)."""

    def __init__(self, engine: Engine, container_id: str, argv: list[str] = SHELL_ARGV) -> None:
        self._engine = engine
        self._container_id = container_id
        api = engine.api
        self._exec_id = engine.call("create a shell in the session container", api.exec_create, container_id, argv,
                                    stdin=True, stdout=True, stderr=True, tty=False)["Id"]
        self._socket_io = engine.call("start a shell in the session container", api.exec_start, self._exec_id,
                                      socket=True, tty=False)
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
        api, call = self._engine.api, self._engine.call
        exec_id = call("create a kill in the session container", api.exec_create, self._container_id,
                       ["bash", "-c", f"kill -KILL -- -{pgid}"])["Id"]
        call("run a kill in the session container", api.exec_start, exec_id)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._sock.close()
                self._socket_io.close()
            except OSError:
                pass


def hardened_run_options(session_id: str, lease: Lease | None = None) -> dict[str, Any]:
    """What `containers.run` gets: only the keepalive replaces the image's entrypoint and command;
    the image's environment, working directory and default user stay as a user's `docker run` sees them."""
    return dict(
        entrypoint=KEEPALIVE[:1],
        command=KEEPALIVE[1:],
        detach=True,
        labels={SESSION_LABEL: session_id, **(lease.labels() if lease is not None else {})},
        network_mode="none",
        ipc_mode="private",      # its own IPC namespace, whatever the daemon's default; the reset empties it
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        read_only=True,
        tmpfs={"/tmp": "rw,size=64m"},
        mem_limit=os.environ.get("DOCGEN_CONSOLE_MEMORY", "2g"),
        pids_limit=PIDS_LIMIT,
        init=True,
    )


# Between pages: end every process but init, the keepalive (init's first child) and this script, empty the
# writable places and remove System V IPC objects (message queues, semaphores, shared memory; POSIX queues
# are files in /dev/mqueue), so no page sees what an earlier one left behind. Anything left is exit 3.
RESET_SCRIPT = r"""
keep=" 1 $$ $(tr ' ' '\n' < /proc/1/task/1/children | sort -n | head -n 1) "
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  case "$keep" in *" $p "*) ;; *) kill -KILL "$p" 2>/dev/null ;; esac
done
for dir in /tmp /dev/shm /dev/mqueue; do
  [ -d "$dir" ] && [ -w "$dir" ] || continue
  chmod -R u+rwX "$dir" 2>/dev/null
  find "$dir" -mindepth 1 -delete 2>/dev/null
  [ -z "$(ls -A "$dir" 2>/dev/null)" ] || { echo "$dir is not empty"; exit 3; }
done
command -v ipcrm >/dev/null 2>&1 && ipcrm --all 2>/dev/null
for table in msg sem shm; do
  [ ! -r /proc/sysvipc/$table ] || [ "$(wc -l < /proc/sysvipc/$table)" -le 1 ] || { echo "System V $table objects remain"; exit 3; }
done
echo reset-done
"""


class SessionContainer:
    """The one hardened container of a test session; removed on close, at exit and on SIGTERM/SIGHUP.
    Before starting, it removes session containers whose lease has expired (their owners are dead).
    `image` is best an image ID: a tag moved during the run then cannot change what a fresh container runs."""

    def __init__(self, client: Any, image: str) -> None:
        self.engine = as_engine(client)
        self.client = self.engine.client
        self.image = image
        self.session_id = os.environ.get("DOCGEN_CONSOLE_SESSION_ID") or uuid.uuid4().hex
        self._lock = threading.RLock()   # re-entered when SIGTERM arrives during remove()
        self.reaped = reap_orphans(self.engine)
        self.lease = Lease()             # random per container: the owner no PID namespace can confuse
        options = hardened_run_options(self.session_id, self.lease)
        self.memory_limit = options["mem_limit"]
        self.container = None
        try:
            self.container = self.engine.call("start the session container", self.client.containers.run, image, **options)
            _register_cleanup(self)
            watchdog().watch_container(self.container.id)   # removed even if this process is SIGKILLed
            watchdog().watch_file(self.lease.path)
        except BaseException:
            # interrupted (Ctrl-C) after the engine made the container but before it was registered
            # The lease stays locked (and its file stays) until this process ends: a container the engine
            # finishes creating after this gives up is then an orphan the next session's reaper removes.
            self._remove_own_by_label()
            raise

    @property
    def id(self) -> str:
        return self.container.id

    def shell(self) -> PersistentShell:
        return PersistentShell(ContainerExecTransport(self.engine, self.container.id))

    def state(self) -> dict:
        """The engine's view of the container (Status, ExitCode, OOMKilled...); {} when the engine no longer
        knows it. EngineHung when the engine does not answer."""
        try:
            return self.engine.call("inspect the session container", self.client.api.inspect_container,
                                    self.container.id)["State"]
        except EngineHung:
            raise
        except Exception as exc:
            if getattr(exc, "status_code", None) == 404:
                return {}
            return {"Unknown": _short(exc)}

    def trouble(self) -> str | None:
        """Why this container cannot run another shell (None: it can). EngineHung when the engine does not
        answer."""
        state = self.state()
        if not state.get("Running"):
            return describe_stopped(state)
        try:
            self._exec(["true"], "start a probe in the session container")
        except EngineHung:
            raise
        except Exception as exc:
            return f"the engine could not start a process in the container ({_short(exc)}); the block may have used up its pids limit"
        return None

    def _exec(self, argv: list[str], what: str) -> bytes:
        api = self.client.api
        exec_id = self.engine.call(what, api.exec_create, self.container.id, argv)["Id"]
        return self.engine.call(what, api.exec_start, exec_id)

    def oom_kills(self) -> int | None:
        """How many processes the kernel killed for memory in this container so far (None: unknown)."""
        try:
            out = self._exec(["sh", "-c", "cat /sys/fs/cgroup/memory.events "   # cgroup v2, then v1
                              "/sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"], "read the memory events")
        except Exception:
            return None
        found = re.search(rb"^oom_kill (\d+)", out, re.M)
        return int(found[1]) if found else None

    def reset(self, timeout: float = 30.0) -> str | None:
        """Kill every process a page left, empty /tmp and remove IPC objects; None when done, else why it
        could not be. EngineHung when the engine does not answer."""
        state = self.state()
        if not state.get("Running"):
            return describe_stopped(state)
        try:
            out = self._exec(["bash", "-c", RESET_SCRIPT], "reset the session container")
        except EngineHung:
            raise
        except Exception as exc:
            return f"the engine could not start a process in it ({_short(exc)}); the pids limit may be reached"
        if b"reset-done" not in out:
            return f"its processes, /tmp and IPC objects could not be reset ({out.decode(errors='replace').strip()[-200:]})"
        return None

    def remove(self) -> None:
        with self._lock:
            container = self.container
            if container is None:
                return
            try:
                self.engine.call("remove the session container", container.remove, force=True)
            except EngineHung:
                raise    # still registered: the exit handler and the watchdog try again
            except Exception as exc:   # already gone is fine; anything else shows up in leftovers()
                if getattr(exc, "status_code", None) not in (404, 409):
                    raise
            # only now: a Ctrl-C during the call above leaves it registered, and the exit handler retries
            self.container = None
            _live.discard(self)
            self.lease.release()
            watchdog().forget_container(container.id)
            watchdog().forget_file(self.lease.path)

    def _remove_own_by_label(self, attempts: int = 5) -> None:
        # The engine may still be creating a container whose request was cut short, so look a few times
        # (about a second, and only on this path); whatever appears later, the next session reaps once
        # this process (the lease's holder) is gone.
        mine = {"label": [f"{SESSION_LABEL}={self.session_id}", f"{LEASE_LABEL}={self.lease.id}"]}
        for attempt in range(attempts):
            try:
                found = self.engine.call("list this session's containers", self.client.containers.list, all=True, filters=mine,
                                         ignore_removed=True)
                for container in found:
                    self.engine.call("remove the session container", container.remove, force=True)
                if found:
                    return
            except EngineHung:
                return
            except Exception:
                pass
            time.sleep(0.2)

    def leftovers(self) -> list[str]:
        """Ids of this container's lease still on the engine (none after remove). The lease label keeps a
        concurrent session that was given the same session id out of it."""
        mine = [f"{SESSION_LABEL}={self.session_id}", f"{LEASE_LABEL}={self.lease.id}"]
        found = self.engine.call("list this session's containers", self.client.containers.list, all=True,
                                 filters={"label": mine}, ignore_removed=True)
        return [c.id for c in found]


def describe_stopped(state: dict) -> str:
    if not state:
        return "the container is gone (the engine no longer knows it: it was removed from outside this session)"
    if "Unknown" in state:
        return f"the engine could not say what state the container is in ({state['Unknown']})"
    why = f"the container stopped (exit code {state.get('ExitCode')}"
    if state.get("OOMKilled"):
        why += ", killed for running out of memory"
    return why + "; a block that ends PID 1, e.g. `kill 1`, stops it, and so does a `docker stop` from outside)"


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


