"""Persistent bash shells for console transcripts: one in the session container per page, or on the host.

A shell reads commands on stdin like a reader typing them. After each command it prints a sentinel
line carrying a per-shell token, the exit status and bash's own clock readings, so the output, the
status and the command's in-shell duration come back without a new process per command.
"""

from __future__ import annotations

import atexit
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SESSION_LABEL = "org.nmp-rl-base.docs-session"
KEEPALIVE = ["/bin/sh", "-c", "exec sleep infinity"]
# setsid makes bash lead its own process group, so a timeout can kill the command's whole tree.
SHELL_ARGV = ["setsid", "-w", "bash", "--noprofile", "--norc"]


class ShellError(Exception):
    """The shell did not finish a command; `output` holds what it printed so far."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class CommandTimeout(ShellError):
    pass


class ShellExited(ShellError):
    pass


@dataclass(frozen=True)
class CommandResult:
    output: list[str]
    exit_status: int
    seconds: float          # wall time seen by the caller
    inner_seconds: float    # time bash measured around the command itself


class Transport(Protocol):
    def send(self, data: bytes) -> None: ...
    def recv(self, timeout: float) -> bytes: ...        # b"" at end of stream; TimeoutError when quiet
    def kill_group(self, pgid: int) -> None: ...
    def close(self) -> None: ...


class PersistentShell:
    """One bash whose state (cwd, variables) carries from command to command."""

    def __init__(self, transport: Transport, start_timeout: float = 30.0) -> None:
        self._transport = transport
        self._token = uuid.uuid4().hex
        self._end = re.compile(rb"\n__END_" + self._token.encode() + rb"_(\d+)_([\d.]+)_([\d.]+)\n")
        self._buffer = b""
        self.pid = 0
        # stderr joins stdout for the whole shell: a reader sees both interleaved on one terminal
        self._transport.send(f"exec 2>&1\nprintf '\\n__END_{self._token}_%s_1_1\\n' $$\n".encode())
        self.pid = self._read_until_end(time.monotonic() + start_timeout, "starting the shell")[1]   # its $$

    def run(self, command: str, timeout: float) -> CommandResult:
        started = time.monotonic()
        # The command travels in a quoted here-document and runs through eval: a syntax error then
        # fails only this command (status 2) instead of leaving bash waiting for the rest of it.
        # </dev/null keeps a command that reads stdin from eating the next command.
        self._transport.send(
            (
                f"IFS= read -r -d '' __docgen_command <<'__DOCGEN_{self._token}'\n{command}\n__DOCGEN_{self._token}\n"
                "__docgen_t0=$EPOCHREALTIME; eval \"$__docgen_command\" </dev/null; "
                f"printf '\\n__END_{self._token}_%s_%s_%s\\n' \"$?\" \"$__docgen_t0\" \"$EPOCHREALTIME\"\n"
            ).encode()
        )
        output, status, t0, t1 = self._read_until_end(started + timeout, command)
        text = output.decode("utf-8", errors="replace")
        # the sentinel's leading newline ends an unterminated last line, or adds one blank line
        if text.endswith("\n"):
            text = text[:-1]
        lines = text.split("\n") if text else []
        return CommandResult(lines, status, time.monotonic() - started, max(0.0, t1 - t0))

    def _read_until_end(self, deadline: float, what: str) -> tuple[bytes, int, float, float]:
        """Output up to the next sentinel, and the sentinel's status and clock readings."""
        while True:
            found = self._end.search(self._buffer)
            if found:
                output = self._buffer[: found.start()]
                self._buffer = self._buffer[found.end():]
                return output, int(found[1]), float(found[2]), float(found[3])
            remaining = deadline - time.monotonic()
            partial = self._buffer.decode("utf-8", errors="replace")
            if remaining <= 0:
                self.kill()
                raise CommandTimeout("timed out", partial)
            try:
                chunk = self._transport.recv(remaining)
            except TimeoutError:
                continue
            if not chunk:
                self.close()
                raise ShellExited(f"the shell ended (an `exit`, or a fatal error) while {what}", partial)
            self._buffer += chunk

    def kill(self) -> None:
        """Kill the shell and everything it started, then drop the connection."""
        if self.pid:
            try:
                self._transport.kill_group(self.pid)
            except Exception:   # the shell may already be gone; closing below still frees it
                pass
        self.close()

    def close(self) -> None:
        self._transport.close()


# --- transports -------------------------------------------------------------------------------

class ContainerExecTransport:
    """bash started with the Docker API's exec, spoken to over the attach socket (no TTY, multiplexed)."""

    def __init__(self, api: Any, container_id: str, argv: list[str] = SHELL_ARGV) -> None:
        self._api = api
        self._container_id = container_id
        self._exec_id = api.exec_create(container_id, argv, stdin=True, stdout=True, stderr=True, tty=False)["Id"]
        self._socket_io = api.exec_start(self._exec_id, socket=True, tty=False)
        self._sock: socket.socket = getattr(self._socket_io, "_sock", self._socket_io)
        self._frames = b""
        self._closed = False

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)

    def recv(self, timeout: float) -> bytes:
        # Frames: 1 byte stream id, 3 zero bytes, 4 bytes big-endian length, then the payload.
        deadline = time.monotonic() + timeout
        payload = b""
        while True:
            while len(self._frames) >= 8:
                size = int.from_bytes(self._frames[4:8], "big")
                if len(self._frames) < 8 + size:
                    break
                payload += self._frames[8:8 + size]
                self._frames = self._frames[8 + size:]
            if payload:
                return payload
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._sock], [], [], remaining)[0]:
                raise TimeoutError
            chunk = self._sock.recv(65536)
            if not chunk:
                return b""
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


class HostProcessTransport:
    """bash on the host, in its own session so a timeout can kill the command's process group."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self._proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )

    def send(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(data)
        self._proc.stdin.flush()

    def recv(self, timeout: float) -> bytes:
        assert self._proc.stdout is not None
        if not select.select([self._proc.stdout], [], [], timeout)[0]:
            raise TimeoutError
        return os.read(self._proc.stdout.fileno(), 65536)

    def kill_group(self, pgid: int) -> None:
        os.killpg(pgid, signal.SIGKILL)

    def close(self) -> None:
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


# --- the session container ----------------------------------------------------------------------

def hardened_run_options(session_id: str) -> dict[str, Any]:
    """What `containers.run` gets: only the keepalive replaces the image's entrypoint and command;
    the image's environment, working directory and default user stay as a user's `docker run` sees them."""
    return dict(
        entrypoint=KEEPALIVE[:1],
        command=KEEPALIVE[1:],
        detach=True,
        labels={SESSION_LABEL: session_id},
        network_mode="none",
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        read_only=True,
        tmpfs={"/tmp": "rw,size=64m"},
        mem_limit="2g",
        pids_limit=256,
        init=True,
    )


class SessionContainer:
    """The one hardened container of a test session; removed on close, at exit and on SIGTERM/SIGHUP."""

    def __init__(self, client: Any, image: str) -> None:
        self.client = client
        self.image = image
        self.session_id = os.environ.get("DOCGEN_CONSOLE_SESSION_ID") or uuid.uuid4().hex
        self._lock = threading.Lock()
        self.container = client.containers.run(image, **hardened_run_options(self.session_id))
        _register_cleanup(self)

    @property
    def id(self) -> str:
        return self.container.id

    def shell(self) -> PersistentShell:
        return PersistentShell(ContainerExecTransport(self.client.api, self.container.id))

    def remove(self) -> None:
        with self._lock:
            if self.container is None:
                return
            container, self.container = self.container, None
        try:
            container.remove(force=True)
        except Exception as exc:   # already gone is fine; anything else shows up in leftovers()
            if getattr(exc, "status_code", None) != 404:
                raise
        finally:
            _live.discard(self)

    def leftovers(self) -> list[str]:
        """Ids of containers still carrying this session's label (should be none after remove)."""
        found = self.client.containers.list(all=True, filters={"label": f"{SESSION_LABEL}={self.session_id}"})
        return [c.id for c in found]


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


# --- the host workspace -------------------------------------------------------------------------

def copy_worktree(repo: Path, dest: Path) -> Path:
    """Copy the repo's tracked and untracked-but-not-ignored files (as they are now) into dest."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = repo / name
        if not source.is_file():          # deleted in the working tree, or a submodule
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    return dest


def host_shell(workspace: Path, repo: Path) -> PersistentShell:
    """bash in the workspace copy, with the project's .venv first on PATH and the copy's docgen imported."""
    env = dict(os.environ)
    env["PATH"] = f"{repo / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(workspace)
    env.pop("DOCGEN_CONSOLE_UPDATE", None)
    return PersistentShell(HostProcessTransport(workspace, env))
