"""Persistent bash shells for console transcripts: one in the session container per page, or on the host.

A shell reads commands on stdin like a reader typing them. The end of each command is reported on a
separate descriptor (fd 9, the shell's original stderr), never on the stdout a block writes to: after the
command, bash reads a fresh random token from stdin (sent behind the command, so it is not in the shell's
variables, environment or history while the block runs), writes `TOKEN status t0 t1 stdout-open` to fd 9
and fences its stdout with the same token. Clock readings are integer microseconds, whatever the locale's
decimal point.
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SESSION_LABEL = "org.nmp-rl-base.docs-session"
# Who owns a session container: a later session on the same host removes it only once that process is gone.
OWNER_HOST_LABEL = SESSION_LABEL + ".host"
OWNER_BOOT_LABEL = SESSION_LABEL + ".boot"
OWNER_PID_LABEL = SESSION_LABEL + ".pid"
OWNER_START_LABEL = SESSION_LABEL + ".pid-start"
KEEPALIVE = ["/bin/sh", "-c", "exec sleep infinity"]
# setsid makes bash lead its own process group, so a timeout can kill the command's whole tree.
SHELL_ARGV = ["setsid", "-w", "bash", "--noprofile", "--norc"]
CONTROL_FD = 9
PIDS_LIMIT = 256
MAX_OUTPUT_BYTES = 64 * 2**20   # one command's output; more is a runaway (`yes`), not a transcript
STDOUT, CONTROL = 1, 2     # stream ids: the command's output, and the end-of-command records


class ShellError(Exception):
    """The shell did not finish a command; `output` holds what it printed so far."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class CommandTimeout(ShellError):
    pass


class ShellExited(ShellError):
    pass


class StdoutClosed(ShellError):
    pass


class OutputTooLarge(ShellError):
    pass


@dataclass(frozen=True)
class CommandResult:
    output: list[str]
    exit_status: int
    seconds: float          # wall time seen by the caller
    inner_seconds: float    # time bash measured around the command itself


class Transport(Protocol):
    def send(self, data: bytes) -> None: ...
    # (stream, bytes): STDOUT or CONTROL; (0, b"") once both streams ended; TimeoutError when quiet
    def recv(self, timeout: float) -> tuple[int, bytes]: ...
    def kill_group(self, pgid: int) -> None: ...
    def close(self) -> None: ...


def _digits(var: str) -> str:
    # $EPOCHREALTIME uses the locale's decimal point; keeping only the digits gives microseconds anywhere
    # (bash before 5.0 has no $EPOCHREALTIME: empty, reported as 0)
    return "${" + var + "//[!0-9]/}"


class PersistentShell:
    """One bash whose state (cwd, variables) carries from command to command."""

    def __init__(self, transport: Transport, start_timeout: float = 30.0) -> None:
        self._transport = transport
        self._out = bytearray()    # appended in place: a block printing tens of MB stays linear
        self._searched = 0         # how far the stdout fence has been looked for
        self._ctl = b""
        self.pid = 0
        token = secrets.token_hex(16)
        # fd 9 keeps the original stderr as the control channel; stderr then joins stdout for the whole
        # shell, as a reader sees both interleaved on one terminal
        self._transport.send(
            f"exec {CONTROL_FD}>&2 2>&1\n"
            f"IFS= read -r __docgen_k; printf '%s %s\\n' \"$__docgen_k\" $$ >&{CONTROL_FD}; "
            f"printf '\\n%s\\n' \"$__docgen_k\"; unset __docgen_k\n{token}\n".encode()
        )
        fields, _ = self._read_until_end(token, time.monotonic() + start_timeout, "starting the shell")
        self.pid = int(fields[0])

    def run(self, command: str, timeout: float) -> CommandResult:
        started = time.monotonic()
        token = secrets.token_hex(16)
        delimiter = f"__DOCGEN_{secrets.token_hex(8)}"
        # The command travels in a quoted here-document and runs through eval: a syntax error then
        # fails only this command (status 2) instead of leaving bash waiting for the rest of it.
        # </dev/null keeps a command that reads stdin from eating the next command (and the token).
        # `builtin` everywhere: a block that defines a function called printf, read or eval must not be
        # able to rewrite the status it reports
        self._transport.send(
            (
                f"IFS= builtin read -r -d '' __docgen_command <<'{delimiter}'\n{command}\n{delimiter}\n"
                f"__docgen_t0={_digits('EPOCHREALTIME')}; builtin eval \"$__docgen_command\" </dev/null; __docgen_s=$?; "
                f"__docgen_t1={_digits('EPOCHREALTIME')}; builtin test -e /dev/fd/1 && __docgen_o=1 || __docgen_o=0; "
                "IFS= builtin read -r __docgen_k; "
                f"builtin printf '%s %s %s %s %s\\n' \"$__docgen_k\" $__docgen_s ${{__docgen_t0:-0}} ${{__docgen_t1:-0}} $__docgen_o >&{CONTROL_FD}; "
                "builtin test $__docgen_o = 1 && builtin printf '\\n%s\\n' \"$__docgen_k\"; builtin unset __docgen_k\n"
                f"{token}\n"
            ).encode()
        )
        fields, output = self._read_until_end(token, started + timeout, command)
        status, t0, t1 = int(fields[0]), int(fields[1]), int(fields[2])
        text = output.decode("utf-8", errors="replace")
        if fields[3] != "1":
            self.kill()
            raise StdoutClosed("the block closed the shell's standard output, so nothing after it could be "
                               "seen", text)
        # the fence's leading newline ends an unterminated last line, or adds one blank line
        if text.endswith("\n"):
            text = text[:-1]
        lines = text.split("\n") if text else []
        return CommandResult(lines, status, time.monotonic() - started, max(0.0, (t1 - t0) / 1e6))

    def _read_until_end(self, token: str, deadline: float, what: str) -> tuple[list[str], bytes]:
        """The end record's fields after `token`, and the output up to the stdout fence (if it comes)."""
        record = re.compile(rb"(?:^|\n)" + token.encode() + rb" ([^\n]*)\n")
        fence = b"\n" + token.encode() + b"\n"
        fields: list[str] | None = None
        while True:
            if fields is None and (found := record.search(self._ctl)):
                fields = found[1].decode().split()
                self._ctl = self._ctl[found.end():]
            if fields is not None:
                # with stdout still open (last field 1, or the start-up record) the fence follows
                if len(fields) == 4 and fields[3] != "1":
                    output, self._out, self._searched = bytes(self._out), bytearray(), 0
                    return fields, output
                at = self._out.find(fence, max(0, self._searched - len(fence)))
                self._searched = len(self._out)
                if at >= 0:
                    output = bytes(self._out[:at])
                    del self._out[:at + len(fence)]
                    self._searched = 0
                    return fields, output
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise CommandTimeout("timed out", self._partial())
            if len(self._out) > MAX_OUTPUT_BYTES:
                self.kill()
                raise OutputTooLarge(f"the command printed more than {MAX_OUTPUT_BYTES // 2**20} MiB, the runner's cap",
                                     self._partial())
            try:
                stream, chunk = self._transport.recv(remaining)
            except TimeoutError:
                continue
            if not chunk:
                self.close()
                raise ShellExited(f"the shell ended (an `exit`, or a fatal error) while {what}", self._partial())
            if stream == CONTROL:
                self._ctl = self._ctl[-4096:] + chunk   # junk a block writes to fd 9 cannot grow it
            else:
                self._out += chunk

    def _partial(self) -> str:
        return bytes(self._out[-8192:]).decode("utf-8", errors="replace")   # the tail is what a reader needs

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


def _kill_on_parent_death() -> None:
    """In the child before exec: SIGKILL when the process that started it dies (Linux only)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except Exception:
        pass


class HostProcessTransport:
    """bash on the host in its own session (so a timeout can kill the command's process group), killed
    with its group by the session watchdog when this process dies in any way, and by a death signal."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self._proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_kill_on_parent_death,
        )
        self._open = {self._proc.stdout.fileno(): STDOUT, self._proc.stderr.fileno(): CONTROL}  # type: ignore[union-attr]
        watchdog().watch_group(self._proc.pid)

    def send(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except OSError:
            pass   # bash is gone; the next recv reports the end of the stream

    def recv(self, timeout: float) -> tuple[int, bytes]:
        while self._open:
            ready = select.select(list(self._open), [], [], timeout)[0]
            if not ready:
                raise TimeoutError
            fd = ready[0]
            chunk = os.read(fd, 1 << 20)
            if chunk:
                return self._open[fd], chunk
            del self._open[fd]
        return 0, b""

    def kill_group(self, pgid: int) -> None:
        os.killpg(pgid, signal.SIGKILL)

    def close(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)   # whatever the shell left running in its group
        except OSError:
            pass
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        watchdog().forget_group(self._proc.pid)


# --- the watchdog -------------------------------------------------------------------------------

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


# --- the session container ----------------------------------------------------------------------

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
