"""What each ARG and ENV holds at each instruction, as BuildKit evaluates the Dockerfile: the one scope
behind ``DockerfileFacts.value(name, at=...)`` and ``DockerfileFacts.expand(text, at=...)``.

BuildKit's scoping, which this walk follows in file order:
  - an ARG before the first FROM is global: every FROM line sees it; inside a stage it is visible only
    after ``ARG NAME`` redeclares it there (a bare ``ARG NAME`` takes the global's default, ``ARG
    NAME=other`` shadows it with its own);
  - an ARG inside a stage is visible from its line to the end of that stage, and in a stage built ``FROM``
    it (BuildKit passes the parent's ARG values on, though Docker's reference says an ARG ends with its
    stage: tests/image/test_buildkit_scope.py holds docgen to BuildKit);
  - ENV is visible from its line on and passes to every stage built ``FROM`` that stage, over an ARG of
    the same name there (the image's config is applied again at the stage's start);
  - ARG and ENV set one environment: of the two, the later line wins (an ENV after an ARG of the same
    name overrides it, and an ARG with a value after an ENV overrides that for the stage's later steps);
  - every word of one ENV (or ARG) instruction is expanded against the values before that instruction.

A stage FROM scratch starts with BuildKit's default PATH. A name nothing in scope sets is unset, and
BuildKit expands it to the empty string: that is a ``Note`` (file:line) the lint reports, so no placeholder reaches a page. The exception is a name no ARG of the
file declares, in a stage that rests on an image outside this Dockerfile: that image's own config may set
it (``ENV PATH=/x:$PATH``), so its value is ``UNKNOWN``, never the empty string, and the ENV keeps the
reference as written.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Literal, NamedTuple, cast, overload

from docgen.errors import InputError
from docgen.inputs.comments import Note
from docgen.inputs.shellwords import expand_references, split_expanded, split_words
from docgen.inputs.syntax import Arg, EnvVar, Instruction, Stage, Syntax, stage_label

UNRESOLVED = "unresolved-variable"
# The PATH BuildKit gives a stage FROM scratch (an image's config sets its own).
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Unknown:
    """The value of a name that only the base image's own config can set: docgen cannot know it. Falsy,
    and never equal to a string (least of all the empty one)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __str__(self) -> str:
        return "unknown (set by the base image, if at all)"

    def __bool__(self) -> Literal[False]:
        return False


UNKNOWN = Unknown()


class Binding(NamedTuple):
    """One name set at one line: by an ARG or ENV instruction, or inherited from the stage a stage is built
    FROM (at that FROM's line). ``record`` is where the value is written (a global ARG's line for a bare
    ``ARG NAME`` that takes its default)."""
    line: int
    value: str | None           # None: declared without a value (BuildKit leaves it unset)
    record: Arg | EnvVar


class _StageScope:
    """What a stage's instructions see: bindings by name, in line order."""

    def __init__(self, stage: Stage, inherited: dict[str, Binding], env: dict[str, Binding], external: bool) -> None:
        self.stage = stage
        self.external = external                 # rests on an image outside this Dockerfile
        self.base = stage.base                   # the FROM's base, expanded (a stage's label for a stage)
        self.parent: _StageScope | None = None   # the stage it is built FROM
        self.history: dict[str, list[Binding]] = {k: [b._replace(line=stage.line)] for k, b in inherited.items()}
        self.env: dict[str, Binding] = env       # ENV as it passes on to a stage built FROM this one

    def current(self, name: str, before: float) -> Binding | None:
        bindings = self.history.get(name)
        if not bindings:
            return None
        at = bisect_right([b.line for b in bindings], before - 0.5) - 1   # strictly before `before`
        return bindings[at] if at >= 0 else None


class Scope:
    """The walk's result: every binding of every name, by stage, and the lookups over them."""

    def __init__(self, syntax: Syntax, path: str) -> None:
        self.path = path
        self.escape = syntax.escape
        self.stages: list[_StageScope] = []
        self.meta: dict[str, list[Binding]] = {}      # global ARGs, in line order
        self.declared = _declared_names(syntax, path)
        self.args: list[Arg] = []
        self.envs: list[EnvVar] = []
        self.notes: list[Note] = []
        self.settings: dict[tuple[str, int], list[Instruction]] = {}   # (USER or WORKDIR, stage index) -> them
        self._walk(syntax)
        self._starts = [s.stage.line for s in self.stages]

    # -- lookups ------------------------------------------------------------------------------------
    def point(self, at) -> tuple[_StageScope | None, float]:
        """(stage scope, line) of a point: an Instruction (what it sees: the values before it), a line, a
        Stage (its end), or None (the end of the last stage). A FROM line sees the global scope."""
        if at is None:
            return self.stages[-1], float("inf")
        if isinstance(at, Stage):
            return self.stages[at.position], float("inf")
        line = at.start_line if isinstance(at, Instruction) else int(at)
        index = bisect_right(self._starts, line) - 1
        if index < 0 or self._starts[index] == line:
            return None, line
        return self.stages[index], line

    def binding(self, name: str, at=None) -> Binding | None:
        stage, line = self.point(at)
        if stage is None:
            bindings = [b for b in self.meta.get(name, ()) if b.line < line]
            return bindings[-1] if bindings else None
        return stage.current(name, line)

    def value(self, name: str, at=None) -> str | Unknown | None:
        """What ``$name`` holds at ``at``: its value; None when nothing sets it there (BuildKit expands it to
        ""); UNKNOWN when only the base image's config could set it."""
        found = self.binding(name, at)
        if found is not None:
            return found.value
        stage, _ = self.point(at)
        if stage is not None and stage.external and name not in self.declared:
            return UNKNOWN
        return None

    @overload
    def expand(self, text: str, at=None, *, shell: Literal[True]) -> str: ...
    @overload
    def expand(self, text: str, at=None, *, shell: bool = False) -> str | Unknown: ...

    def expand(self, text: str, at=None, *, shell: bool = False) -> str | Unknown:
        """``text`` with every reference expanded as at ``at``. An instruction's words (``shell=False``), as
        BuildKit expands them: the `${X:-d}` / `${X:+a}` forms, quotes removed, an unset name empty; UNKNOWN
        when the text names a value only the base image knows. A RUN step's shell text (``shell=True``): each
        name the Dockerfile sets replaced, every other reference left for the shell (the script may set it)."""
        if shell:
            def known(name: str) -> str | None:
                value = self.value(name, at)
                return value if isinstance(value, str) else None
            return expand_references(text, known)[0]
        unknown = False

        def lookup(name: str) -> str | None:
            nonlocal unknown
            value = self.value(name, at)
            if isinstance(value, Unknown):
                unknown = True
                return None
            return value
        try:
            words, _ = split_expanded(text, lookup, self.escape, _EMPTY)
        except ValueError as exc:
            raise InputError(self.path, getattr(at, "start_line", None), f"cannot split {text!r}: {exc}") from None
        return UNKNOWN if unknown else " ".join(w for w, _ in words)

    def base(self, stage: Stage) -> tuple[str, bool]:
        """(what ``stage`` starts FROM, expanded, whether that is an earlier stage rather than an image)."""
        scope = self.stages[stage.position]
        return scope.base, scope.parent is not None

    def stage_env(self, stage: Stage) -> tuple[EnvVar, ...]:
        """The ENV records in force at the end of ``stage`` (inherited ones included), in the order set."""
        scope = self.stages[stage.position]
        return tuple(sorted((cast(EnvVar, b.record) for b in scope.env.values()), key=lambda e: e.line))

    def user(self, at=None) -> tuple[str | Unknown, int | None]:
        """The USER in force at ``at`` (expanded as at its own line), with its line: the stage's own, else
        the one of the stage it is built FROM. ("root", None) when no USER of the Dockerfile sets one on a
        stage from scratch; UNKNOWN on an outside image (its config may name a user)."""
        found = self._settings("USER", at)
        if not found:
            return self._unset("root", at), None
        return self.expand(found[-1].args, found[-1]), found[-1].start_line

    def workdir(self, at=None) -> tuple[str | Unknown, int | None]:
        """The working directory at ``at``: its WORKDIRs expanded, a relative one taken from the one before,
        with the line of the last; ("/", None) when none sets one on a stage from scratch, UNKNOWN on an outside
        image (its config may set one)."""
        found = self._settings("WORKDIR", at)
        if not found:
            return self._unset("/", at), None
        path: str | Unknown = self._unset("/", at)
        for ins in found:
            step = self.expand(ins.args, ins)
            if isinstance(step, Unknown):
                path = UNKNOWN
            elif step.startswith("/"):
                path = step
            elif isinstance(path, str):
                path = path.rstrip("/") + "/" + step
        return path, found[-1].start_line

    def _unset(self, default: str, at) -> str | Unknown:
        """What a stage that sets nothing holds: the default on a stage from scratch, UNKNOWN on an image."""
        stage, _ = self.point(at)
        while stage is not None and stage.parent is not None:
            stage = stage.parent
        return UNKNOWN if stage is not None and stage.external else default

    def _settings(self, keyword: str, at) -> list[Instruction]:
        """The ``keyword`` instructions in force at ``at``, oldest first: those of the stage chain it is built
        FROM, then its own before it."""
        stage, line = self.point(at)
        chain = []
        current = stage
        while current is not None:
            chain.append(current)
            current = current.parent
        found = []
        for link in reversed(chain):
            found += [i for i in self.settings.get((keyword, link.stage.position), ())
                      if link is not stage or i.start_line < line]
        return found

    # -- the walk -----------------------------------------------------------------------------------
    def _walk(self, syntax: Syntax) -> None:
        stage: _StageScope | None = None
        for ins in syntax.instructions:
            if ins.keyword == "FROM":
                stage = self._enter(syntax.stages[len(self.stages)])
                continue
            if ins.keyword in ("USER", "WORKDIR") and stage is not None:
                self.settings.setdefault((ins.keyword, stage.stage.position), []).append(ins)
                continue
            if ins.keyword in ("ARG", "ENV"):
                self._declare(ins, stage)

    def _enter(self, stage: Stage) -> _StageScope:
        """A stage starts from an earlier stage (its ENV passes on) or an image: its base as the FROM line
        expands it, against the global ARGs."""
        try:
            words, _ = split_expanded(stage.base, self._lookup(None, stage.line), self.escape, _EMPTY)
        except ValueError as exc:
            raise InputError(self.path, stage.line, f"FROM: cannot split {stage.base!r}: {exc}") from None
        base = " ".join(w for w, _ in words)
        parents = [s for s in self.stages if s.stage.name == base.lower()]
        parent = parents[-1] if parents else None
        inherited: dict[str, Binding] = {}
        if parent is None and base.lower() == "scratch":
            path = EnvVar("PATH", DEFAULT_PATH, stage_label(stage), stage.line)
            inherited["PATH"] = Binding(stage.line, DEFAULT_PATH, path)
        if parent is not None:   # the parent's ARGs as they end, then its ENV over them (BuildKit re-applies it)
            inherited = {name: bindings[-1] for name, bindings in parent.history.items() if bindings}
            inherited.update(parent.env)
        scope = _StageScope(stage, inherited, dict(parent.env) if parent else {},
                            external=parent.external if parent else base.lower() != "scratch")
        scope.base, scope.parent = (stage_label(parent.stage) if parent else base), parent
        self.stages.append(scope)
        return scope

    def _lookup(self, stage: _StageScope | None, line: int):
        def lookup(name: str) -> str | None:
            if stage is None:
                meta = self.meta.get(name)
                return meta[-1].value if meta else None
            found = stage.current(name, line)
            return found.value if found else None
        return lookup

    def _declare(self, ins: Instruction, stage: _StageScope | None) -> None:
        path, line = self.path, ins.start_line
        lookup = self._lookup(stage, line)
        try:
            words, missing = split_expanded(ins.args, lookup, self.escape)
        except ValueError as exc:
            raise InputError(path, line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None
        if not words:
            raise InputError(path, line, "ARG without a name" if ins.keyword == "ARG" else "ENV with no value")
        raw = [w for w, _ in split_words(ins.args, operators=False, escape=self.escape)]
        outside = stage is not None and stage.external
        kept = {n for n in missing if outside and n not in self.declared}   # the base image may set it
        lost = [n for n in missing if n not in kept]
        if lost:
            self.notes.append(Note(line, UNRESOLVED, self._unresolved_message(ins.keyword, lost, stage)))
            words = split_expanded(ins.args, lookup, self.escape, lambda n: None if n in kept else "")[0]
        if ins.keyword == "ARG":
            for (word, _), written in zip(words, raw):
                name, has_default, default = word.partition("=")
                if not name:
                    raise InputError(path, line, f"ARG without a name in {written!r}")
                value = default if has_default else None
                written_default = written.partition("=")[2] if has_default else None
                arg = Arg(name, value, ins.stage, line, ins.comment,
                          written_default if written_default != value else None)
                self.args.append(arg)
                if stage is None:
                    self.meta.setdefault(name, []).append(Binding(line, value, arg))
                    continue
                origin: Arg | EnvVar = arg
                if not has_default:
                    inherited = self.meta.get(name)
                    value = inherited[-1].value if inherited else None
                    if value is None and stage.current(name, line + 1) is not None:
                        continue   # a bare ARG adds nothing over what the stage already holds (BuildKit)
                    if inherited:
                        origin = inherited[-1].record   # the value is the global's, written on its line
                stage.history.setdefault(name, []).append(Binding(line, value, origin))
            return
        for key, value, written in _env_words(words, raw, ins, path):
            env = EnvVar(key, value, ins.stage, line, written if written != value else None)
            self.envs.append(env)
            if stage is not None:
                stage.history.setdefault(key, []).append(Binding(line, value, env))
                stage.env[key] = Binding(line, value, env)

    def _unresolved_message(self, keyword: str, names: list[str], stage: _StageScope | None) -> str:
        parts = []
        for name in names:
            label = stage_label(stage.stage) if stage is not None else None
            own = stage.history.get(name) if stage is not None else None
            if stage is not None and name in self.meta and not own:
                parts.append(f"${{{name}}} is a global ARG that stage {label!r} does not redeclare "
                             f"(add a bare `ARG {name}` to the stage)")
            elif own:
                parts.append(f"${{{name}}} is declared in stage {label!r} without a value")
            else:
                where = "before the first FROM" if stage is None else f"in stage {label!r}"
                parts.append(f"${{{name}}} is not set {where}")
        return (f"{keyword} expands " + "; ".join(parts) + ": BuildKit expands it to an empty string, so docgen "
                "cannot state this value")


def _EMPTY(name: str) -> str:
    """BuildKit's value of an unset name in an instruction's words."""
    return ""


def _env_words(words: list[tuple[str, int]], raw: list[str], ins, path: str) -> list[tuple[str, str, str]]:
    """(key, value, value as written) of an ENV: `KEY=VALUE ...`, or the legacy `KEY value with spaces`."""
    if "=" not in raw[0]:
        if len(words) < 2:
            raise InputError(path, ins.start_line, f"ENV {words[0][0]} with no value")
        return [(words[0][0], " ".join(w for w, _ in words[1:]), " ".join(raw[1:]))]
    found = []
    for (word, _), written in zip(words, raw):
        key, has_value, value = word.partition("=")
        if not has_value or not key:
            raise InputError(path, ins.start_line, f"ENV expects KEY=VALUE, got {written!r}")
        found.append((key, value, written.partition("=")[2]))
    return found


def _declared_names(syntax: Syntax, path: str) -> set[str]:
    """Every name an ARG of the file declares, wherever it is."""
    names: set[str] = set()
    for ins in syntax.instructions:
        if ins.keyword == "ARG":
            try:
                words = split_words(ins.args, operators=False, escape=syntax.escape)
            except ValueError as exc:
                raise InputError(path, ins.start_line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None
            names.update(w.partition("=")[0] for w in (w for w, _ in words))
    return names
