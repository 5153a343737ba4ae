"""Read a Dockerfile into plain facts with 1-based line numbers: the public face of ``docgen.inputs``.

Two layers:
  1. Dockerfile syntax (``syntax.py``, words and quoting in ``shellwords.py``): instructions, stages, ARG,
     ENV, flags and heredocs, as BuildKit reads them.
  2. The image's conventions, read from RUN scripts (``scripts.py`` splits them into commands) and
     comments (``comments.py``): ``uv sync`` warm-up commands, the actor ``prefetch_venvs.py`` call(s),
     NeMo-Gym's own ``prefetch_venvs.py`` call (a second venv layer), ``uv pip install`` commands, the
     ``for actor in ...`` verification loop, count statements, the ``# Not prefetched`` list and
     ``filter -> extra`` rows.

Layer 2 is best effort: every convention is optional. A Dockerfile BuildKit parses is read; a convention
that is absent or phrased another way leaves its fact empty or becomes a ``Note`` (file:line) that the
lint reports. ``InputError(path, line, message)`` is kept for text that is really malformed: Dockerfile
syntax BuildKit rejects, a file without a stage, a shell quote left open in a command docgen reads,
``uv sync --extra`` without a value.

Every scan is linear in the input (regex chunks, never per-character string building): a 10 MB ARG
value or a 2 MB line of backticks reads in well under a second.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import re
from pathlib import Path
from typing import Literal, NamedTuple, overload

from docgen.errors import InputError
from docgen.fact import ARG_ALIASES, Fact, spoken
from docgen.inputs.comments import (
    CountStatement, MappingRow, Note, NotPrefetchedList, count_statement, mapping_rows, mixed_extras, not_prefetched_list,
    warm_rows,
)
from docgen.inputs.quoted import comment_blocks, comment_facts
from docgen.inputs.scope import UNKNOWN, Scope, Unknown
from docgen.inputs.scripts import (ASSIGNMENT, ShellCommand, after, after_located, command_words, roles,
                                   loop_values, shell_commands)
from docgen.inputs.shellwords import variable_name, variables
from docgen.inputs.syntax import (
    HEREDOC_KEYWORDS, KEYWORDS, Arg, EnvVar, Heredoc, Instruction, Stage, parse_syntax, split_lines, stage_label,
)
from docgen.io import read_input
from docgen.names import normalize

__all__ = [  # the syntax and comment records are re-exported: importers need only this module
    "KEYWORDS", "HEREDOC_KEYWORDS", "Heredoc", "Instruction", "Stage", "Arg", "EnvVar", "WarmSync", "PrefetchCall",
    "GymPrefetch", "Requirement", "PipInstall", "VerifyList", "CountStatement", "NotPrefetchedList", "MappingRow",
    "Note", "DockerfileFacts", "RunStep", "UNKNOWN", "Unknown", "read_dockerfile", "parse_dockerfile", "split_lines",
    "stage_label",
]

class WarmSync(NamedTuple):
    extras: tuple[str, ...]
    flags: tuple[str, ...]
    comment: str
    line: int
    stage: str | None


class PrefetchCall(NamedTuple):
    """One run of NeMo-RL's actor prefetch tool."""
    filters: tuple[str, ...]
    negative_filters: tuple[str, ...]
    line: int
    filter_lines: tuple[int, ...] = ()   # physical line of each filter (findings point at the filter itself)
    script: str = ""
    stage: str | None = None


class GymPrefetch(NamedTuple):
    """One run of NeMo-Gym's prefetch tool: a venv per environment server of the configs it is given."""
    script: str
    args: tuple[str, ...]           # its words, unexpanded (`${NEMO_GYM_PREFETCH_CONFIGS}`)
    arg_refs: tuple[str, ...]       # the build ARGs / variables those words expand
    line: int
    stage: str | None
    guards: tuple[str, ...]         # `if` conditions around the call
    comment: str


class Requirement(NamedTuple):
    spec: str                       # as written
    name: str                       # distribution name (a path or URL stays as written)
    pin: str | None                 # `==0.19.11`, `>=1`, a URL after `@`; None when unpinned
    editable: bool
    line: int


class PipInstall(NamedTuple):
    """A `uv pip install` command: what, into which interpreter, with or without dependencies."""
    packages: tuple[Requirement, ...]
    python: str | None              # the --python value, unexpanded
    no_deps: bool
    reason: str                     # its trailing comment, else the comment lines directly above it
    line: int
    stage: str | None


class VerifyList(NamedTuple):
    actors: tuple[str, ...]
    line: int


class RunStep(NamedTuple):
    """One RUN instruction as its shell reads it: its commands, the variables its script sets, and the
    commands, scripts and absolute paths it uses (their words expanded with what the Dockerfile sets there)."""
    instruction: Instruction
    commands: tuple[ShellCommand, ...]
    variables: tuple[str, ...]      # names the script assigns (`export A=..`, `A=..`, `for A in`, `read A`)
    assigned: tuple[tuple[str, str, int], ...]   # (name, value as written, line) of each `A=value` among them
    scripts: tuple[str, ...]        # words naming a script file (`*.py`, `*.sh`)
    paths: tuple[str, ...]          # absolute paths among its words
    removed: tuple[tuple[str, int], ...] = ()   # (path, line) of each absolute path an `rm` removes, expanded
    owned: tuple[tuple[str, str, int], ...] = ()   # (path, owner, line) of each absolute path a `chown` gives, expanded
    invocations: tuple[tuple[str, str, int], ...] = ()   # (program, its arguments as written, line) of each command

    @property
    def programs(self) -> tuple[str, ...]:
        """The first word of each simple command, once each."""
        return tuple(dict.fromkeys(program for program, _, _ in self.invocations))


class DockerfileFacts(NamedTuple):
    path: str
    syntax_directive: int | None
    instructions: tuple[Instruction, ...]
    stages: tuple[Stage, ...]
    args: tuple[Arg, ...]           # every ARG instruction's names, defaults expanded (a record, not an answer)
    envs: tuple[EnvVar, ...]        # every ENV instruction's keys, values expanded
    warm_syncs: tuple[WarmSync, ...]
    prefetch: PrefetchCall | None             # the first actor prefetch call (None: the image prefetches none)
    verify: VerifyList | None
    counts: tuple[CountStatement, ...]
    not_prefetched: NotPrefetchedList | None
    mixed_extras: tuple[tuple[str, int], ...] = ()   # `# docgen: mixed-extras <filter>` declarations, with lines
    prefetch_calls: tuple[PrefetchCall, ...] = ()    # every actor prefetch call, in file order
    gym_prefetch: tuple[GymPrefetch, ...] = ()       # NeMo-Gym's prefetch calls
    pip_installs: tuple[PipInstall, ...] = ()
    mapping: tuple[MappingRow, ...] = ()
    notes: tuple[Note, ...] = ()
    scope: Scope | None = None                       # BuildKit's scope: ask it through value() and expand()
    runs: tuple[RunStep, ...] = ()
    comments: tuple[tuple[int, str], ...] = ()      # every run of whole-line comments: (first line, text)

    # -- what a variable holds: the only answers ----------------------------------------------------
    def value(self, name: str, at=None) -> str | Unknown | None:
        """What ``$name`` holds at ``at`` as BuildKit evaluates the Dockerfile. ``at``: an Instruction (what
        it sees), a line (of the instruction holding it), a Stage or a stage's name (its end) or None (the end
        of the last stage). None: nothing sets it there (BuildKit expands it to ""); UNKNOWN: only the base image's
        config could set it."""
        return self._scope.value(name, self._at(at))

    @overload
    def expand(self, text: str, at=None, *, shell: Literal[True]) -> str: ...
    @overload
    def expand(self, text: str, at=None, *, shell: bool = False) -> str | Unknown: ...

    def expand(self, text: str, at=None, *, shell: bool = False) -> str | Unknown:
        """``text`` expanded as at ``at`` (see ``value``): as BuildKit expands an instruction's words, or,
        with ``shell``, as a RUN step's shell sees the names the Dockerfile sets (others left as written)."""
        return self._scope.expand(text, self._at(at), shell=shell)

    def origin(self, name: str, at=None) -> Arg | EnvVar | None:
        """The ARG or ENV record whose value ``$name`` holds at ``at`` (None: nothing sets it there)."""
        found = self._scope.binding(name, self._at(at))
        return found.record if found is not None else None

    def user(self, at=None) -> tuple[str | Unknown, int | None]:
        """The USER in force at ``at`` (None: the image's, at the end of the last stage), expanded, with the
        line that sets it; ("root", None) when none does on a stage from scratch, UNKNOWN on an outside image."""
        return self._scope.user(self._at(at))

    def workdir(self, at=None) -> tuple[str | Unknown, int | None]:
        """The working directory at ``at`` (see ``value``), expanded, with the line of the WORKDIR that sets it;
        ("/", None) when none does on a stage from scratch, UNKNOWN on an outside image."""
        return self._scope.workdir(self._at(at))

    def base(self, stage: str | Stage) -> tuple[str, bool]:
        """(what ``stage`` is built FROM, expanded as BuildKit expands the FROM line, whether that is an earlier
        stage (its label) rather than an image)."""
        return self._scope.base(self.stage(stage))

    def instruction_at(self, line: int) -> Instruction | None:
        """The instruction whose lines (heredoc bodies included) hold ``line``."""
        for ins in self.instructions:
            if ins.start_line <= line <= ins.end_line:
                return ins
        return None

    @property
    def _scope(self) -> Scope:
        assert self.scope is not None, "DockerfileFacts built without parse_dockerfile"
        return self.scope

    def _at(self, at):
        return self.stage(at) if isinstance(at, str) else at

    # -- facts --------------------------------------------------------------------------------------
    @property
    def facts(self) -> tuple[Fact, ...]:
        """What the Dockerfile states, as facts (docgen.fact): every ARG default and ENV value, every named
        stage with its base, the CUDA arch lists, the absolute paths ARG and ENV set, the scripts RUN steps
        run, the variables they set for their own commands and the paths they remove, and each sentence of the
        Dockerfile's comments."""
        return tuple(_stated_facts(self))

    # -- stages -------------------------------------------------------------------------------------
    def stage(self, name: str | Stage) -> Stage:
        """The stage called ``name`` (case-insensitive, as Docker), or by ``str(index)`` if unnamed."""
        if isinstance(name, Stage):
            return name
        for stage in self.stages:
            if stage_label(stage).lower() == name.lower():
                return stage
        raise KeyError(f"no stage {name!r} in {self.path}")

    def envs_of(self, stage: str | Stage) -> tuple[EnvVar, ...]:
        """The ENV records in force at the end of ``stage``: inherited along the ``FROM <earlier stage>``
        chain, later keys win."""
        return self._scope.stage_env(self.stage(stage))


def read_dockerfile(path: str | Path) -> DockerfileFacts:
    return parse_dockerfile(read_input(path, "Dockerfile"), str(path))


def parse_dockerfile(text: str, path: str = "Dockerfile") -> DockerfileFacts:
    syntax = parse_syntax(text, path)
    lines, instructions = syntax.lines, syntax.instructions
    runs = [(ins, cmd) for ins in instructions if ins.keyword == "RUN" for cmd in shell_commands(ins, lines, syntax.escape)]
    shell = [cmd for _, cmd in runs]
    scope: Scope | None = None
    try:
        scope = Scope(syntax, path)
    except InputError as exc:   # reported after the scripts' own errors: those come first
        scope_error = exc
    calls, gym = _prefetch_calls(shell, path)
    verify, verify_notes = _verify(shell, path)
    not_prefetched, not_prefetched_notes = not_prefetched_list(lines)
    warm = [_warm_syncs(cmd, path, scope) for cmd in shell]
    filters = {f for call in calls for f in call.filters}
    mapping, mapping_notes = mapping_rows(lines, filters) if filters else ((), ())
    if scope is None:
        raise scope_error
    return DockerfileFacts(
        path=path,
        syntax_directive=syntax.syntax_directive,
        instructions=instructions,
        stages=syntax.stages,
        args=tuple(scope.args),
        envs=tuple(scope.envs),
        warm_syncs=tuple(w for syncs, _ in warm for w in syncs),
        prefetch=calls[0] if calls else None,
        verify=verify,
        counts=tuple(c for n, line in enumerate(lines, 1) if (c := count_statement(line, n))),
        not_prefetched=not_prefetched,
        mixed_extras=mixed_extras(lines),
        prefetch_calls=calls,
        gym_prefetch=gym,
        pip_installs=tuple(p for ins, cmd in runs for p in _pip_installs(cmd, path, ins.comment)),
        mapping=mapping,
        notes=tuple(n for _, found in warm for n in found) + verify_notes + not_prefetched_notes + mapping_notes
              + tuple(scope.notes),
        scope=scope,
        comments=tuple(comment_blocks(text)),
        runs=tuple(sorted(_run_steps(runs, scope) + tuple(
            RunStep(ins, (), (), (), (), ()) for ins in instructions
            if ins.keyword == "RUN" and all(i is not ins for i, _ in runs)), key=lambda r: r.instruction.start_line)),
    )


def _warm_syncs(cmd: ShellCommand, path: str, scope: Scope | None = None) -> tuple[list[WarmSync], list[Note]]:
    """`uv sync` commands with their extras. An extra written as a loop variable (`for e in vllm fsdp; do
    uv sync --extra "$e"`) is one sync per loop word, one written as a build ARG or ENV (`--extra "$EXTRA"`) the
    value the scope gives it at that line; one docgen cannot resolve is left out, with a note.
    The comment of each sync: the trailing one (read over its wrapped lines), else the comment lines right
    above; above a command that warms several extras, an `extra: why` row per extra (`warm_rows`), and a
    comment docgen cannot give to one sync is a note, never dropped without a word."""
    pattern = r"\buv\s+sync\b"
    if "sync" not in cmd.code or not re.search(pattern, cmd.code):  # the word first: see _FOR_LOOP
        return [], []
    found: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    notes = []
    runs = after(cmd.tokens(path, pattern), "uv", "sync")
    line = cmd.line_of(pattern)
    in_loops = loop_values(cmd) if "$" in cmd.code else {}
    looped = False
    for rest in runs:
        extras, flags = [], []
        words = iter(rest)
        for word in words:
            if word == "--extra":
                value = next(words, "")
                if not value or value.startswith("-"):
                    raise InputError(path, line, "uv sync --extra without a value")
                extras.append(value)
            elif word.startswith("--extra="):
                if word == "--extra=":
                    raise InputError(path, line, "uv sync --extra without a value")
                extras.append(word.removeprefix("--extra="))
            elif word.startswith(("-", "$")):
                flags.append(word)
        variable = next((e for e in extras if "$" in e), None)
        if variable is None:
            found.append((tuple(extras), tuple(flags)))
            continue
        name = variable_name(variable)
        values = in_loops.get(name) if name else None
        if name and not values and scope is not None and isinstance(held := scope.value(name, line), str) and held:
            found.append((tuple(held if e == variable else e for e in extras), tuple(flags)))
            continue
        if not values or sum("$" in e for e in extras) > 1:
            notes.append(Note(line, "warm-steps", f"`uv sync --extra {variable}`: docgen cannot tell which extra "
                                                  "this warms (not a `for` loop variable); left out of the warm steps"))
            continue
        looped = True
        found += [(tuple(value if e == variable else e for e in extras), tuple(flags)) for value in values]
    comments, comment_notes = _warm_comments(cmd, found, looped, len(runs))
    notes += [Note(line, "warm-steps", message) for message in comment_notes]
    return [WarmSync(extras, flags, comment, line, cmd.stage)
            for (extras, flags), comment in zip(found, comments)], notes


def _warm_comments(cmd: ShellCommand, syncs: list[tuple[tuple[str, ...], tuple[str, ...]]], looped: bool,
                   runs: int) -> tuple[list[str], list[str]]:
    """The comment of each of a command's syncs, and what docgen could not give to one."""
    if cmd.comment:
        return [cmd.comment] * len(syncs), []
    above = cmd.above or (cmd.loop_above if looped else "")
    if not above.strip():
        return [""] * len(syncs), []
    if len(syncs) == 1 and runs == 1:
        return [" ".join(above.split())], []
    keys = [_sync_key(extras) for extras, _ in syncs]
    reasons, problems = warm_rows(above, tuple(dict.fromkeys(k for k in keys if k)))
    if reasons:
        return [" ".join(reasons.get(normalize(k), "").split()) if k else "" for k in keys], list(problems)
    if looped and runs == 1:
        return [" ".join(above.split())] * len(syncs), []   # a loop's comment speaks for every extra it warms
    first = above.strip().split("\n")[0]
    return [""] * len(syncs), [f"the comment above this command ({first!r}) belongs to none of its {len(syncs)} "
                               "syncs: write it on each sync's line, or as one `extra: why` row per extra; left unread"]


def _sync_key(extras: tuple[str, ...]) -> str:
    """The extra a row names for a sync: its one extra (a sync of several extras has no row)."""
    return extras[0] if len(extras) == 1 else ""


_PREFETCH_SCRIPT = "prefetch_venvs"


def _is_gym_script(script: str) -> bool:
    """NeMo-Gym's tool (``examples/nemo_gym/prefetch_venvs.py``) builds environment-server venvs; NeMo-RL's
    (``nemo_rl/utils/prefetch_venvs.py``) builds actor venvs. The folder (or package) tells them apart."""
    return any("gym" in part.lower() for part in script.removesuffix(".py").replace("/", ".").split(".")[:-1])


def _is_prefetch_script(tokens: list[tuple[str, int]], index: int) -> bool:
    """`.../prefetch_venvs.py` as a word of its own, or `python -m <package>.prefetch_venvs`."""
    token = tokens[index][0]
    if token.endswith("prefetch_venvs.py"):
        return not any(c.isspace() for c in token)  # a quoted sentence that mentions it is no call
    return token.endswith(_PREFETCH_SCRIPT) and index > 0 and tokens[index - 1][0] == "-m"


def _prefetch_calls(
    shell: list[ShellCommand], path: str
) -> tuple[tuple[PrefetchCall, ...], tuple[GymPrefetch, ...]]:
    """Every ``prefetch_venvs.py`` run: NeMo-RL's actor calls (filters, negative filters) and NeMo-Gym's."""
    pattern = r"prefetch_venvs\b"
    calls: list[PrefetchCall] = []
    gym: list[GymPrefetch] = []
    for cmd in shell:
        if _PREFETCH_SCRIPT not in cmd.code:
            continue
        tokens = cmd.located_tokens(path, pattern)
        for index, (token, line) in enumerate(tokens):
            if not _is_prefetch_script(tokens, index):
                continue  # only mentioned, e.g. inside an echo'd string
            rest = command_words(tokens[index + 1 :])
            if _is_gym_script(token):
                gym.append(GymPrefetch(token, tuple(w for w, _ in rest), variables(" ".join(w for w, _ in rest)),
                                       line, cmd.stage, cmd.guards, cmd.comment or cmd.above))
                continue
            filters: list[tuple[str, int]] = []
            negative: list[str] = []
            target: list | None = filters
            for word, word_line in rest:
                if word == "--negative-filters":
                    target = negative
                elif word.startswith("-"):
                    target = None  # some other option: its values are not filters
                elif target is filters:
                    filters.append((word, word_line))
                elif target is negative:
                    negative.append(word)
            calls.append(PrefetchCall(tuple(f for f, _ in filters), tuple(negative), line,
                                      tuple(n for _, n in filters), token, cmd.stage))
    return tuple(calls), tuple(gym)


# `uv pip install` options that take a value (the value is no package).
_PIP_VALUE_OPTIONS = frozenset(
    "-p --python -r --requirement -c --constraint --constraints --override --overrides -i --index-url "
    "--extra-index-url --index -f --find-links --index-strategy --keyring-provider --prefix --target "
    "--config-setting -C --python-version --python-platform --resolution --prerelease --exclude-newer "
    "--link-mode --compile-bytecode-dir --group --extra --torch-backend --reinstall-package "
    "--upgrade-package -P --no-binary --only-binary --refresh-package --no-build-isolation-package "
    "--build-constraints -b --cache-dir".split()
)
_REQUIREMENT_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$")


def _pip_installs(cmd: ShellCommand, path: str, run_comment: str = "") -> list[PipInstall]:
    """`uv pip install` commands; the reason is the command's trailing comment, else the comment lines
    directly above it in the script, else the Dockerfile comment above its RUN."""
    pattern = r"\buv\s+pip\s+install\b"
    if "pip" not in cmd.code or not re.search(pattern, cmd.code):  # the word first: see _FOR_LOOP
        return []
    found = []
    reason = cmd.comment or cmd.above or run_comment
    for rest in after_located(cmd.located_tokens(path, pattern), "uv", "pip", "install"):
        python, no_deps, packages = None, False, []
        words = iter(rest)
        for word, line in words:
            name, has_value, value = word.partition("=")
            if word in ("-e", "--editable"):
                target = next(words, None)
                if target is not None:
                    packages.append(_requirement(target[0], True, target[1]))
            elif has_value and name == "--editable":
                packages.append(_requirement(value, True, line))
            elif word in ("-p", "--python"):
                python = next(words, (None, 0))[0]
            elif has_value and name == "--python":
                python = value
            elif word == "--no-deps":
                no_deps = True
            elif word in _PIP_VALUE_OPTIONS:
                next(words, None)
            elif word.startswith("-"):
                continue
            else:
                packages.append(_requirement(word, False, line))
        line = cmd.line_of(pattern)
        found.append(PipInstall(tuple(packages), python, no_deps, reason, line, cmd.stage))
    return found


def _requirement(spec: str, editable: bool, line: int) -> Requirement:
    """``wandb==0.19.11`` -> (wandb, ==0.19.11); a path or URL keeps itself as its name, with no pin."""
    match = _REQUIREMENT_NAME.match(spec)
    if editable or match is None or "/" in spec.split("@")[0] or spec.startswith((".", "$")):
        return Requirement(spec, spec, None, editable, line)
    pin = match.group(3).split(";")[0].strip()
    name = match.group(1)
    if pin.startswith("@"):
        return Requirement(spec, name, pin[1:].strip() or None, editable, line)
    return Requirement(spec, name, pin or None, editable, line)


# module path, then a class name
_FQN_WORD = re.compile(r"[a-z_]\w*(?:\.[a-z_]\w*)+\.[A-Z]\w*")


# A search that starts with \b tries every position of the text; `in` finds the word itself at C speed, so each
# search of a command's code looks for its word first (bench/large_inputs.py, its 2 MB command lines).
_FOR_LOOP = re.compile(r"\bfor\s+(\w+)\s+in\b")


def _verify(shell: list[ShellCommand], path: str) -> tuple[VerifyList | None, tuple[Note, ...]]:
    """The verification loop: `for actor in ...`, or a `for VAR in ...` loop whose words all look like actor
    FQNs (`package.module.ClassName`; `for cfg in a.yaml b.yaml` is some other loop).
    More than one such loop: their lists are joined and a note says so."""
    found: list[VerifyList] = []
    for cmd in shell:
        if "for" not in cmd.code or not (loop := _FOR_LOOP.search(cmd.code)):
            continue
        pattern = r"\bfor\s+" + loop.group(1) + r"\s+in\b"
        line = cmd.line_of(pattern)
        for actors in after(cmd.tokens(path, pattern, until=r";\s*do\b"), "for", loop.group(1), "in"):
            if actors and (loop.group(1) == "actor" or all(_FQN_WORD.fullmatch(a) for a in actors)):
                found.append(VerifyList(tuple(actors), line))
    if not found:
        return None, ()
    notes = tuple(Note(v.line, "verify-list", f"a second verification loop (first at line {found[0].line}); "
                                              "docgen reads the loops' actors together") for v in found[1:])
    return VerifyList(tuple(dict.fromkeys(a for v in found for a in v.actors)), found[0].line), notes


_NAME_WORD = re.compile(r"[A-Za-z_]\w*(?:=.*)?", re.DOTALL)
_SCRIPT_SUFFIXES = (".py", ".sh", ".bash")


def _run_steps(runs: list[tuple[Instruction, ShellCommand]], scope: Scope) -> tuple[RunStep, ...]:
    """Each RUN with what its shell commands set and use; a command docgen cannot split is left out of the
    words (the conventions above report it) but keeps its place among the commands."""
    by_ins: dict[int, tuple[Instruction, list[ShellCommand]]] = {}
    for ins, cmd in runs:
        by_ins.setdefault(ins.start_line, (ins, []))[1].append(cmd)
    steps = []
    for ins, commands in by_ins.values():
        names: list[str] = []
        assigned: list[tuple[str, str, int]] = []
        words: list[str] = []
        removed: list[tuple[str, int]] = []
        owned: list[tuple[str, str, int]] = []
        invocations: list[tuple[str, str, int]] = []
        for cmd in commands:
            try:
                located = cmd.words()
            except ValueError:
                continue
            tokens = [w for w, _ in located]
            for index, word, role in roles(tokens):
                if role == "operator":
                    continue
                if role == "assignment":   # `A=1 cmd` or `A=1` alone
                    name = word[:word.index("=")]
                    names.append(name)
                    assigned.append((name, word[len(name) + 1:], cmd.line_at(located[index][1])))
                    continue
                if role == "reserved":
                    if word == "for" and index + 1 < len(tokens):
                        names.append(tokens[index + 1])
                    continue
                if role == "command":
                    invocations.append((word, " ".join(_until_operator(tokens[index + 1:])),
                                        cmd.line_at(located[index][1])))
                    if word == "export" or word == "read" or word == "local":
                        for offset, w in enumerate(_until_operator(tokens[index + 1:]), index + 1):
                            if not _NAME_WORD.fullmatch(w):
                                continue
                            m = ASSIGNMENT.match(w)
                            names.append(m.group(0) if m else w)
                            if m and word != "read":
                                assigned.append((m.group(0), w[m.end() + 1:], cmd.line_at(located[offset][1])))
                    if word == "rm":
                        removed += [(path, cmd.line_at(located[offset][1])) for offset, w in
                                    enumerate(_until_operator(tokens[index + 1:]), index + 1)
                                    if _absolute(path := _as_run(scope, ins, w))]
                    if word == "chown":   # `chown [-R] OWNER PATH...`
                        operands = [(o, w) for o, w in enumerate(_until_operator(tokens[index + 1:]), index + 1)
                                    if not w.startswith("-")]
                        owner = _as_run(scope, ins, operands[0][1]) if operands else ""
                        owned += [(path, owner, cmd.line_at(located[o][1])) for o, w in operands[1:]
                                  if _absolute(path := _as_run(scope, ins, w).rstrip("/") or "/")]
                words.append(word)
        expanded = [_as_run(scope, ins, w) for w in words]
        steps.append(RunStep(
            ins, tuple(commands), tuple(dict.fromkeys(names)), tuple(assigned),
            tuple(dict.fromkeys(script for w in expanded if (script := w.rpartition("=")[2]).endswith(_SCRIPT_SUFFIXES)
                                and not any(c.isspace() for c in script))),
            tuple(dict.fromkeys(w for w in expanded if _absolute(w))), tuple(removed), tuple(owned), tuple(invocations)))
    return tuple(steps)


def _as_run(scope: Scope, ins: Instruction, word: str) -> str:
    """A shell word of a RUN step as the shell gets it: its variables as the scope holds them there."""
    return scope.expand(word, ins, shell=True) if "$" in word else word


def _copy_paths(args: str) -> list[str]:
    """A COPY's sources and destination, after its flags (`ins.flags`): the JSON form where the rest parses as a
    list of strings (else BuildKit reads it as the shell form, as here)."""
    words = args.split()
    while words and words[0].startswith("--"):
        args = args.lstrip()[len(words.pop(0)):]
    if args.lstrip().startswith("["):
        with contextlib.suppress(ValueError):
            if isinstance(listed := json.loads(args), list) and all(isinstance(p, str) for p in listed):
                return listed
    return words


def _absolute(path: str) -> bool:
    return path.startswith("/") and len(path) > 1


def _until_operator(tokens: list[str]) -> list[str]:
    out = []
    for word in tokens:
        if word and not word.strip("();<>|&"):
            break
        out.append(word)
    return out


def _stated_facts(df: DockerfileFacts):
    path = df.path
    arg_aliases: dict[str, list[str]] = {}
    for alias, name in ARG_ALIASES.items():
        arg_aliases.setdefault(name, []).append(alias)
    for arg in df.args:
        if arg.default is not None:
            yield Fact("arg", arg.name, arg.default, f"{path}:{arg.line}", (arg.name,),
                       (spoken(arg.name), *arg_aliases.get(arg.name, ())))
            if "ARCH" in arg.name.upper() and arg.default:
                yield Fact("cuda-arch", arg.name, arg.default, f"{path}:{arg.line}", (arg.name,))
            if arg.default.startswith("/") and " " not in arg.default:
                yield Fact("path", arg.default, "present", f"{path}:{arg.line}", (arg.default,))
    for env in df.envs:
        yield Fact("env", env.key, env.value, f"{path}:{env.line}", (env.key,), (spoken(env.key),))
        if env.value.startswith("/"):
            yield Fact("path", env.value, "present", f"{path}:{env.line}", (env.value,))
    for stage in df.stages:
        if stage.name:
            yield Fact("stage", stage.name, stage.base, f"{path}:{stage.line}", (stage.name,))
    for run in df.runs:
        for script in run.scripts:
            yield Fact("script", script, "run by a build step", f"{path}:{run.instruction.start_line}", (script,))
        for name, value, line in run.assigned:
            # an environment-style name set to a literal: what the step's commands see (`export UV_LINK_MODE=copy`)
            if name.isupper() and value and not value.startswith("$"):
                yield Fact("run-var", name, value, f"{path}:{line}", (name,), (spoken(name),))
    # what each stage removes, a step's own scratch files under /tmp left out: each path is a fact whose value is
    # the stage and all it removes ("the published stage only removes CMake" is about the whole list)
    by_stage: dict[str, list[tuple[str, int]]] = {}
    for run in df.runs:
        by_stage.setdefault(run.instruction.stage or "(unnamed)", []).extend(
            (removed, line) for removed, line in run.removed if not removed.startswith("/tmp/"))
    for removing, paths in by_stage.items():
        listed = f"{removing}: {' '.join(sorted({p for p, _ in paths}))}"
        for removed, line in paths:
            # named by its path, and by its last part where that is a plain word ("removes CMake")
            base = removed.rstrip("/").rpartition("/")[2]
            yield Fact("removed", removed, listed, f"{path}:{line}",
                       (removed, *([base] if re.fullmatch(r"[A-Za-z][A-Za-z-]{2,}[A-Za-z]", base) else [])))
    # what each COPY takes and leaves out, named by the paths (`3rdparty/`) beside the kind's words; and who owns
    # a path: the last `COPY --chown` to it (its destination, from the working directory) or `chown` of it, in the
    # order BuildKit runs them, named by the path
    owners: dict[str, tuple[str, int]] = {}
    runs = {run.instruction.start_line: run for run in df.runs}
    for ins in df.instructions:
        if ins.keyword in ("COPY", "ADD") and not ins.heredocs:
            *sources, dest = _copy_paths(ins.args) or ["?"]
            origin = ins.flags.get("from", ("the build context",))[-1]
            for source in sources:
                yield Fact("copy", f"{dest} takes {source}", f"from {origin}", f"{path}:{ins.start_line}",
                           (source.rstrip("/") or source,))
            for pattern in ins.flags.get("exclude", ()):
                kept = pattern.startswith("!")   # `--exclude=!x`: x is copied after all
                yield Fact("copy", f"{dest} {'keeps' if kept else 'leaves out'} {pattern.lstrip('!')}",
                           f"from {origin}", f"{path}:{ins.start_line}", (pattern.lstrip("!").rstrip("/"),))
            if not ins.flags.get("chown"):
                continue
            workdir = df.workdir(ins)[0]
            if not dest.startswith("/") and isinstance(workdir, str):
                dest = posixpath.normpath(posixpath.join(workdir, dest))
            owner = df.expand(ins.flags["chown"][-1], at=ins)
            if dest.startswith("/") and isinstance(owner, str):
                owners[dest.rstrip("/") or "/"] = (owner, ins.start_line)
        elif ins.keyword == "RUN" and ins.start_line in runs:
            owners.update((p, (owner, line)) for p, owner, line in runs[ins.start_line].owned)
    for owned, (owner, line) in owners.items():
        yield Fact("owner", owned, owner, f"{path}:{line}", (owned,))
    yield from comment_facts(path, df.comments)   # what the Dockerfile says of itself, which a page may repeat
