"""Sybil parser + evaluator for console transcripts, and the per-session shells they run in."""

from __future__ import annotations

import difflib
import os
import re
import uuid
import warnings
from pathlib import Path
from typing import Any, Iterable

from sybil import Document, Example, Region, Sybil

from docgen.console.container import PIDS_LIMIT, Engine, EngineHung, PageContainer
from docgen.console.parser import EXIT_STATUS, ConsoleBlock, ShellStep, find_blocks, output_matches, render_steps
from docgen.console.shell import CommandTimeout, HostWorkspace, PersistentShell, ShellError, ShellExited
from docgen.io import Output, decode, read_bytes, write_files
from docgen.project import find_project

DEFAULT_IMAGE = "nmp-rl-base:hermetic"
IMAGE_ENV = "NMP_IMAGE"   # the image every image-backed test and the docs' console blocks run against
UPDATE_ENV = "DOCGEN_CONSOLE_UPDATE"
REQUIRE_ENV = "NMP_REQUIRE_IMAGE"
MAX_DIFF_LINES = 2000
# what bash and coreutils print when fork() fails under the container's pids limit
_PIDS_SIGN = re.compile(r"fork: (retry: )?Resource temporarily unavailable")
_STOPPED = "the container stopped or was removed from outside (docker stop, kill or rm)"


class ImageUnavailable(Exception):
    """No engine or no image: a skip locally, a failure when NMP_REQUIRE_IMAGE=1."""


class ConsoleSession:
    """What one test session shares: the engine, the image it pinned, the host workspace, and one persistent
    shell per (document, where), an image shell in a container of its own."""

    def __init__(self, repo: Path, image: str | None = None) -> None:
        self.image, self.repo = image or os.environ.get(IMAGE_ENV, DEFAULT_IMAGE), repo
        self.session_id = os.environ.get("DOCGEN_CONSOLE_SESSION_ID") or uuid.uuid4().hex
        self.engine = Engine()
        self.image_id: str | None = None
        self._workspace: HostWorkspace | None = None
        self.shells: dict[tuple[str, str], PersistentShell] = {}
        self.started: list[PageContainer] = []

    def shell(self, document: str, where: str) -> PersistentShell:
        """The page's shell in `where`, started at its first block: on the host, in the session's workspace; else in
        a container of its own, of the image pinned by ID at the session's first image block (retags change nothing)."""
        key = (document, where)
        if key not in self.shells and where == "host":
            self._workspace = self._workspace or HostWorkspace(self.repo)
            self.shells[key] = self._workspace.shell()
        elif key not in self.shells:
            if self.image_id is None:
                found = self.engine.run("look up the image", "image", "inspect", "--format={{.Id}}", self.image)
                if found.returncode != 0:
                    raise ImageUnavailable(
                        f"image {self.image} is not built; build it with scripts/build-image (the engine starts with "
                        "scripts/docker-engine start)" if "No such image" in found.stderr else
                        f"no Docker engine answers ({found.stderr.strip()}); start one with scripts/docker-engine start")
                self.image_id = found.stdout.strip()
            self.shells[key] = PageContainer(self.engine, self.image_id, self.session_id, self.started)
        return self.shells[key]

    def close_document(self, document: str, where: str | None = None) -> None:
        """End the page's shells (or its shell in `where`) and all the page left running; its next block gets a fresh one."""
        for key in [k for k in self.shells if k[0] == document and where in (None, k[1])]:
            self.shells.pop(key).close()

    def lost(self, document: str, where: str, exc: ShellError, timeout: float) -> list[str]:
        """Why a step lost the page's shell in `where`, as far as the shell or its container can tell, and the
        tail of its output; the shell is ended (the page's next block gets a fresh one)."""
        shell, partial = self.shells[(document, where)], exc.output.splitlines()
        lines = [f"timed out after {timeout:g} s" if isinstance(exc, CommandTimeout) else str(exc)]
        if isinstance(shell, PageContainer) and isinstance(exc, ShellExited):   # ended by itself: the engine may say why
            lines += [_STOPPED] if shell.stopped() else shell.oom_note()
        if isinstance(shell, PageContainer) and any(_PIDS_SIGN.search(line) for line in partial[-50:]):
            lines.append(f"the block ran into the page container's limit of {PIDS_LIMIT} processes")
        self.close_document(document, where)
        hung = self.engine.hung if where == "image" else None
        lines.append(str(hung) if hung else f"the page continues in a fresh {'shell' if where == 'host' else 'container'}")
        return lines + (["output so far:", *("  " + line for line in partial[-20:])] if partial else [])

    def close(self) -> list[str]:
        """End every shell and the workspace; the ids of containers the engine has not removed in time."""
        for document, _ in list(self.shells):
            self.close_document(document)
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None
        return [c.id for c in self.started if not (c.engine.hung or c.gone())]


# --- evaluation ---------------------------------------------------------------------------------

def _step_failure(step: ShellStep, output: list[str], status: int) -> list[str]:
    lines = ["$ " + step.command.replace("\n", "\n> ")]
    if status != step.exit_status:
        lines.append(f"exit status: expected {step.exit_status}, got {status}")
    if not output_matches(step.expected, output):
        # a runaway block's megabytes would make the diff slow and the report unreadable: diff the start
        diff = difflib.unified_diff(list(step.expected), output[:MAX_DIFF_LINES], lineterm="", n=3)
        lines += ["output (- expected, + actual):", *list(diff)[2:]]   # without the ---/+++ header
        if len(output) > MAX_DIFF_LINES:
            lines.append(f"(and {len(output) - MAX_DIFF_LINES} more output lines not shown)")
    return lines


def evaluate(example: Example) -> str | None:
    """Run a block's steps in its page's shell and compare output and exit status: None when all hold, else
    what differs. With DOCGEN_CONSOLE_UPDATE=1 the block's expected output is rewritten instead."""
    import pytest  # noqa: PLC0415  # loaded under pytest already; a script reading the constants need not load it

    block: ConsoleBlock = example.parsed
    if block.options.skip:
        pytest.skip(block.options.skip)
    session: ConsoleSession = example.namespace["console_session"]
    example.namespace["_console_document"] = example.path   # the teardown closes this page's shells
    where, path = block.options.where, Path(block.path)
    header = f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}:{block.line} [{block.test_id}] where={where}"
    try:
        shell = session.shell(example.path, where)
    except ImageUnavailable as exc:
        if os.environ.get(REQUIRE_ENV) == "1":
            return f"{REQUIRE_ENV}=1 and {exc}"
        pytest.skip(str(exc))
    except Exception as exc:   # the engine hung or refused: this block fails, the next one tries again
        if where == "host":
            raise
        return f"{header}\n{exc if isinstance(exc, EngineHung) else f'could not start the page container ({exc!r})'}"
    problems: list[str] = []
    new_steps: list[ShellStep] = []
    for step in block.steps:
        try:
            result = shell.run(step.command, block.options.timeout)
        except ShellError as exc:
            return "\n".join([header, *problems, f"$ {step.command}",
                              *session.lost(example.path, where, exc, block.options.timeout)])
        if result.exit_status != step.exit_status or not output_matches(step.expected, result.output):
            problems += _step_failure(step, result.output, result.exit_status)
            if isinstance(shell, PageContainer):
                problems += shell.oom_note()   # one exec, only for a failing step
            step = ShellStep(step.command, step.source, tuple(result.output), result.exit_status, step.line)
        new_steps.append(step)
    if problems and os.environ.get(UPDATE_ENV) == "1":
        unsafe = next((line for step in new_steps for line in step.expected
                       if line.startswith(("$ ", "> ")) or EXIT_STATUS.fullmatch(line)), None)
        if unsafe is None:
            update_block(example.document, block, new_steps)
            warnings.warn(f"{header}: expected output rewritten from the real run", stacklevel=1)
            return None
        problems.append(f"not updated: actual output line {unsafe!r} would read back as transcript syntax")
    return "\n".join([header, *problems]) if problems else None


def update_block(document: Document, block: ConsoleBlock, steps: list[ShellStep]) -> None:
    """Rewrite one block's body in the file on disk from the real run, nothing else (the shifts earlier updates of
    the page made are kept in the namespace)."""
    shifts: list[tuple[int, int]] = document.namespace.setdefault("_console_shifts", [])
    shift = sum(delta for at, delta in shifts if at < block.body_start)
    original = document.text[block.body_start:block.body_end]
    path = Path(document.path)
    current = decode(path, raw := read_bytes(path, "the page"), "the page")
    start, end = block.body_start + shift, block.body_end + shift
    if current[start:end] != original:
        raise RuntimeError(f"{path}:{block.line}: the block changed on disk during the run; not updating it")
    body = "".join(line + "\n" for line in render_steps(steps))
    # the one writer, judged from the project's root as `docgen write` is: atomic, never through a symlinked
    # folder, and it refuses a page saved by someone else since it was read just above
    write_files(find_project(cwd=path.parent).root, [Output(path, current[:start] + body + current[end:], raw, check_expected=True)])
    shifts.append((block.body_start, len(body) - len(original)))


class ConsoleSybil(Sybil):
    """A Sybil that runs each ```console block of the pages under `path` (the `console_session` fixture holds a
    page's shells until its last block has run), each test named `<heading-slug>::<n>` under the page's node."""

    def __init__(self, path: Path) -> None:
        def parse(document: Document) -> Iterable[Region]:
            return [Region(b.start, b.end, parsed=b, evaluator=evaluate) for b in find_blocks(document.text, document.path)]

        def teardown(namespace: dict[str, Any]) -> None:
            if namespace.get("console_session") is not None and namespace.get("_console_document"):
                namespace["console_session"].close_document(namespace["_console_document"])

        super().__init__(parsers=[parse], path=str(path.resolve()), patterns=["**/*.md"], fixtures=["console_session"],
                         teardown=teardown)

    def identify(self, example: Example) -> str:
        return example.parsed.test_id if isinstance(example.parsed, ConsoleBlock) else super().identify(example)
