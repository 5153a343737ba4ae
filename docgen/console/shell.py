"""The shell protocol: a persistent bash spoken to through a transport, and its host transport.

A shell reads commands on stdin like a reader typing them. The end of each command is reported on a
separate descriptor (fd 9, the shell's original stderr), never on the stdout a block writes to: after the
command, bash writes `TOKEN status t0 t1 stdout-open` to fd 9 and fences its stdout with the same fresh
random token. The token is a literal on the line that runs the command, after it: bash has parsed that
line before the block starts, so it is not in the shell's variables, environment, history or unread
input while the block runs. Clock readings are integer microseconds, whatever the locale's
decimal point.

Nothing a block leaves behind runs between its end and the end record, so no block can change how a
later block's status is read: the shell has no `trap` (a DEBUG trap runs before every command, and under
`extdebug` skips it) and no `enable` to bring it back; PS4 is read-only (an xtrace prompt is expanded, and
can assign, before every traced command); each command starts by removing a function named `builtin` in
POSIX mode, where `unset` is a special builtin no function can shadow, and the shell ends when it cannot;
the runner's words are quoted (no alias applies), its variables carry a fresh name per command (none can be
made read-only ahead) and every expansion is quoted (IFS splits none).
"""

from __future__ import annotations

import ctypes
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


CONTROL_FD = 9
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
    def close(self) -> None: ...   # ends the shell and everything it started


_NOW = "${EPOCHREALTIME//[^0-9]/}"   # microseconds in any locale; empty (reported 0) before bash 5.0
# bash's first line: the control channel, then what no block may use (see the module's docstring)
_START = "exec 9>&2 2>&1; builtin enable -n trap enable; builtin readonly PS4='+ '\n"


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
            f"{_START}IFS= read -r __docgen_k; printf '%s %s\\n' \"$__docgen_k\" $$ >&{CONTROL_FD}; "
            f"printf '\\n%s\\n' \"$__docgen_k\"; unset __docgen_k\n{token}\n".encode()
        )
        fields, _ = self._read_until_end(token, time.monotonic() + start_timeout, "starting the shell")
        self.pid = int(fields[0])

    def run(self, command: str, timeout: float) -> CommandResult:
        started = time.monotonic()
        token, tag = secrets.token_hex(16), secrets.token_hex(8)
        c, s, t0, t1, o, f = (f"__docgen_{name}{tag}" for name in "cstuof")
        # The command travels in a quoted here-document and runs through eval: a syntax error then fails only
        # this command (status 2) instead of leaving bash waiting for the rest of it. </dev/null keeps a
        # command that reads stdin from eating the next command. The token is a literal on the line that runs
        # the command: bash has read and parsed that whole line before the block starts, so nothing is left in
        # the command stream (which bash keeps on fd 10 and up while the block runs) for the block to read.
        # Verbose and xtrace go off before the token's commands (they would echo or trace them); xtrace comes
        # back after, verbose does not (it would echo the next line, token included, as bash reads it).
        # All of it is one line, the here-document's body after it: a line bash gives up on (a read-only
        # POSIXLY_CORRECT) runs nothing, so the block times out instead of reporting an empty command's 0.
        self._transport.send(
            (
                f"POSIXLY_CORRECT=y; {o}=${{SHELLOPTS/*posix*/}}; \\: \"${{{o}:+${{{o}_:?no POSIX mode}}}}\"; "
                f"\\unset -f builtin || \\: \"${{{o}_:?a function named builtin stays}}\"; \\unset POSIXLY_CORRECT {o}; "
                f"IFS= \\builtin read -r -d '' {c} <<'__DOCGEN_{tag}'; "
                f"{t0}={_NOW}; \\builtin eval \"${c}\" </dev/null; {s}=$?; {t1}={_NOW}; {f}=$-; \\builtin set +vx; "
                f"\\builtin test -e /dev/fd/1 && {o}=1 || {o}=0; "
                f"\\builtin printf '%s %s %s %s %s\\n' {token} \"${s}\" \"${{{t0}:-0}}\" \"${{{t1}:-0}}\" \"${o}\" >&{CONTROL_FD}; "
                f"\\builtin test \"${o}\" = 1 && \\builtin printf '\\n%s\\n' {token}; "
                f"\\builtin test \"${{{f}//[^x]/}}\" = x && \\builtin set -x; \\builtin unset {c} {s} {t0} {t1} {o} {f}\n"
                f"{command}\n__DOCGEN_{tag}\n"
            ).encode()
        )
        fields, output = self._read_until_end(token, started + timeout, command)
        status, t0, t1 = int(fields[0]), int(fields[1]), int(fields[2])
        text = output.decode("utf-8", errors="replace")
        if fields[3] != "1":
            self.close()
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
                self.close()
                raise CommandTimeout("timed out", self._partial())
            if len(self._out) > MAX_OUTPUT_BYTES:
                self.close()
                raise OutputTooLarge(f"the command printed more than {MAX_OUTPUT_BYTES // 2**20} MiB, the runner's cap",
                                     self._partial())
            try:
                stream, chunk = self._transport.recv(remaining)
            except TimeoutError:
                continue
            if not chunk:   # left to the caller, who may ask why before it closes the shell
                raise ShellExited(f"the shell ended (an `exit`, or a fatal error) while {what}", self._partial())
            if stream == CONTROL:
                self._ctl = self._ctl[-4096:] + chunk   # junk a block writes to fd 9 cannot grow it
            else:
                self._out += chunk

    def _partial(self) -> str:
        return bytes(self._out[-8192:]).decode("utf-8", errors="replace")   # the tail is what a reader needs

    def close(self) -> None:
        """End the shell and everything it started."""
        self._transport.close()


# --- on the host ----------------------------------------------------------------------------------

def _kill_on_parent_death() -> None:
    """In the child before exec: SIGKILL when the process that started it dies (Linux only)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except Exception:
        pass


# A host shell runs as init of its own PID namespace when the machine allows it (root, or unprivileged user
# namespaces): when it dies, the kernel kills every process in the namespace, one a block detached with
# `setsid` or double-forked included. /proc inside shows the namespace, so $$, $! and ps agree.
PID_NAMESPACE = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc"]
_namespace_prefix: list[str] | None = None


def namespace_prefix() -> list[str]:
    """The command that starts a host shell in a new PID namespace, or [] when this machine cannot."""
    global _namespace_prefix
    if _namespace_prefix is None:
        _namespace_prefix = []
        if shutil.which("unshare"):
            for prefix in (PID_NAMESPACE, [PID_NAMESPACE[0], "--user", "--map-current-user", *PID_NAMESPACE[1:]]):
                try:
                    if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                        _namespace_prefix = prefix
                        break
                except (OSError, subprocess.TimeoutExpired):
                    continue
    return _namespace_prefix


SHELL_MARK_ENV = "DOCGEN_CONSOLE_HOST_SHELL"
# Ends every process whose environment holds a line matching $1, a basic regular expression (a mark)
KILL_MARKED = ('for f in $(grep -lzx "$1" /proc/[0-9]*/environ 2>/dev/null); do p=${f#/proc/}; '
               'kill -KILL "${p%/environ}" 2>/dev/null; done')


class HostLifeline:
    """A session's host side: a sh that waits for end-of-file on a pipe only this process writes to, then
    ends every process that carries the session's mark and removes the workspace. End-of-file comes when
    the session closes, and when this process dies in any way, SIGKILL included."""

    def __init__(self, workspace: Path) -> None:
        self.mark = os.urandom(8).hex()   # not a secret (it is in the environment on purpose)
        script = f'while IFS= read -r _; do :; done; {KILL_MARKED}; rm -rf -- "$2"'
        self._proc = subprocess.Popen(
            ["sh", "-c", script, "sh", f"{SHELL_MARK_ENV}={self.mark}-.*", str(workspace)],
            stdin=subprocess.PIPE, start_new_session=True,    # out of reach of a terminal's Ctrl-C
            env={k: v for k, v in os.environ.items() if k != SHELL_MARK_ENV})

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait()


class HostProcessTransport:
    """bash on the host in its own session and, where the machine allows, its own PID namespace (so closing
    it kills everything a block started); a death signal ends it with this process, and a session's
    HostLifeline ends what it left. Without a namespace, its mark finds what a block detached."""

    def __init__(self, cwd: Path, env: dict[str, str], session_mark: str = "") -> None:
        self._mark = f"{session_mark or os.urandom(8).hex()}-{os.urandom(8).hex()}"
        self._proc = subprocess.Popen(
            [*namespace_prefix(), "bash", "--noprofile", "--norc"], cwd=cwd,
            env={**env, SHELL_MARK_ENV: self._mark}, start_new_session=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=_kill_on_parent_death,
        )
        self._open = {self._proc.stdout.fileno(): STDOUT, self._proc.stderr.fileno(): CONTROL}  # type: ignore[union-attr]

    def send(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except (OSError, ValueError):
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

    def close(self) -> None:
        # the group this transport started, never the PID the shell reports: in a PID namespace the shell
        # is 1 to itself, and killpg(1) names the host's init group
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self._proc.wait()
        if not namespace_prefix():     # (in a namespace, the kernel ended the rest with the shell)
            subprocess.run(["sh", "-c", KILL_MARKED, "sh", f"{SHELL_MARK_ENV}={self._mark}"], check=False)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()


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


def host_shell(workspace: Path, repo: Path, session_mark: str = "") -> PersistentShell:
    """bash in the workspace copy, with the project's .venv first on PATH and the copy's docgen imported."""
    env = dict(os.environ)
    env["PATH"] = f"{repo / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(workspace)
    env.pop("DOCGEN_CONSOLE_UPDATE", None)
    return PersistentShell(HostProcessTransport(workspace, env, session_mark))
