"""A page's shell in a hardened container that lives only as long as this process holds its lifeline, and
every call to the Docker engine bounded in time.

The container's PID 1 is `cat` reading the container's standard input, which is attached to this
process's connection to the engine. cat has no signal handler, so nothing inside the container can signal
it; it ends at end-of-file, and the kernel then ends every other process in the container. End-of-file
comes when the page's shell is closed, and when this process dies in any way, SIGKILL included: the
engine closes the input when the connection drops (StdinOnce) and removes the stopped container
(auto-remove). No session, lease or reaper cleans up after another.
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import threading
from typing import Any, Callable

from docgen.console.shell import CONTROL, STDOUT, PersistentShell

SESSION_LABEL = "org.nmp-rl-base.docs-session"
ENGINE_TIMEOUT_ENV = "DOCGEN_CONSOLE_ENGINE_TIMEOUT"
PIDS_LIMIT = 256
# SIGCHLD ignored where env can (coreutils 8.31 and later): the kernel reaps the orphans a block leaves
LIFELINE = ("env --ignore-signal=CHLD true 2>/dev/null && exec env --ignore-signal=CHLD cat >/dev/null; "
            "exec cat >/dev/null")


def engine_timeout() -> float:
    """Seconds one engine call may take (DOCGEN_CONSOLE_ENGINE_TIMEOUT, else 20)."""
    try:
        value = float(os.environ.get(ENGINE_TIMEOUT_ENV, ""))
    except ValueError:
        value = 0
    return value if value > 0 else 20.0


class EngineHung(Exception):
    """The engine did not answer a call within the client's timeout."""


def timed_out(exc: BaseException | None) -> bool:
    for _ in range(10):   # along the cause chain of requests' and urllib3's wrappers
        if exc is None:
            return False
        if isinstance(exc, (TimeoutError, socket.timeout)) or "Timeout" in type(exc).__name__ or "timed out" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def hung_message(what: str, seconds: float | None) -> str:
    return (f"the Docker engine did not answer within {seconds:g} s (to {what}); no further engine call is made "
            f"in this session (set {ENGINE_TIMEOUT_ENV} to wait longer)")


class Engine:
    """A Docker client and whether its engine still answers: the first call that times out marks it hung,
    and every later call fails at once instead of waiting out its own timeout."""

    def __init__(self, client: Any) -> None:
        self.client, self.api = client, client.api
        self.hung: str | None = None
        timeout = getattr(client.api, "timeout", None)
        self.timeout = float(timeout) if isinstance(timeout, (int, float)) else engine_timeout()

    def call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.hung is not None:
            raise EngineHung(self.hung)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not timed_out(exc):
                raise
            self.hung = hung_message(what, self.timeout)
            raise EngineHung(self.hung) from None


class _HeldBack:
    """SIGINT, SIGTERM and SIGHUP held back (main thread only) while the engine creates, attaches and starts
    a container, then delivered: no interruption leaves a container this process does not know of."""

    def __enter__(self) -> None:
        self.caught: list[int] = []
        self.previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                self.previous[signum] = signal.signal(signum, lambda n, _: self.caught.append(n))

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if self.caught:
            signal.raise_signal(self.caught[0])


class PageContainer:
    """One hardened container for one page's shell. Only the lifeline replaces the image's entrypoint and
    command: its environment, working directory and default user stay as a user's `docker run` sees them."""

    def __init__(self, engine: Engine, image: str, session_id: str) -> None:
        self.engine, api = engine, engine.api
        self.memory_limit = os.environ.get("DOCGEN_CONSOLE_MEMORY", "2g")
        host = api.create_host_config(
            auto_remove=True, network_mode="none", ipc_mode="private", cap_drop=["ALL"], read_only=True,
            security_opt=["no-new-privileges"], tmpfs={"/tmp": "rw,size=64m"}, mem_limit=self.memory_limit,
            pids_limit=PIDS_LIMIT)
        self.id, self.ended, self.oom_seen, self._lifeline = "", False, 0, None
        with _HeldBack():
            try:
                self.id = engine.call("create the page container", api.create_container, image,
                                      entrypoint=["/bin/sh", "-c"], command=[LIFELINE], stdin_open=True,
                                      labels={SESSION_LABEL: session_id}, host_config=host)["Id"]
                self._lifeline = engine.call("attach to the page container", api.attach_socket, self.id,
                                             params={"stdin": 1, "stream": 1})
                engine.call("start the page container", api.start, self.id)
            except BaseException:
                self.end()
                raise

    def shell(self) -> PersistentShell:
        return PersistentShell(ExecTransport(self))

    def end(self) -> None:
        """Cut the lifeline: the container ends and the engine removes it (one never attached, here)."""
        if self._lifeline is not None:
            lifeline, self._lifeline = self._lifeline, None
            getattr(lifeline, "_sock", lifeline).close()
            lifeline.close()
        elif self.id and not self.ended:
            try:
                self.engine.call("remove the page container", self.engine.api.remove_container, self.id, force=True)
            except EngineHung:
                raise
            except Exception:
                pass    # gone already
        self.ended = True

    def gone(self, seconds: float = 30) -> bool:
        """Whether the engine has removed the container, waited for up to `seconds`."""
        try:
            self.engine.api.wait(self.id, timeout=seconds, condition="removed")
        except Exception as exc:
            return getattr(getattr(exc, "response", None), "status_code", None) == 404
        return True

    def trouble(self, seconds: float = 2.0) -> str | None:
        """Why the container can no longer run the page (None: it runs). The engine drops the lifeline's
        connection when the container stops; that is waited for, up to `seconds`."""
        sock = getattr(self._lifeline, "_sock", self._lifeline)
        try:
            if sock is not None and (not select.select([sock], [], [], seconds)[0] or sock.recv(1)):
                return None
        except OSError:
            pass
        try:
            state = self.engine.call("inspect the page container", self.engine.api.inspect_container, self.id)["State"]
        except EngineHung:
            raise
        except Exception:
            return "the container is gone: it was stopped or removed from outside (docker stop, kill or rm)"
        killed = ", killed for running out of memory" if state.get("OOMKilled") else ""
        return f"the container stopped (exit code {state.get('ExitCode')}{killed}), stopped from outside"

    def oom_kills(self) -> int | None:
        """How many processes the kernel killed for memory in this container so far (None: unknown)."""
        try:   # cgroup v2, then v1
            exec_id = self.engine.call("read the memory events", self.engine.api.exec_create, self.id, [
                "sh", "-c", "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"])["Id"]
            found = re.search(rb"^oom_kill (\d+)", self.engine.call("read the memory events", self.engine.api.exec_start, exec_id), re.M)
        except Exception:
            return None
        return int(found[1]) if found else None


class ExecTransport:
    """bash started in the container with the engine's exec, spoken to over its attach socket (no TTY,
    multiplexed: stream 1 is the shell's stdout, stream 2 its original stderr, which the shell keeps as
    fd 9). Closing it ends the container, and with it everything the shell started."""

    def __init__(self, container: PageContainer) -> None:
        self.container, api, call = container, container.engine.api, container.engine.call
        exec_id = call("create a shell in the page container", api.exec_create, container.id,
                       ["bash", "--noprofile", "--norc"], stdin=True, stdout=True, stderr=True, tty=False)["Id"]
        self._socket_io = call("start a shell in the page container", api.exec_start, exec_id, socket=True, tty=False)
        self._sock: socket.socket = getattr(self._socket_io, "_sock", self._socket_io)

    def send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError:
            pass   # the shell is gone; the next recv reports the end of the stream

    def recv(self, timeout: float) -> tuple[int, bytes]:
        from docker.utils.socket import next_frame_header, read_exactly  # noqa: PLC0415  # docker: the console extra

        while select.select([self._sock], [], [], timeout)[0]:
            stream, size = next_frame_header(self._sock)   # the engine's multiplexed frames, read by its SDK
            if size < 0:
                return 0, b""
            if size:
                return CONTROL if stream == 2 else STDOUT, read_exactly(self._sock, size)
        raise TimeoutError

    def close(self) -> None:
        try:
            self._sock.close()
            self._socket_io.close()
        except OSError:
            pass
        self.container.end()
