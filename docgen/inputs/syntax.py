"""Dockerfile syntax as BuildKit's lexer reads it, every fact with its 1-based line: parser directives
(``# escape=`` chooses a backtick), instructions with their continuations (comment and blank lines inside
a continuation run dropped), the comment block above each, heredocs, leading flags, stages, ARG and ENV.
Written here rather than borrowed because every fact needs its exact line for errors and links.

``InputError(path, line, message)`` for what BuildKit rejects.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from docgen.errors import InputError
from docgen.inputs.shellwords import heredoc_name, shell_words
from docgen.text import split_lines as text_lines

KEYWORDS = frozenset(
    "ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL MAINTAINER ONBUILD RUN SHELL "
    "STOPSIGNAL USER VOLUME WORKDIR".split()
)
HEREDOC_KEYWORDS = frozenset({"RUN", "COPY", "ADD"})  # the only instructions Docker reads heredocs for

# The escape characters ``# escape=`` may choose; BuildKit accepts no others. Shell text (a heredoc body)
# keeps the shell's own backslash continuation whatever the directive says.
_ESCAPES = ("\\", "`")
_DIRECTIVE = re.compile(r"#\s*(syntax|escape|check)\s*=\s*(\S.*)", re.IGNORECASE)
HEREDOC_WORD = re.compile(r"\d*<<(-?)([^<]+)")  # a whole shell word, as BuildKit: [fd]<<[-]WORD
_LEADING_FLAG = re.compile(r"--([A-Za-z][\w-]*)(?:=(\S*))?(?:\s+|$)")  # matched at a position, never searched


class Heredoc(NamedTuple):
    name: str
    body: str  # body lines, each ending in "\n"; leading tabs removed for <<-
    start_line: int  # first body line


class Instruction(NamedTuple):
    keyword: str
    args: str
    flags: dict[str, tuple[str, ...]]
    start_line: int
    end_line: int
    heredocs: tuple[Heredoc, ...]
    comment: str
    stage: str | None


class Stage(NamedTuple):
    name: str | None
    position: int   # its place among the stages, from 0 (BuildKit names an unnamed stage by it)
    base: str
    line: int
    instructions: tuple[Instruction, ...]


class Arg(NamedTuple):
    name: str
    default: str | None
    stage: str | None
    line: int
    comment: str
    raw: str | None = None      # the default as written, when expansion changed it (`default` is expanded)


class EnvVar(NamedTuple):
    key: str
    value: str                  # expanded as BuildKit expands it (docgen.inputs.scope)
    stage: str | None
    line: int
    raw: str | None = None      # the value as written, when expansion changed it


class Syntax(NamedTuple):
    """A Dockerfile read as instructions: what the conventions layer builds its facts on."""
    lines: list[str]                     # as Docker splits them
    escape: str                          # the escape character
    syntax_directive: int | None         # line of `# syntax=`
    instructions: tuple[Instruction, ...]
    stages: tuple[Stage, ...]


def parse_syntax(text: str, path: str) -> Syntax:
    lines = split_lines(text.removeprefix("\ufeff"))  # BuildKit skips a UTF-8 byte order mark
    syntax_line, directive_lines, escape = _directives(lines, path)
    stages, instructions = _stages(_instructions(lines, path, directive_lines, escape), path)
    if not stages:  # BuildKit builds nothing from it: "dockerfile contains no stages to build"
        raise InputError(path, len(lines) or None, "no FROM instruction: the Dockerfile contains no stages to build")
    return Syntax(lines, escape, syntax_line, instructions, stages)


def split_lines(text: str) -> list[str]:
    """Lines as Docker reads them: split at "\n" only, a trailing "\r" dropped. (str.splitlines would also
    split at form feeds and Unicode line separators, cutting a comment in two and shifting line numbers.)"""
    return [line[:-1] if line.endswith("\r") else line for line in text_lines(text)]


def _directives(lines: list[str], path: str) -> tuple[int | None, set[int], str]:
    """Parser directives: known ``# key=value`` lines at the very top, ended by any other line.
    Returns the ``# syntax=`` line, the directive lines and the escape character (``# escape=``)."""
    syntax, seen, keys, escape = None, set(), set(), "\\"
    for number, line in enumerate(lines, 1):
        if not (match := _DIRECTIVE.fullmatch(line.strip())):
            break
        key, value = match.group(1).lower(), match.group(2).strip()
        if key in keys:
            raise InputError(path, number, f"only one {key} parser directive can be used")
        seen.add(number)
        keys.add(key)
        if key == "syntax":
            syntax = number
        elif key == "escape":
            if value not in _ESCAPES:
                raise InputError(path, number, f"invalid escape token {value!r} does not match ` or \\")
            escape = value
    return syntax, seen, escape


def continues(text: str, escape: str) -> bool:
    """Whether a line continues on the next, as BuildKit reads it: the escape character, then only blanks."""
    return text.rstrip(" \t").endswith(escape)


def without_continuation(text: str, escape: str) -> str:
    """The line without its continuation (the escape character and the blanks after it), if it has one."""
    kept = text.rstrip(" \t")
    return kept[:-1] if kept.endswith(escape) else text


def is_comment(line: str) -> bool:
    """A comment line: `#` after blanks only."""
    return line.lstrip().startswith("#")


def comment_text(line: str) -> str:
    """A comment line's text: what follows its `#` and one space after it, without trailing blanks."""
    return line.lstrip()[1:].removeprefix(" ").rstrip()


def _instructions(lines: list[str], path: str, skip: set[int], escape: str) -> list[Instruction]:
    found: list[Instruction] = []
    comment: list[str] = []
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        if number in skip or not line.strip():
            comment = []  # a blank line detaches the comment block from what follows
            i += 1
            continue
        if is_comment(line):
            comment.append(comment_text(line))
            i += 1
            continue
        pieces = [(number, line)]
        while continues(pieces[-1][1], escape):
            i += 1
            while i < len(lines) and (not lines[i].strip() or is_comment(lines[i])):
                i += 1  # Docker drops comment and blank lines inside a continuation run
            if i >= len(lines):
                raise InputError(path, pieces[-1][0], f"line continuation '{escape}' at end of file")
            pieces.append((i + 1, lines[i]))
        i += 1
        keyword, first_args = (pieces[0][1].split(None, 1) + [""])[:2]
        keyword = keyword.upper()
        if keyword not in KEYWORDS:
            raise InputError(path, number, f"unknown instruction {keyword!r}")
        parts = [first_args] + [text for _, text in pieces[1:]]
        args = " ".join(p for p in (without_continuation(p, escape).strip() for p in parts) if p)
        heredocs: list[Heredoc] = []
        if keyword in HEREDOC_KEYWORDS and any("<<" in text for _, text in pieces):
            joined = [(n, without_continuation(text, escape)) for n, text in pieces]  # BuildKit joins them without a blank
            for marker_line, word in shell_words(joined) or []:  # a quote left open: BuildKit finds no heredoc
                if (marker := HEREDOC_WORD.fullmatch(word)) and (name := heredoc_name(marker.group(2))):
                    heredoc, i = _read_heredoc(lines, i, marker.group(1) == "-", name, marker_line, path)
                    heredocs.append(heredoc)
        found.append(
            Instruction(
                keyword=keyword,
                args=args,
                flags=_leading_flags(args),
                start_line=number,
                end_line=i if heredocs else pieces[-1][0],
                heredocs=tuple(heredocs),
                comment="\n".join(comment),
                stage=None,
            )
        )
        comment = []
    return found


def _read_heredoc(
    lines: list[str], i: int, strip_tabs: bool, name: str, marker_line: int, path: str
) -> tuple[Heredoc, int]:
    """Body starts at lines[i]; returns the heredoc and the index after its terminator."""
    body: list[str] = []
    start = i + 1
    while i < len(lines):
        text = lines[i].lstrip("\t") if strip_tabs else lines[i]
        i += 1
        if text == name:
            return Heredoc(name, "".join(b + "\n" for b in body), start), i
        body.append(text)
    raise InputError(path, marker_line, f"heredoc <<{name} is never terminated")


def _leading_flags(args: str) -> dict[str, tuple[str, ...]]:
    flags: dict[str, list[str]] = {}
    pos = 0
    while match := _LEADING_FLAG.match(args, pos):
        flags.setdefault(match.group(1), []).append(match.group(2) or "")
        pos = match.end()
    return {name: tuple(values) for name, values in flags.items()}


def without_flags(args: str) -> str:
    pos = 0
    while match := _LEADING_FLAG.match(args, pos):
        pos = match.end()
    return args[pos:]


def stage_label(stage: Stage) -> str:
    return stage.name if stage.name is not None else str(stage.position)


def _stages(instructions: list[Instruction], path: str) -> tuple[tuple[Stage, ...], tuple[Instruction, ...]]:
    """Split instructions into stages and stamp each with its stage label (None before the first FROM)."""
    heads: list[tuple[str | None, str, int]] = []  # (name, base, line) per FROM
    names: set[str | None] = set()
    members: list[list[Instruction]] = []
    labelled: list[Instruction] = []
    for ins in instructions:
        if ins.keyword == "FROM":
            name, base = _from(ins, path)
            if name is not None and name in names:
                raise InputError(path, ins.start_line, f"duplicate stage name {name!r}")
            names.add(name)
            heads.append((name, base, ins.start_line))
            members.append([])
        elif not heads and ins.keyword != "ARG":
            raise InputError(path, ins.start_line, f"{ins.keyword} before the first FROM (only ARG may come first)")
        if heads:
            ins = ins._replace(stage=heads[-1][0] if heads[-1][0] is not None else str(len(heads) - 1))
            members[-1].append(ins)
        labelled.append(ins)
    stages = tuple(
        Stage(name=name, position=index, base=base, line=line, instructions=tuple(members[index]))
        for index, (name, base, line) in enumerate(heads)
    )
    return stages, tuple(labelled)


def _from(ins: Instruction, path: str) -> tuple[str | None, str]:
    words = without_flags(ins.args).split()
    if not words:
        raise InputError(path, ins.start_line, "FROM without an image")
    if len(words) >= 2 and words[1].upper() == "AS":
        if len(words) == 2:
            raise InputError(path, ins.start_line, "FROM ... AS without a stage name")
        if len(words) == 3:
            return words[2].lower(), words[0]  # Docker matches stage names case-insensitively
    if len(words) != 1:
        raise InputError(path, ins.start_line, "FROM expects 'image [AS name]'")
    return None, words[0]
