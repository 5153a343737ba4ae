"""The shell protocol: a persistent bash spoken to through its process's pipes (`docker exec` in a page's
container, or bash on the host), and the host's shells with their workspace.

bash reads commands on stdin as a reader types them. Its stdout and stderr are one stream, which it also
keeps as fd 9; after each command it writes the end record `TOKEN status t0 t1 stdout-open` there, on a
line of its own, with a fresh random token: what precedes the record is the command's output. The
token is a literal on the line that runs the command, after it: bash parsed that line before the block
started, so the token is in no variable, environment, history or unread input while the block runs.
Clock readings are integer microseconds in any locale.

Nothing a block leaves behind runs between its end and the record, so no block changes how a later
block's status is read: the shell has no `trap` (a DEBUG trap runs before each command and, under
`extdebug`, skips it) and no `enable` to bring it back; PS4 is read-only (an xtrace prompt is expanded, and
can assign, before each traced command); each command first removes a function named `builtin` in POSIX
mode, where `unset` is a special builtin no function shadows, and the shell ends when it cannot; the
runner's words are quoted (no alias applies), its variables are named afresh per command (none can be
made read-only ahead) and every expansion is quoted (IFS splits none)."""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT_BYTES = 64 * 2**20   # one command's output; more is a runaway (`yes`), not a transcript


class ShellError(Exception):
    """The shell did not finish a command; `output` holds what it printed so far."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class CommandTimeout(ShellError):
    """The command outlasted its time."""


class ShellExited(ShellError):
    """The shell ended by itself."""


@dataclass(frozen=True)
class CommandResult:
    output: list[str]
    exit_status: int
    seconds: float          # wall time seen by the caller
    inner_seconds: float    # time bash measured around the command itself


_NOW = "${EPOCHREALTIME//[^0-9]/}"   # microseconds in any locale; empty (reported 0) before bash 5.0
_START = "exec 2>&1 9>&1; builtin enable -n trap enable; builtin readonly PS4='+ '\n"


class PersistentShell:
    """One bash whose state (cwd, variables) carries from command to command: the process `argv` starts,
    spoken to through pipes, in a session of its own (a terminal's Ctrl-C is the runner's to act on)."""

    def __init__(self, argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
                 start_timeout: float = 30.0) -> None:
        self._proc = subprocess.Popen(argv, cwd=cwd, env=env, start_new_session=True, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin, self._stdout = self._proc.stdin, self._proc.stdout
        self._out = bytearray(b"\n")   # from the last record's line end on; appended in place (tens of MB stay linear)
        self._searched = 0         # how far the end record has been looked for
        token = secrets.token_hex(16)
        self._send(f"{_START}IFS= read -r k; printf '\\n%s 0 0 0 1\\n' \"$k\" >&9; unset k\n{token}\n".encode())
        self._read_until_end(token, time.monotonic() + start_timeout, "starting the shell")

    def run(self, command: str, timeout: float) -> CommandResult:
        started = time.monotonic()
        token, tag = secrets.token_hex(16), secrets.token_hex(8)
        c, s, t0, t1, o, f = (f"__docgen_{name}{tag}" for name in "cstuof")
        # One line, the command in a quoted here-document after it, run by eval (a syntax error fails only this
        # command) with </dev/null (it cannot eat the next one). A line bash gives up on (a read-only
        # POSIXLY_CORRECT) runs nothing: a timeout, never an empty command's 0. Verbose and xtrace go off
        # before the token's commands; xtrace comes back, verbose would echo the next line's token.
        self._send((
                f"POSIXLY_CORRECT=y; {o}=${{SHELLOPTS/*posix*/}}; \\: \"${{{o}:+${{{o}_:?no POSIX mode}}}}\"; "
                f"\\unset -f builtin || \\: \"${{{o}_:?a function named builtin stays}}\"; \\unset POSIXLY_CORRECT {o}; "
                f"IFS= \\builtin read -r -d '' {c} <<'__DOCGEN_{tag}'; "
                f"{t0}={_NOW}; \\builtin eval \"${c}\" </dev/null; {s}=$?; {t1}={_NOW}; {f}=$-; \\builtin set +vx; "
                f"\\builtin test -e /dev/fd/1 && {o}=1 || {o}=0; "
                f"\\builtin printf '\\n%s %s %s %s %s\\n' {token} \"${s}\" \"${{{t0}:-0}}\" \"${{{t1}:-0}}\" \"${o}\" >&9; "
                f"\\builtin test \"${{{f}//[^x]/}}\" = x && \\builtin set -x; \\builtin unset {c} {s} {t0} {t1} {o} {f}\n"
                f"{command}\n__DOCGEN_{tag}\n"
            ).encode())
        fields, output = self._read_until_end(token, started + timeout, command)
        text = output.decode("utf-8", errors="replace")
        if fields[3] != "1":
            self.close()
            raise ShellError("the block closed the shell's standard output, so nothing after it could be seen", text)
        # the record's leading newline ends an unterminated last line, or adds one blank line
        text = text[:-1] if text.endswith("\n") else text
        inner = max(0.0, (int(fields[2]) - int(fields[1])) / 1e6)
        return CommandResult(text.split("\n") if text else [], int(fields[0]), time.monotonic() - started, inner)

    def _read_until_end(self, token: str, deadline: float, what: str) -> tuple[list[str], bytes]:
        """The end record's fields after `token`, and the output before the record."""
        mark = b"\n" + token.encode() + b" "
        while True:
            at = self._out.find(mark, max(0, self._searched - len(mark)))
            end = self._out.find(b"\n", at + len(mark)) if at >= 0 else -1
            if end >= 0:
                fields, output = self._out[at + len(mark):end].decode().split(), bytes(self._out[1:at])
                del self._out[:end]
                self._searched = 0
                return fields, output
            self._searched = len(self._out) if at < 0 else at
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise CommandTimeout("timed out", self._partial())
            if len(self._out) > MAX_OUTPUT_BYTES:
                self.close()
                raise ShellError(f"the command printed more than {MAX_OUTPUT_BYTES // 2**20} MiB, the runner's cap",
                                 self._partial())
            if not select.select([self._stdout], [], [], remaining)[0]:
                continue
            if not (chunk := os.read(self._stdout.fileno(), 1 << 20)):   # left to the caller, who may ask why before it closes the shell
                raise ShellExited(f"the shell ended (an `exit`, or a fatal error) while {what}", self._partial())
            self._out += chunk

    def _partial(self) -> str:
        return bytes(self._out[max(1, len(self._out) - 8192):]).decode("utf-8", errors="replace")   # the tail is what a reader needs

    def _send(self, data: bytes) -> None:
        with contextlib.suppress(OSError, ValueError):   # (the shell is gone: the next read sees its output end)
            self._stdin.write(data)
            self._stdin.flush()

    def close(self) -> None:
        """End the shell and all it started: the group this process started, never the PID the shell reports (in a
        PID namespace the shell is 1 to itself, and killpg(1) names init's group); once only (reaped PIDs are reused)."""
        with contextlib.suppress(OSError):
            if self._proc.returncode is None:
                os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        self._stdout.close()
        with contextlib.suppress(OSError):   # (a gone shell may leave unread input in the buffer close flushes)
            self._stdin.close()


# --- on the host ----------------------------------------------------------------------------------

# A host shell runs as init of its own PID namespace when the machine allows it (root, or unprivileged user
# namespaces): when it dies, the kernel kills every process in the namespace, one a block detached with
# `setsid` or double-forked included. /proc inside shows the namespace, so $$, $! and ps agree.
PID_NAMESPACE = ("unshare", "--pid", "--fork", "--kill-child", "--mount-proc")


@functools.cache
def namespace_prefix() -> tuple[str, ...]:
    """The command that starts a host shell in a new PID namespace, or () when this machine cannot."""
    for prefix in (PID_NAMESPACE, (*PID_NAMESPACE[:1], "--user", "--map-current-user", *PID_NAMESPACE[1:])):
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
    return ()


SHELL_MARK_ENV = "DOCGEN_CONSOLE_HOST_SHELL"
# Ends every process whose environment holds a line matching $1, a basic regular expression (a mark)
KILL_MARKED = ('for f in $(grep -lzx "$1" /proc/[0-9]*/environ 2>/dev/null); do p=${f#/proc/}; '
               'kill -KILL "${p%/environ}" 2>/dev/null; done')


class HostWorkspace:
    """A copy of the repo's working tree for a session's host shells, and its lifeline: a sh that, at the end of a pipe
    only this process writes to (closed by the session or by this process's end), kills the marked and removes the copy."""

    def __init__(self, repo: Path) -> None:
        self.repo, self.folder = repo, Path(tempfile.mkdtemp(prefix="docgen-console-host-"))
        self.mark = os.urandom(8).hex()   # not a secret (it is in the environment on purpose)
        script = f'cat >/dev/null; {KILL_MARKED}; rm -rf -- "$2"'
        self._proc = subprocess.Popen(["sh", "-c", script, "sh", f"{SHELL_MARK_ENV}={self.mark}-.*", str(self.folder)],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True,   # out of reach of a terminal's Ctrl-C
                                      env={k: v for k, v in os.environ.items() if k != SHELL_MARK_ENV})
        copy_worktree(repo, self.folder)

    def shell(self) -> HostShell:
        """bash in the copy, with the project's .venv first on PATH and the copy's docgen imported."""
        env = {k: v for k, v in os.environ.items() if k != "DOCGEN_CONSOLE_UPDATE"}
        env.update(PATH=f"{self.repo / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(self.folder))
        return HostShell(self.folder, env, self.mark)

    def close(self) -> None:
        self._proc.communicate()


class HostShell(PersistentShell):
    """bash on the host in its own session and, where the machine allows, its own PID namespace: closing it
    kills everything a block started (without a namespace, its mark finds what a block detached)."""

    def __init__(self, cwd: Path, env: dict[str, str], session_mark: str = "") -> None:
        self._mark = f"{session_mark or os.urandom(8).hex()}-{os.urandom(8).hex()}"
        super().__init__([*namespace_prefix(), "bash", "--noprofile", "--norc"], cwd, {**env, SHELL_MARK_ENV: self._mark})

    def close(self) -> None:
        super().close()
        if not namespace_prefix():     # (in a namespace, the kernel ended the rest with the shell)
            subprocess.run(["sh", "-c", KILL_MARKED, "sh", f"{SHELL_MARK_ENV}={self._mark}"], check=False)


def copy_worktree(repo: Path, dest: Path) -> None:
    """Copy the repo's tracked and untracked-but-not-ignored files (as they are now) into dest."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=repo, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (repo / name).is_file():          # (not one deleted in the working tree, nor a submodule)
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / name, dest / name, follow_symlinks=False)
