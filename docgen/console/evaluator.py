"""Sybil parser + evaluator for console transcripts, and the per-session shells they run in."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable

from sybil import Document, Example, Region, Sybil

from docgen.console.parser import ConsoleBlock, ShellStep, find_blocks, output_matches, render_steps
from docgen.console.container import PIDS_LIMIT, SessionContainer
from docgen.console.engine import Engine, EngineHung, engine_timeout, hung_while_connecting
from docgen.console.shell import CommandTimeout, PersistentShell, ShellError, copy_worktree, host_shell
from docgen.console.watchdog import watchdog
from docgen.io import Output, decode, read_bytes, write_files
from docgen.project import find_project

DEFAULT_IMAGE = "nmp-rl-base:hermetic"
IMAGE_ENV = "NMP_IMAGE"   # the image every image-backed test and the docs' console blocks run against
BUILD_HINT = "build it with scripts/build-image (the engine starts with scripts/docker-engine start)"
UPDATE_ENV = "DOCGEN_CONSOLE_UPDATE"
REQUIRE_ENV = "NMP_REQUIRE_IMAGE"
MAX_DIFF_LINES = 2000
# what bash and coreutils print when fork() fails under the container's pids limit
_PIDS_SIGNS = ("fork: retry: Resource temporarily unavailable", "fork: Resource temporarily unavailable")


class ImageUnavailable(Exception):
    """No engine or no image: a skip locally, a failure when NMP_REQUIRE_IMAGE=1."""


class ConsoleSession:
    """Everything one test session shares: the lazily started container, the host workspace,
    and one persistent shell per (document, where)."""

    def __init__(self, image: str | None = None, repo: Path | None = None, client_factory: Callable[[], Any] | None = None) -> None:
        self.image = image or os.environ.get(IMAGE_ENV, DEFAULT_IMAGE)
        self.repo = repo
        self._client_factory = client_factory
        self.container: SessionContainer | None = None
        self._unavailable: str | None = None
        self._hung: str | None = None   # the engine stopped answering: every later image block fails at once
        self.engine: Engine | None = None
        self.image_id: str | None = None   # pinned at the first container: a retag mid-run changes nothing
        self._workspace: Path | None = None
        self._shells: dict[tuple[str, str], PersistentShell] = {}
        self.replaced = 0           # containers started again after a block broke one
        self.oom_seen = 0

    # -- the container --------------------------------------------------------------------
    def ensure_container(self) -> SessionContainer:
        if self.container is not None:
            return self.container
        if self._hung is not None:
            raise EngineHung(self._hung)
        if self._unavailable is None:
            try:
                engine = self._engine()
                self.container = SessionContainer(engine, self._pinned_image(engine))
                return self.container
            except ImageUnavailable as exc:
                self._unavailable = str(exc)
            except EngineHung as exc:
                self._hung = str(exc)
                raise
        raise ImageUnavailable(self._unavailable)

    def _engine(self) -> Engine:
        if self.engine is not None:
            return self.engine
        import docker   # only sessions that run image blocks pay for its import (python -X importtime)

        try:
            client = self._client_factory() if self._client_factory else docker.from_env(timeout=engine_timeout())
        except Exception as exc:   # the client asks the engine its API version on creation
            hung = hung_while_connecting(exc, engine_timeout())
            if hung is not None:
                raise EngineHung(hung) from None
            raise ImageUnavailable(f"no Docker engine answers ({type(exc).__name__}); start one with scripts/docker-engine start") from None
        engine = Engine(client)
        try:
            engine.call("answer a ping", client.ping)
        except EngineHung:
            raise
        except Exception as exc:
            raise ImageUnavailable(f"no Docker engine answers ({type(exc).__name__}); start one with scripts/docker-engine start") from None
        self.engine = engine
        return engine

    def _pinned_image(self, engine: Engine) -> str:
        """The image ID the session runs: found from the name once; later containers reuse it, and a tag
        that now names another image is reported, not followed."""
        import docker   # as in _engine: an import a session of host blocks only never pays

        try:
            found = engine.call("look up the image", engine.client.images.get, self.image)
        except docker.errors.ImageNotFound:
            if self.image_id is None:
                raise ImageUnavailable(f"image {self.image} is not built; {BUILD_HINT}") from None
            found = None
        if self.image_id is None:
            self.image_id = found.id
        elif found is None or found.id != self.image_id:
            now = "no longer names an image" if found is None else f"now names another image ({found.id[:19]})"
            warnings.warn(f"{self.image} {now} since this session started; the fresh session container runs the "
                          f"image the session started with ({self.image_id[:19]})", stacklevel=1)
        return self.image_id

    def container_trouble(self) -> str | None:
        """Why the session container cannot run the next block (None: it can). A block that ends PID 1
        stops it; one that exhausts the pids limit leaves it unable to start a shell. When the engine does
        not answer, that is the trouble (and nothing replaces the container)."""
        if self._hung is not None:
            return self._hung
        if self.container is None:
            return None
        try:
            return self.container.trouble()
        except EngineHung as exc:
            self._hung = str(exc)
            return self._hung

    def replace_container(self) -> None:
        """Drop every image shell and the container; the next image block starts a fresh one."""
        for key in [k for k in self._shells if k[1] != "host"]:
            self._shells.pop(key).kill()
        if self.container is not None:
            container, self.container = self.container, None
            try:
                container.remove()
            except Exception:
                pass   # still registered: the exit handler, the watchdog or a later session's reaper removes it
            self.replaced += 1
            self.oom_seen = 0

    # -- shells -----------------------------------------------------------------------------
    def shell(self, document: str, where: str) -> PersistentShell:
        key = (document, where)
        if key not in self._shells:
            if where == "host":
                self._shells[key] = host_shell(self.workspace(), self._repo())
            else:
                self._shells[key] = self.ensure_container().shell()
        return self._shells[key]

    def discard_shell(self, document: str, where: str) -> None:
        """Forget a broken shell; the next block of the document gets a fresh one."""
        shell = self._shells.pop((document, where), None)
        if shell is not None:
            shell.kill()

    def close_document(self, document: str) -> None:
        """Close the page's shells. In the container, also end whatever the page left running and empty
        /tmp, so each page starts clean; a container that cannot be reset is replaced."""
        used_image = False
        for key in [k for k in self._shells if k[0] == document]:
            used_image |= key[1] != "host"
            self._shells.pop(key).kill()
        if used_image and self.container is not None and self._hung is None:
            try:
                problem = self.container.reset()
            except EngineHung as exc:
                self._hung = str(exc)
                raise
            if problem is not None:
                self.replace_container()

    def workspace(self) -> Path:
        if self._workspace is None:
            self._workspace = Path(tempfile.mkdtemp(prefix="docgen-console-host-"))
            watchdog().watch_folder(self._workspace)     # removed even when this process is killed
            copy_worktree(self._repo(), self._workspace)
        return self._workspace

    def _repo(self) -> Path:
        if self.repo is None:
            raise RuntimeError("where=host blocks need ConsoleSession(repo=...)")
        return self.repo

    def close(self) -> list[str]:
        """Stop every shell, remove the container; return ids of labelled containers still there."""
        for key in list(self._shells):
            self._shells.pop(key).kill()
        if self._workspace is not None:
            shutil.rmtree(self._workspace, ignore_errors=True)
            watchdog().forget_folder(self._workspace)
            self._workspace = None
        if self.container is None:
            return []
        container, self.container = self.container, None
        container.remove()
        return container.leftovers()


# --- evaluation ---------------------------------------------------------------------------------

def _step_failure(step: ShellStep, output: list[str], status: int | None) -> list[str]:
    lines = ["$ " + step.command.replace("\n", "\n> ")]
    if status is not None and status != step.exit_status:
        lines.append(f"exit status: expected {step.exit_status}, got {status}")
    if not output_matches(step.expected, output):
        lines.append("output (- expected, + actual):")
        # a runaway block's megabytes would make the diff slow and the report unreadable: diff the start
        shown = output[:MAX_DIFF_LINES]
        diff = difflib.unified_diff(list(step.expected), shown, lineterm="", n=3)
        lines.extend(line for line in list(diff)[2:])   # drop the ---/+++ file header
        if len(output) > len(shown):
            lines.append(f"(and {len(output) - len(shown)} more output lines not shown)")
    return lines


def _unsafe_for_update(output: list[str]) -> str | None:
    for line in output:
        if line.startswith("$ ") or re.fullmatch(r"\[\d{1,3}\]", line) or line.startswith("> "):
            return f"actual output line {line!r} would read back as transcript syntax"
    return None


class ConsoleEvaluator:
    """Runs a block's steps in its page's shell and compares output and exit status."""

    def __init__(self, session_key: str = "console_session") -> None:
        self.session_key = session_key

    def __call__(self, example: Example) -> str | None:
        block: ConsoleBlock = example.parsed
        if block.options.skip:
            _skip(block.options.skip)
        session: ConsoleSession = example.namespace[self.session_key]
        example.namespace["_console_document"] = example.path   # the teardown closes this page's shells
        try:
            shell = session.shell(example.path, block.options.where)
        except ImageUnavailable as exc:
            if os.environ.get(REQUIRE_ENV) == "1":
                return f"{REQUIRE_ENV}=1 and {exc}"
            _skip(str(exc))
        except EngineHung as exc:
            session._hung = str(exc)
            return f"{_relative(block.path)}:{block.line} [{block.test_id}] where=image\n{exc}"
        except Exception as exc:   # the container took no new shell: start a fresh one for what follows
            if block.options.where == "host":
                raise
            trouble = session.container_trouble() or f"{type(exc).__name__}: {exc}"
            if session._hung is not None:
                return f"{_relative(block.path)}:{block.line} [{block.test_id}] where=image\n{trouble}"
            session.replace_container()
            return (f"{_relative(block.path)}:{block.line} [{block.test_id}] where=image\n"
                    f"could not start a shell in the session container: {trouble}; "
                    "a fresh session container runs the blocks that follow")

        header = f"{_relative(block.path)}:{block.line} [{block.test_id}] where={block.options.where}"
        in_image = block.options.where != "host"
        problems: list[str] = []
        new_steps: list[ShellStep] = []
        for step in block.steps:
            try:
                result = shell.run(step.command, block.options.timeout)
            except Exception as exc:   # ShellError, or the engine refusing the exec socket
                session.discard_shell(example.path, block.options.where)
                partial = exc.output.splitlines() if isinstance(exc, ShellError) else []
                if isinstance(exc, CommandTimeout):
                    reason = f"timed out after {block.options.timeout:g} s"
                elif isinstance(exc, ShellError):
                    reason = str(exc)
                else:
                    reason = f"the shell's connection failed ({type(exc).__name__}: {exc})"
                trouble = session.container_trouble() if in_image else None
                if trouble and session._hung is not None:
                    follow = trouble
                elif trouble:
                    session.replace_container()
                    follow = f"{trouble}; a fresh session container runs the blocks that follow"
                else:
                    follow = "the shell was killed and the page continues in a fresh one"
                problems += [f"$ {step.command}", f"{reason}; {follow}"]
                if in_image and any(sign in line for line in partial[-50:] for sign in _PIDS_SIGNS):
                    problems.append(f"the block ran into the session container's limit of {PIDS_LIMIT} processes")
                if in_image and not trouble:
                    problems += _oom_note(session)
                if partial:
                    problems += ["output so far:", *("  " + line for line in partial[-20:])]
                return "\n".join([header, *problems])
            if result.exit_status == step.exit_status and output_matches(step.expected, result.output):
                new_steps.append(step)
                continue
            problems += _step_failure(step, result.output, result.exit_status)
            if in_image:   # one exec, only for a failing step
                problems += _oom_note(session)
            new_steps.append(ShellStep(step.command, step.source, tuple(result.output), result.exit_status, step.line))
        if not problems:
            return None
        if os.environ.get(UPDATE_ENV) == "1":
            unsafe = next(filter(None, (_unsafe_for_update(s.expected) for s in new_steps)), None)
            if unsafe is None:
                update_block(example.document, block, new_steps)
                warnings.warn(f"{header}: expected output rewritten from the real run", stacklevel=1)
                return None
            problems.append(f"not updated: {unsafe}")
        return "\n".join([header, *problems])


def _oom_note(session: ConsoleSession) -> list[str]:
    """A line saying the kernel killed something for memory since the last look, else nothing."""
    if session.container is None or session._hung is not None:
        return []
    kills = session.container.oom_kills()
    if not kills or kills <= session.oom_seen:
        return []
    session.oom_seen = kills
    return ["the kernel killed a process of this block for memory: it went over the session container's "
            f"memory limit ({session.container.memory_limit})"]


def _skip(reason: str) -> None:
    import pytest   # loaded already under the test runner; a script importing this module for its constants
                    # would pay for it (python -X importtime)

    pytest.skip(reason)


def update_block(document: Document, block: ConsoleBlock, steps: list[ShellStep]) -> None:
    """Rewrite one block's body in the file on disk from the real run; nothing else changes.

    Earlier updates of the same page shift later blocks; the shifts are kept in the namespace.
    """
    shifts: list[tuple[int, int]] = document.namespace.setdefault("_console_shifts", [])
    shift = sum(delta for at, delta in shifts if at < block.body_start)
    original = document.text[block.body_start:block.body_end]
    path = Path(document.path)
    raw = read_bytes(path, "the page")
    current = decode(path, raw, "the page")
    start, end = block.body_start + shift, block.body_end + shift
    if current[start:end] != original:
        raise RuntimeError(f"{path}:{block.line}: the block changed on disk during the run; not updating it")
    body = "".join(line + "\n" for line in render_steps(steps))
    # the one writer, judged from the project's root as `docgen write` is: atomic, never through a symlinked
    # folder, and it refuses a page saved by someone else since it was read just above
    root = find_project(cwd=path.parent).root
    write_files(root, [Output(path, current[:start] + body + current[end:], raw, check_expected=True)])
    shifts.append((block.body_start, len(body) - len(original)))


def _relative(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


class ConsoleParser:
    """Sybil parser: one Region per ```console block, evaluated by a ConsoleEvaluator."""

    def __init__(self, evaluator: ConsoleEvaluator | None = None) -> None:
        self.evaluator = evaluator or ConsoleEvaluator()

    def __call__(self, document: Document) -> Iterable[Region]:
        for block in find_blocks(document.text, document.path):
            yield Region(block.start, block.end, parsed=block, evaluator=self.evaluator)


class ConsoleSybil(Sybil):
    """Sybil whose test names say where a block is: `<heading-slug>::<n>` under the page's node."""

    def identify(self, example: Example) -> str:
        if isinstance(example.parsed, ConsoleBlock):
            return example.parsed.test_id
        return super().identify(example)


def console_sybil(path: Path, patterns: Iterable[str] = ("**/*.md",), filenames: Iterable[str] = (), session_fixture: str = "console_session") -> ConsoleSybil:
    def teardown(namespace: dict[str, Any]) -> None:
        session = namespace.get(session_fixture)
        path_of_document = namespace.get("_console_document")
        if session is not None and path_of_document:
            session.close_document(path_of_document)

    return ConsoleSybil(
        parsers=[ConsoleParser(ConsoleEvaluator(session_fixture))],
        path=str(path.resolve()),
        patterns=list(patterns),
        filenames=set(filenames),
        fixtures=[session_fixture],
        teardown=teardown,
    )
