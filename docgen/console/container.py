"""A page's shell (`docker exec`'s bash) in a hardened container that lives only while this process holds its
lifeline, the stdin of the `docker run -i --rm` that started it (docs/contributing.md says why that is enough:
"Who owns a console session's container"). Every Docker CLI call is bounded in time."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import subprocess

from docgen.console.shell import CommandTimeout, PersistentShell

SESSION_LABEL = "org.nmp-rl-base.docs-session"
ENGINE_TIMEOUT_ENV = "DOCGEN_CONSOLE_ENGINE_TIMEOUT"
PIDS_LIMIT = 256
# PID 1 says it runs, then reads its input to the end; SIGCHLD ignored where env can (coreutils 8.31 and
# later): the kernel reaps the orphans a block leaves
LIFELINE = ("echo up; env --ignore-signal=CHLD true 2>/dev/null && exec env --ignore-signal=CHLD cat >/dev/null; "
            "exec cat >/dev/null")


class EngineHung(Exception):
    """The engine did not answer a call within the client's timeout."""


class Engine:
    """The Docker CLI (on the engine DOCKER_HOST or its context names) and whether the engine still answers:
    the first call that outlasts the timeout marks it hung, and every later call fails at once."""

    def __init__(self, timeout: float | None = None) -> None:
        try:   # seconds one call may take: DOCGEN_CONSOLE_ENGINE_TIMEOUT, else 20
            self.timeout = timeout or max(0.0, float(os.environ.get(ENGINE_TIMEOUT_ENV, ""))) or 20.0
        except ValueError:
            self.timeout = 20.0
        self.hung: EngineHung | None = None

    def hang(self, what: str) -> EngineHung:
        self.hung = self.hung or EngineHung(f"the Docker engine did not answer within {self.timeout:g} s (to {what}); no further "
                                            f"engine call is made in this session (set {ENGINE_TIMEOUT_ENV} to wait longer)")
        return self.hung

    def run(self, what: str, *args: str) -> subprocess.CompletedProcess[str]:
        """`docker ARGS` to its end, its output captured."""
        if self.hung is not None:
            raise self.hung
        try:
            return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise self.hang(what) from None
        except OSError as exc:   # no docker CLI: as a call that failed
            return subprocess.CompletedProcess(args, 127, "", str(exc))


class PageContainer(PersistentShell):
    """One hardened container for one page and the page's shell in it; they end together. Only the lifeline replaces
    the image's entrypoint and command (env, workdir and user stay as `docker run` has them); `id` is its name."""

    def __init__(self, engine: Engine, image: str, session_id: str, started: list[PageContainer] | None = None) -> None:
        if engine.hung is not None:
            raise engine.hung
        self.engine, self.oom_seen, self.id = engine, 0, f"docgen-console-{secrets.token_hex(12)}"
        self.memory_limit = os.environ.get("DOCGEN_CONSOLE_MEMORY", "2g")
        # in a session of its own (no signal meant for this process reaches it): it ends at the pipe's end-of-file
        self._lifeline = subprocess.Popen(
            ["docker", "run", "-i", "--rm", f"--name={self.id}", f"--label={SESSION_LABEL}={session_id}",
             "--network=none", "--ipc=private", "--cap-drop=ALL", "--read-only", "--security-opt=no-new-privileges",
             "--tmpfs=/tmp:rw,size=64m", f"--memory={self.memory_limit}", f"--pids-limit={PIDS_LIMIT}",
             "--entrypoint=/bin/sh", image, "-c", LIFELINE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        assert self._lifeline.stdin is not None and self._lifeline.stdout is not None
        self._pipe, up = self._lifeline.stdin, self._lifeline.stdout
        if started is not None:   # the session checks its removal, also when the start fails
            started.append(self)
        try:
            if not select.select([up], [], [], engine.timeout)[0]:
                raise engine.hang("start the page container")
            if os.read(up.fileno(), 64) != b"up\n":   # docker run failed: its error, once it has ended
                raise RuntimeError(f"docker run: {self._lifeline.communicate(timeout=engine.timeout)[1].decode(errors='replace').strip()}")
            super().__init__(["docker", "exec", "-i", self.id, "bash", "--noprofile", "--norc"], start_timeout=engine.timeout)
        except BaseException as exc:
            self.close()
            if isinstance(exc, (CommandTimeout, subprocess.TimeoutExpired)):
                raise engine.hang("start the page container and its shell") from None
            raise

    def close(self) -> None:
        """End the shell and cut the lifeline: the container ends with all it ran, and the engine removes it."""
        if hasattr(self, "_proc"):   # (a shell was started)
            super().close()
        self._pipe.close()

    def stopped(self) -> bool:
        """Whether the container runs no more (stopped or removed from outside): a process the engine starts in it
        says it runs; else its state does, asked again once the lifeline ends (it may lag behind the shell's end)."""
        ask = ("ask whether the page container runs", "container", "inspect", "--format={{.State.Running}}", self.id)
        with contextlib.suppress(EngineHung, subprocess.TimeoutExpired):   # (no answer: it cannot tell)
            if self.engine.run("start a process in the page container", "exec", self.id, "true").returncode == 0:
                return False
            if self.engine.run(*ask).stdout.strip() != "true":
                return True
            self._lifeline.wait(self.engine.timeout)
            return self.engine.run(*ask).stdout.strip() != "true"
        return False

    def gone(self, seconds: float = 30) -> bool:
        """Whether the engine has removed the container: its `docker run --rm` ended within `seconds`, and the name is unknown."""
        with contextlib.suppress(subprocess.TimeoutExpired, EngineHung):
            self._lifeline.wait(seconds)
            return "No such" in self.engine.run("look the page container up", "container", "inspect", self.id).stderr
        return False

    def oom_note(self) -> list[str]:
        """A line if the kernel killed a process of the container for memory since the last note (none if it cannot say)."""
        try:   # cgroup v2, then v1
            found = re.search(r"^oom_kill (\d+)", self.engine.run("read the memory events", "exec", self.id, "sh", "-c", (
                "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null")).stdout, re.M)
        except EngineHung:
            return []
        if not found or int(found[1]) <= self.oom_seen:
            return []
        self.oom_seen = int(found[1])
        return ["the kernel killed a process of this block for memory: it went over the page container's memory "
                f"limit ({self.memory_limit})"]
