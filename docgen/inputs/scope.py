"""ARG and ENV values as BuildKit expands them, stage by stage.

BuildKit's scoping, which this walk follows in file order:
  - an ARG before the first FROM is global: it is visible to FROM lines, and inside a stage only after a
    bare ``ARG NAME`` (or ``ARG NAME=default``) redeclares it there;
  - an ARG inside a stage is visible from its line to the end of that stage, never in a later stage;
  - ENV is visible from its line on and passes to every stage built ``FROM`` that stage; ENV wins over an
    ARG of the same name;
  - every word of one ENV (or ARG) instruction is expanded against the values before that instruction.

A reference that cannot be resolved is expanded to the empty string, as BuildKit does, and becomes a
``Note`` (file:line) the lint reports, so no placeholder reaches a page. The one exception is a name no
ARG of the file declares, in a stage built on an outside image: that image's own environment may set it
(``ENV PATH=/x:$PATH``), so the reference is left as written.
"""

from __future__ import annotations

from docgen.errors import InputError
from docgen.inputs.comments import Note
from docgen.inputs.shellwords import split_expanded, split_words
from docgen.inputs.syntax import Arg, EnvVar, Syntax, without_flags

UNRESOLVED = "unresolved-variable"


class _Stage:
    """What a stage's instructions see at the current line."""

    def __init__(self, label: str | None, env: dict[str, str], external: bool) -> None:
        self.label = label
        self.env = env                        # ENV, inherited and own
        self.args: dict[str, str | None] = {}  # ARGs declared in this stage (None: declared, no value)
        self.external = external              # built on an image outside this Dockerfile


def resolve(syntax: Syntax, path: str) -> tuple[tuple[Arg, ...], tuple[EnvVar, ...], tuple[Note, ...]]:
    """Every ARG (its default expanded) and ENV (its value expanded), in file order, with a note for each
    reference that cannot be resolved."""
    declared = _declared_names(syntax, path)
    meta: dict[str, str | None] = {}
    finished: dict[str, dict[str, str]] = {}   # stage name -> its ENV at the end of the stage
    stage: _Stage | None = None
    args: list[Arg] = []
    envs: list[EnvVar] = []
    notes: list[Note] = []
    for ins in syntax.instructions:
        if ins.keyword == "FROM":
            if stage is not None and stage.label is not None:
                finished[stage.label] = dict(stage.env)
            base = (without_flags(ins.args).split() or [""])[0].lower()
            parent = finished.get(base)
            stage = _Stage(ins.stage, dict(parent) if parent is not None else {},
                           external=parent is None and base != "scratch")
            continue
        if ins.keyword not in ("ARG", "ENV"):
            continue

        def lookup(name: str, stage: _Stage | None = stage) -> str | None:
            if stage is None:
                return meta.get(name)
            if name in stage.env:
                return stage.env[name]
            return stage.args.get(name)

        try:
            words, missing = split_expanded(ins.args, lookup, syntax.escape)
        except ValueError as exc:
            raise InputError(path, ins.start_line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None
        if not words:
            raise InputError(path, ins.start_line, "ARG without a name" if ins.keyword == "ARG" else "ENV with no value")
        raw = [w for w, _ in split_words(ins.args, operators=False, escape=syntax.escape)]
        outside = stage is not None and stage.external
        kept = {n for n in missing if outside and n not in declared}   # the base image may set it
        lost = [n for n in missing if n not in kept]
        if lost:
            notes.append(Note(ins.start_line, UNRESOLVED, _unresolved_message(ins.keyword, lost, stage, meta)))
            words = _emptied(ins.args, lookup, kept, syntax.escape)
        if ins.keyword == "ARG":
            for (word, _), written in zip(words, raw):
                name, has_default, default = word.partition("=")
                if not name:
                    raise InputError(path, ins.start_line, f"ARG without a name in {written!r}")
                value = default if has_default else None
                if stage is None:
                    meta[name] = value
                else:
                    stage.args[name] = value if has_default else meta.get(name)
                written_default = written.partition("=")[2] if has_default else None
                args.append(Arg(name, value, ins.stage, ins.start_line, ins.comment,
                                written_default if written_default != value else None))
            continue
        found = _env_words(words, raw, ins, path)
        for key, value, written in found:
            envs.append(EnvVar(key, value, ins.stage, ins.start_line, written if written != value else None))
        if stage is not None:
            stage.env.update((key, value) for key, value, _ in found)
    return tuple(args), tuple(envs), tuple(notes)


def _emptied(text: str, lookup, kept: set[str], escape: str) -> list[tuple[str, int]]:
    """The words again, each unresolvable reference expanded to "" (BuildKit's value) except the ``kept``
    ones, which stay as written."""
    def with_empty(name: str) -> str | None:
        value = lookup(name)
        if value is not None:
            return value
        return None if name in kept else ""
    return split_expanded(text, with_empty, escape)[0]


def _unresolved_message(keyword: str, names: list[str], stage: _Stage | None, meta: dict) -> str:
    parts = []
    for name in names:
        if stage is not None and name in meta and name not in stage.args:
            parts.append(f"${{{name}}} is a global ARG that stage {stage.label!r} does not redeclare "
                         f"(add a bare `ARG {name}` to the stage)")
        elif stage is not None and name in stage.args:
            parts.append(f"${{{name}}} is declared in stage {stage.label!r} without a value")
        else:
            where = "before the first FROM" if stage is None else f"in stage {stage.label!r}"
            parts.append(f"${{{name}}} is not set {where}")
    return (f"{keyword} expands " + "; ".join(parts) + ": BuildKit expands it to an empty string, so docgen "
            "cannot state this value")


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
    names = set()
    for ins in syntax.instructions:
        if ins.keyword == "ARG":
            try:
                words = split_words(ins.args, operators=False, escape=syntax.escape)
            except ValueError as exc:
                raise InputError(path, ins.start_line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None
            names.update(w.partition("=")[0] for w, _ in words)
    return names
