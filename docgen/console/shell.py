"""The shell protocol: a persistent bash spoken to through a transport, and the host's transport.

bash reads commands on stdin as a reader types them. After each, it writes `TOKEN status t0 t1 stdout-open`
to fd 9 (its original stderr; stderr joins stdout) and fences stdout with the same fresh random token. The
token is a literal on the line that runs the command, after it: bash parsed that line before the block
started, so the token is in no variable, environment, history or unread input while the block runs.
Clock readings are integer microseconds in any locale.

Nothing a block leaves behind runs between its end and the record, so no block changes how a later
block's status is read: the shell has no `trap` (a DEBUG trap runs before each command and, under
`extdebug`, skips it) and no `enable` to bring it back; PS4 is read-only (an xtrace prompt is expanded, and
can assign, before each traced command); each command first removes a function named `builtin` in POSIX
mode, where `unset` is a special builtin no function shadows, and the shell ends when it cannot; the
runner's words are quoted (no alias applies), its variables are named afresh per command (none can be
made read-only ahead) and every expansion is quoted (IFS splits none).
"""

from __future__ import annotations

import ctypes
import functools
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
_START = "exec 9>&2 2>&1; builtin enable -n trap enable; builtin readonly PS4='+ '\n"


class PersistentShell:
    """One bash whose state (cwd, variables) carries from command to command."""

    def __init__(self, transport: Transport, start_timeout: float = 30.0) -> None:
        self._transport = transport
        self._out = bytearray()    # appended in place: a block printing tens of MB stays linear
        self._searched = 0         # how far the stdout fence has been looked for
        self._ctl = b""
        token = secrets.token_hex(16)
        self._transport.send(f"{_START}IFS= read -r k; printf '%s 1\\n' \"$k\" >&9; printf '\\n%s\\n' \"$k\"; unset k\n"
                             f"{token}\n".encode())
        self._read_until_end(token, time.monotonic() + start_timeout, "starting the shell")

    def run(self, command: str, timeout: float) -> CommandResult:
        started = time.monotonic()
        token, tag = secrets.token_hex(16), secrets.token_hex(8)
        c, s, t0, t1, o, f = (f"__docgen_{name}{tag}" for name in "cstuof")
        # One line, the command in a quoted here-document after it, run by eval (a syntax error fails only this
        # command) with </dev/null (it cannot eat the next one). A line bash gives up on (a read-only
        # POSIXLY_CORRECT) runs nothing: a timeout, never an empty command's 0. Verbose and xtrace go off
        # before the token's commands; xtrace comes back, verbose would echo the next line's token.
        self._transport.send(
            (
                f"POSIXLY_CORRECT=y; {o}=${{SHELLOPTS/*posix*/}}; \\: \"${{{o}:+${{{o}_:?no POSIX mode}}}}\"; "
                f"\\unset -f builtin || \\: \"${{{o}_:?a function named builtin stays}}\"; \\unset POSIXLY_CORRECT {o}; "
                f"IFS= \\builtin read -r -d '' {c} <<'__DOCGEN_{tag}'; "
                f"{t0}={_NOW}; \\builtin eval \"${c}\" </dev/null; {s}=$?; {t1}={_NOW}; {f}=$-; \\builtin set +vx; "
                f"\\builtin test -e /dev/fd/1 && {o}=1 || {o}=0; "
                f"\\builtin printf '%s %s %s %s %s\\n' {token} \"${s}\" \"${{{t0}:-0}}\" \"${{{t1}:-0}}\" \"${o}\" >&9; "
                f"\\builtin test \"${o}\" = 1 && \\builtin printf '\\n%s\\n' {token}; "
                f"\\builtin test \"${{{f}//[^x]/}}\" = x && \\builtin set -x; \\builtin unset {c} {s} {t0} {t1} {o} {f}\n"
                f"{command}\n__DOCGEN_{tag}\n"
            ).encode()
        )
        fields, output = self._read_until_end(token, started + timeout, command)
        text = output.decode("utf-8", errors="replace")
        if fields[3] != "1":
            self.close()
            raise ShellError("the block closed the shell's standard output, so nothing after it could be "
                               "seen", text)
        # the fence's leading newline ends an unterminated last line, or adds one blank line
        if text.endswith("\n"):
            text = text[:-1]
        inner = max(0.0, (int(fields[2]) - int(fields[1])) / 1e6)
        return CommandResult(text.split("\n") if text else [], int(fields[0]), time.monotonic() - started, inner)

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
                if fields[-1] != "1":   # stdout closed: no fence follows
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
                raise ShellError(f"the command printed more than {MAX_OUTPUT_BYTES // 2**20} MiB, the runner's cap",
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
    """In the child before exec: SIGKILL when the process that started it dies (PR_SET_PDEATHSIG, Linux)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


# A host shell runs as init of its own PID namespace when the machine allows it (root, or unprivileged user
# namespaces): when it dies, the kernel kills every process in the namespace, one a block detached with
# `setsid` or double-forked included. /proc inside shows the namespace, so $$, $! and ps agree.
PID_NAMESPACE = ("unshare", "--pid", "--fork", "--kill-child", "--mount-proc")


@functools.cache
def namespace_prefix() -> tuple[str, ...]:
    """The command that starts a host shell in a new PID namespace, or () when this machine cannot."""
    for prefix in (PID_NAMESPACE, (*PID_NAMESPACE[:1], "--user", "--map-current-user", *PID_NAMESPACE[1:])):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            continue
    return ()


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
        script = f'cat >/dev/null; {KILL_MARKED}; rm -rf -- "$2"'
        self._proc = subprocess.Popen(["sh", "-c", script, "sh", f"{SHELL_MARK_ENV}={self.mark}-.*", str(workspace)],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True,   # out of reach of a terminal's Ctrl-C
                                      env={k: v for k, v in os.environ.items() if k != SHELL_MARK_ENV})

    def close(self) -> None:
        self._proc.communicate()


class HostProcessTransport:
    """bash on the host in its own session and, where the machine allows, its own PID namespace (so closing
    it kills everything a block started); a death signal ends it with this process, and a session's
    HostLifeline ends what it left. Without a namespace, its mark finds what a block detached."""

    def __init__(self, cwd: Path, env: dict[str, str], session_mark: str = "") -> None:
        self._mark = f"{session_mark or os.urandom(8).hex()}-{os.urandom(8).hex()}"
        self._proc = subprocess.Popen([*namespace_prefix(), "bash", "--noprofile", "--norc"], cwd=cwd,
                                      env={**env, SHELL_MARK_ENV: self._mark}, start_new_session=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      preexec_fn=_kill_on_parent_death)
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
            if chunk := os.read(fd := ready[0], 1 << 20):
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


def copy_worktree(repo: Path, dest: Path) -> Path:
    """Copy the repo's tracked and untracked-but-not-ignored files (as they are now) into dest."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=repo, check=True, capture_output=True).stdout.decode().split("\0")
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
    env = {k: v for k, v in os.environ.items() if k != "DOCGEN_CONSOLE_UPDATE"}
    env.update(PATH=f"{repo / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(workspace))
    return PersistentShell(HostProcessTransport(workspace, env, session_mark))
