"""A page's shell in a hardened container that lives only as long as this process holds its lifeline (PID 1
is `cat` reading the container's input, attached to this process's connection to the engine; why that is
enough is docs/contributing.md's "Who owns a console session's container"), and every call to the Docker
engine bounded in time.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import threading
from typing import Any, Callable, Iterator

from docgen.console.shell import PersistentShell

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

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"the Docker engine did not answer within {seconds:g} s (to {what}); no further engine "
                         f"call is made in this session (set {ENGINE_TIMEOUT_ENV} to wait longer)")


def timed_out(exc: BaseException) -> bool:
    """Whether a call failed for want of an answer: the docker SDK's and requests' wrappers keep the words."""
    return isinstance(exc, TimeoutError) or "timed out" in str(exc)


class Engine:
    """A Docker client and whether its engine still answers: the first call that times out marks it hung,
    and every later call fails at once instead of waiting out its own timeout."""

    def __init__(self, client: Any) -> None:
        self.client, self.api = client, client.api
        self.hung: EngineHung | None = None
        self.timeout: float = client.api.timeout

    def call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.hung is not None:
            raise self.hung
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not timed_out(exc):
                raise
            self.hung = EngineHung(what, self.timeout)
            raise self.hung from None


@contextlib.contextmanager
def _held_back() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (main thread only) while the engine creates, attaches and starts
    a container, then delivered: no interruption leaves a container this process does not know of."""
    caught: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if main else ()
    previous = {signum: signal.signal(signum, lambda n, _: caught.append(n)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            signal.raise_signal(caught[0])


def _raw(socket_io: Any) -> Any:
    """The socket under the SDK's attach stream (over TLS the SDK hands out the socket itself)."""
    return getattr(socket_io, "_sock", socket_io)


class PageContainer:
    """One hardened container for one page's shell, and the shell's transport: bash started with the engine's
    exec, spoken to over its attach socket. Only the lifeline replaces the image's entrypoint and command: its
    environment, working directory and default user stay as a user's `docker run` sees them."""

    def __init__(self, engine: Engine, image: str, session_id: str) -> None:
        self.engine, api = engine, engine.api
        self.memory_limit = os.environ.get("DOCGEN_CONSOLE_MEMORY", "2g")
        host = api.create_host_config(
            auto_remove=True, network_mode="none", ipc_mode="private", cap_drop=["ALL"], read_only=True,
            security_opt=["no-new-privileges"], tmpfs={"/tmp": "rw,size=64m"}, mem_limit=self.memory_limit,
            pids_limit=PIDS_LIMIT)
        self.id, self.oom_seen, self.closed, self._lifeline, self._shell_io = "", 0, False, None, None
        with _held_back():
            try:
                self.id = engine.call("create the page container", api.create_container, image,
                                      entrypoint=["/bin/sh", "-c"], command=[LIFELINE], stdin_open=True,
                                      labels={SESSION_LABEL: session_id}, host_config=host)["Id"]
                self._lifeline = engine.call("attach to the page container", api.attach_socket, self.id,
                                             params={"stdin": 1, "stream": 1})
                engine.call("start the page container", api.start, self.id)
                exec_id = engine.call("create a shell in the page container", api.exec_create, self.id,
                                      ["bash", "--noprofile", "--norc"], stdin=True, stdout=True, stderr=True)["Id"]
                self._shell_io = engine.call("start a shell in the page container", api.exec_start, exec_id, socket=True)
            except BaseException:
                self.close()
                raise

    def shell(self) -> PersistentShell:
        return PersistentShell(self)

    def send(self, data: bytes) -> None:
        try:
            _raw(self._shell_io).sendall(data)
        except OSError:
            pass   # the shell is gone; the next recv reports the end of the stream

    def recv(self, timeout: float) -> bytes:
        from docker.utils.socket import next_frame_header, read_exactly  # noqa: PLC0415  # docker: the console extra

        sock = _raw(self._shell_io)
        while select.select([sock], [], [], timeout)[0]:
            size = next_frame_header(sock)[1]   # the engine's multiplexed frames, read by its SDK
            if size < 0:
                return b""
            if size:
                return read_exactly(sock, size)
        raise TimeoutError

    def close(self) -> None:
        """Cut the lifeline: the container ends, with everything the shell started, and the engine removes it
        (one never attached is removed here)."""
        if self.closed:
            return
        self.closed = True
        if self._lifeline is None and self.id and self.engine.hung is None:
            try:
                self.engine.api.remove_container(self.id, force=True)
            except Exception:
                pass    # gone already
        for stream in (self._shell_io, self._lifeline):
            if stream is not None:
                _raw(stream).close()
                stream.close()

    def gone(self, seconds: float = 30) -> bool:
        """Whether the engine has removed the container, waited for up to `seconds`."""
        try:
            self.engine.api.wait(self.id, timeout=seconds, condition="removed")
        except Exception as exc:
            return getattr(getattr(exc, "response", None), "status_code", None) == 404
        return True

    def trouble(self, seconds: float = 2.0) -> str | None:
        """Why the container can no longer run the page, or None when it still runs `seconds` after the
        question (a container stopped from outside may take a moment to show it)."""
        if self.engine.hung is not None:
            raise self.engine.hung
        try:
            self.engine.api.wait(self.id, timeout=seconds)
        except Exception as exc:
            if timed_out(exc):
                return None
        return "the container stopped or was removed from outside (docker stop, kill or rm)"

    def oom_note(self) -> list[str]:
        """A line saying the kernel killed a process for memory in this container since the last note, else
        none (nor when the container cannot say)."""
        call, api = self.engine.call, self.engine.api
        try:   # cgroup v2, then v1
            exec_id = call("read the memory events", api.exec_create, self.id, [
                "sh", "-c", "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null"])["Id"]
            found = re.search(rb"^oom_kill (\d+)", call("read the memory events", api.exec_start, exec_id), re.M)
        except Exception:
            return []
        if not found or int(found[1]) <= self.oom_seen:
            return []
        self.oom_seen = int(found[1])
        return ["the kernel killed a process of this block for memory: it went over the page container's memory "
                f"limit ({self.memory_limit})"]
