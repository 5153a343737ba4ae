"""Read a Dockerfile into plain facts with 1-based line numbers.

Two layers:
  1. Dockerfile syntax: instructions (with ``\\`` continuations, or backtick ones under ``# escape=```,
     comments inside continuation runs, heredocs), stages, ARG, ENV and instruction flags. Written here
     rather than borrowed, because we need the exact line of every fact for error messages and
     documentation links.
  2. The image's shell conventions, read from RUN scripts: ``uv sync`` warm-up commands, the actor
     ``prefetch_venvs.py`` call(s), NeMo-Gym's own ``prefetch_venvs.py`` call (a second venv layer),
     ``uv pip install`` commands, the ``for actor in ...`` verification loop, and comment forms
     (``N things -> M things`` count statements, the ``# Not prefetched`` list, ``filter -> extra`` rows).

Layer 2 is best effort: every convention is optional. A Dockerfile BuildKit parses is read; a convention
that is absent or phrased another way leaves its fact empty or becomes a ``Note`` (file:line) that the
lint reports. ``InputError(path, line, message)`` is kept for text that is really malformed: Dockerfile
syntax BuildKit rejects, a file without a stage, a shell quote left open in a command docgen reads,
``uv sync --extra`` without a value.

Every scan is linear in the input (regex chunks, never per-character string building): a 10 MB ARG
value or a 2 MB line of backticks reads in well under a second.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path
from typing import NamedTuple

from docgen.errors import InputError
from docgen.io import read_input
from docgen.names import NUMBER_WORDS

KEYWORDS = frozenset(
    "ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL MAINTAINER ONBUILD RUN SHELL "
    "STOPSIGNAL USER VOLUME WORKDIR".split()
)
HEREDOC_KEYWORDS = frozenset({"RUN", "COPY", "ADD"})  # the only instructions Docker reads heredocs for

# The escape characters ``# escape=`` may choose; BuildKit accepts no others. Shell text (a heredoc body)
# keeps the shell's own backslash continuation whatever the directive says.
_ESCAPES = ("\\", "`")
# Patterns kept as strings serve rare paths: `re` compiles each on first use (and caches it), so a run
# that never needs one does not pay for it.
_DIRECTIVE = r"(?i)^#\s*(syntax|escape|check)\s*=\s*(\S.*)$"
_HEREDOC_WORD = re.compile(r"\d*<<(-?)([^<]+)")  # a whole shell word, as BuildKit: [fd]<<[-]WORD
_LEADING_FLAG = re.compile(r"--([A-Za-z][\w-]*)(?:=(\S*))?(?:\s+|$)")  # matched at a position, never searched
_NUMBER_WORDS = NUMBER_WORDS
# A count as a comment states it, `<number> <noun>` ("Eight filters", "9 venvs"), and the blanks after it.
# The noun is a letter, then letters, `_` or `-`. Compiled (about 0.5 ms under IGNORECASE) only for a count
# comment that is not ASCII: on ASCII text `_ascii_pair_at_start` and `_ascii_pair_at_end` read exactly what
# it matches with str methods (there IGNORECASE is plain ASCII case, \s what str.split splits at, \d 0-9).
_COUNT_PAIR = r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\s+((?![_-])[A-Za-z_-]+)\s*"
_NOT_PREFETCHED_HEADER = re.compile(r"^\s*#\s*Not prefetched\b", re.IGNORECASE)
_NOT_PREFETCHED_ENTRY = re.compile(r"^\s*#\s+([A-Za-z_]\w*(?:\.\w+)+)(.*)$")
_SHELLS = frozenset({"sh", "bash", "dash"})


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
    index: int
    base: str
    line: int
    instructions: tuple[Instruction, ...]


class Arg(NamedTuple):
    name: str
    default: str | None
    stage: str | None
    line: int
    comment: str


class EnvVar(NamedTuple):
    key: str
    value: str
    stage: str | None
    line: int


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


class CountStatement(NamedTuple):
    counts: tuple[tuple[int, str], ...]
    text: str
    line: int


class NotPrefetchedList(NamedTuple):
    actors: tuple[tuple[str, str], ...]   # (FQN, reason) entries, one per comment line
    line: int
    prose: str = ""                       # the same written as a sentence on the header line (and after it)


class MappingRow(NamedTuple):
    """`#   <filter>  -> <extra>  (why)`: a comment table row saying which extra a filter's venvs get."""
    filter: str
    extra: str
    why: str
    line: int


class Note(NamedTuple):
    """A convention docgen found but could not read as written; the lint reports it (never an error)."""
    line: int
    check: str
    message: str


class DockerfileFacts(NamedTuple):
    path: str
    syntax_directive: int | None
    instructions: tuple[Instruction, ...]
    stages: tuple[Stage, ...]
    args: tuple[Arg, ...]
    envs: tuple[EnvVar, ...]
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

    def stage(self, name: str | Stage) -> Stage:
        """The stage called ``name`` (case-insensitive, as Docker), or by ``str(index)`` if unnamed."""
        if isinstance(name, Stage):
            return name
        for stage in self.stages:
            if _stage_label(stage).lower() == name.lower():
                return stage
        raise KeyError(f"no stage {name!r} in {self.path}")

    def envs_of(self, stage: str | Stage) -> tuple[EnvVar, ...]:
        """ENV effective in ``stage``: inherited along the ``FROM <earlier stage>`` chain, later keys win."""
        chain: list[Stage] = []
        current: Stage | None = self.stage(stage)
        while current is not None:
            chain.append(current)
            earlier = [s for s in self.stages[: current.index] if s.name and s.name == current.base.lower()]
            current = earlier[-1] if earlier else None
        effective: dict[str, EnvVar] = {}
        for link in reversed(chain):
            for env in self.envs:
                if env.stage == _stage_label(link):
                    effective[env.key] = env
        return tuple(effective.values())


# A comment anywhere in the file that declares a filter meant to select actors of different extras
# (a pattern string: compiled on first use).
MIXED_DECLARATION = r"^\s*#\s*docgen:\s*mixed-extras\s+(\S+)"


def read_dockerfile(path: str | Path) -> DockerfileFacts:
    return parse_dockerfile(read_input(path, "Dockerfile"), str(path))


def split_lines(text: str) -> list[str]:
    """Lines as Docker reads them: split at "\n" only, a trailing "\r" dropped. (str.splitlines would also
    split at form feeds and Unicode line separators, cutting a comment in two and shifting line numbers.)"""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_dockerfile(text: str, path: str = "Dockerfile") -> DockerfileFacts:
    lines = split_lines(text.removeprefix("\ufeff"))  # BuildKit skips a UTF-8 byte order mark
    syntax_line, directive_lines, escape = _directives(lines, path)
    stages, instructions = _stages(_instructions(lines, path, directive_lines, escape), path)
    if not stages:  # BuildKit builds nothing from it: "dockerfile contains no stages to build"
        raise InputError(path, len(lines) or None, "no FROM instruction: the Dockerfile contains no stages to build")
    runs = [(ins, cmd) for ins in instructions if ins.keyword == "RUN" for cmd in _shell_commands(ins, lines, escape)]
    shell = [cmd for _, cmd in runs]
    calls, gym = _prefetch_calls(shell, path)
    verify, verify_notes = _verify(shell, path)
    not_prefetched, not_prefetched_notes = _not_prefetched(lines)
    warm = [_warm_syncs(cmd, path) for cmd in shell]
    filters = {f for call in calls for f in call.filters}
    return DockerfileFacts(
        path=path,
        syntax_directive=syntax_line,
        instructions=instructions,
        stages=stages,
        args=tuple(a for ins in instructions if ins.keyword == "ARG" for a in _args(ins, path, escape)),
        envs=tuple(e for ins in instructions if ins.keyword == "ENV" for e in _envs(ins, path, escape)),
        warm_syncs=tuple(w for syncs, _ in warm for w in syncs),
        prefetch=calls[0] if calls else None,
        verify=verify,
        counts=tuple(c for n, line in enumerate(lines, 1) if (c := _count_statement(line, n))),
        not_prefetched=not_prefetched,
        mixed_extras=tuple((m.group(1), n) for n, line in enumerate(lines, 1)
                           if "docgen:" in line and (m := re.match(MIXED_DECLARATION, line))),
        prefetch_calls=calls,
        gym_prefetch=gym,
        pip_installs=tuple(p for ins, cmd in runs for p in _pip_installs(cmd, path, ins.comment)),
        mapping=_mapping_rows(lines, filters) if filters else (),
        notes=tuple(n for _, found in warm for n in found) + verify_notes + not_prefetched_notes,
    )


# ---- layer 1: Dockerfile syntax ---------------------------------------------------------------


def _directives(lines: list[str], path: str) -> tuple[int | None, set[int], str]:
    """Parser directives: known ``# key=value`` lines at the very top, ended by any other line.
    Returns the ``# syntax=`` line, the directive lines and the escape character (``# escape=``)."""
    syntax, seen, keys, escape = None, set(), set(), "\\"
    for number, line in enumerate(lines, 1):
        if "=" not in line or not (match := re.match(_DIRECTIVE, line.strip())):
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


def _continues(text: str, escape: str) -> bool:
    """Whether a line continues on the next, as BuildKit reads it: the escape character, then only blanks."""
    return text.rstrip(" \t").endswith(escape)


def _without_continuation(text: str, escape: str) -> str:
    """The line without its continuation (the escape character and the blanks after it), if it has one."""
    kept = text.rstrip(" \t")
    return kept[:-1] if kept.endswith(escape) else text


def _is_comment(line: str) -> bool:
    """A comment line: `#` after blanks only (what `^\\s*#` matches: \\s and str.lstrip agree on blanks)."""
    return line.lstrip().startswith("#")


def _comment_text(line: str) -> str:
    """A comment line's text: what follows its `#` and one space after it, without trailing blanks."""
    return line.lstrip()[1:].removeprefix(" ").rstrip()


def _starts_with_word(text: str, word: str) -> bool:
    """`text` starts with `word` as a whole word: no word character (letter, digit, `_`) follows it."""
    after = text[len(word) : len(word) + 1]
    return text.startswith(word) and not (after.isalnum() or after == "_")


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
        if _is_comment(line):
            comment.append(_comment_text(line))
            i += 1
            continue
        pieces = [(number, line)]
        while _continues(pieces[-1][1], escape):
            i += 1
            while i < len(lines) and (not lines[i].strip() or _is_comment(lines[i])):
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
        args = " ".join(p for p in (_without_continuation(p, escape).strip() for p in parts) if p)
        heredocs: list[Heredoc] = []
        if keyword in HEREDOC_KEYWORDS and any("<<" in text for _, text in pieces):
            joined = [(n, _without_continuation(text, escape)) for n, text in pieces]  # BuildKit joins them without a blank
            for marker_line, word in _shell_words(joined) or []:  # a quote left open: BuildKit finds no heredoc
                if (marker := _HEREDOC_WORD.fullmatch(word)) and (name := _heredoc_name(marker.group(2))):
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


# Text in chunks, as a POSIX shell quotes it: one regex step per run of ordinary characters or per quoted
# string, so a megabyte-long word costs one match (the reader never builds strings char by char). E stands
# for the escape character: the shell's backslash, or in an instruction's words the Dockerfile's (`# escape=`).
_CHUNK_TEMPLATE = r"""
      (?P<space>\s+)
    | (?P<plain>[^\s'"E\#();<>|&]+)
    | (?P<sq>'[^']*')
    | (?P<dq>"[^"E]*(?:E.[^"E]*)*")
    | (?P<esc>E.)
    | (?P<hash>\#)
    | (?P<op>[();<>|&]+)
    | (?P<open>['"E])
    """
_CHUNK = re.compile(_CHUNK_TEMPLATE.replace("E", r"\\"), re.VERBOSE | re.DOTALL)
_BACKTICK_CHUNK = _CHUNK_TEMPLATE.replace("E", "`")   # under escape=` only (a pattern string, see above)
# What the escape character escapes inside double quotes: in the shell \ " $ and `; in an instruction's
# words (BuildKit's lexer) only " $ and the escape character itself, the rest keeps it.
_DQ_ESCAPE = {None: r'\\([\\"$`])', "\\": r'\\([\\"$])', "`": r'`([`"$])'}


def _chunks(text: str, pos: int = 0, escape: str | None = None):
    """(kind, start, end) of each chunk; kind "open" is a quote never closed or a lone final escape
    character. `escape`: None for shell text, else the Dockerfile's escape character."""
    pattern = re.compile(_BACKTICK_CHUNK, re.VERBOSE | re.DOTALL) if escape == "`" else _CHUNK
    end = len(text)
    while pos < end:
        match = pattern.match(text, pos)
        assert match is not None  # every character starts some alternative
        yield match.lastgroup, pos, match.end()
        pos = match.end()


def _unquote(kind: str, chunk: str, escape: str | None = None) -> str:
    if kind == "sq":
        return chunk[1:-1]
    if kind == "dq":
        inner = chunk[1:-1]
        # split keeps the escaped character (the group) and drops its escape; sub with a template is
        # ten times slower on a value full of escapes
        return "".join(re.split(_DQ_ESCAPE[escape], inner)) if (escape or "\\") in inner else inner
    if kind == "esc":
        return chunk[1:]
    return chunk


def _split_posix(text: str, *, operators: bool, escape: str | None = None) -> list[tuple[str, int]]:
    """Words of `text` with quotes removed, each with its start offset. With `operators`, runs of
    ``();<>|&`` are tokens of their own (as shlex's punctuation_chars). `escape`: None for shell text, the
    Dockerfile's escape character for an instruction's words. Raises ValueError for an open quote."""
    words: list[tuple[str, int]] = []
    parts: list[str] = []
    start = 0
    for kind, begin, end in _chunks(text, 0, escape):
        if kind == "space" or (operators and kind == "op"):
            if parts:
                words.append(("".join(parts), start))
                parts = []
            if kind == "op":
                words.append((text[begin:end], begin))
            continue
        if kind == "open":
            if text[begin] == (escape or "\\"):
                continue  # a lone escape at the very end, dropped
            raise ValueError("No closing quotation")
        if not parts:
            start = begin
        parts.append(_unquote(kind, text[begin:end], escape))
    if parts:
        words.append(("".join(parts), start))
    return words


def _shell_words(pieces: list[tuple[int, str]]) -> list[tuple[int, str]] | None:
    """Words of the pieces' text joined as is, split at unquoted blanks, quotes and ``\\`` escapes kept
    (as BuildKit splits a line to find heredocs; a mid-line ``#`` is no comment there). Each word comes
    with the line it starts on; None when a quote is left open."""
    text = "".join(piece for _, piece in pieces)
    starts, offset = [], 0
    for _, piece in pieces:
        starts.append(offset)
        offset += len(piece)
    words: list[tuple[int, str]] = []
    begin_word = None
    for kind, begin, end in _chunks(text):
        if kind == "open":   # an unclosed quote, or a lone escape at the very end (BuildKit's lexer drops it)
            if text[begin] != "\\":
                return None
        if kind == "space" or kind == "open":
            if begin_word is not None and begin > begin_word:
                words.append((pieces[bisect_right(starts, begin_word) - 1][0], text[begin_word:begin]))
            begin_word = None
            continue
        if begin_word is None:
            begin_word = begin
    if begin_word is not None:
        words.append((pieces[bisect_right(starts, begin_word) - 1][0], text[begin_word:]))
    return words


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


def _heredoc_name(word: str) -> str | None:
    try:
        words = _split_posix(word, operators=False)
    except ValueError:
        return None
    return words[0][0] if words else None


def _leading_flags(args: str) -> dict[str, tuple[str, ...]]:
    flags: dict[str, list[str]] = {}
    pos = 0
    while match := _LEADING_FLAG.match(args, pos):
        flags.setdefault(match.group(1), []).append(match.group(2) or "")
        pos = match.end()
    return {name: tuple(values) for name, values in flags.items()}


def _without_flags(args: str) -> str:
    pos = 0
    while match := _LEADING_FLAG.match(args, pos):
        pos = match.end()
    return args[pos:]


def _stage_label(stage: Stage) -> str:
    return stage.name if stage.name is not None else str(stage.index)


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
        Stage(name=name, index=index, base=base, line=line, instructions=tuple(members[index]))
        for index, (name, base, line) in enumerate(heads)
    )
    return stages, tuple(labelled)


def _from(ins: Instruction, path: str) -> tuple[str | None, str]:
    words = _without_flags(ins.args).split()
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


def _words(ins: Instruction, path: str, escape: str) -> list[str]:
    """The instruction's words as BuildKit's lexer reads them, with the Dockerfile's escape character."""
    try:
        return [word for word, _ in _split_posix(ins.args, operators=False, escape=escape)]
    except ValueError as exc:
        raise InputError(path, ins.start_line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None


def _args(ins: Instruction, path: str, escape: str) -> list[Arg]:
    words = _words(ins, path, escape)
    if not words:
        raise InputError(path, ins.start_line, "ARG without a name")
    found = []
    for word in words:
        name, has_default, default = word.partition("=")
        if not name:
            raise InputError(path, ins.start_line, f"ARG without a name in {word!r}")
        found.append(Arg(name, default if has_default else None, ins.stage, ins.start_line, ins.comment))
    return found


def _envs(ins: Instruction, path: str, escape: str) -> list[EnvVar]:
    words = _words(ins, path, escape)
    if not words:
        raise InputError(path, ins.start_line, "ENV with no value")
    if "=" not in words[0]:  # legacy form: ENV KEY value with spaces
        if len(words) < 2:
            raise InputError(path, ins.start_line, f"ENV {words[0]} with no value")
        return [EnvVar(words[0], " ".join(words[1:]), ins.stage, ins.start_line)]
    found = []
    for word in words:
        key, has_value, value = word.partition("=")
        if not has_value or not key:
            raise InputError(path, ins.start_line, f"ENV expects KEY=VALUE, got {word!r}")
        found.append(EnvVar(key, value, ins.stage, ins.start_line))
    return found


# ---- layer 2: shell conventions inside RUN ----------------------------------------------------


class _ShellCommand:
    """One shell command with ``\\`` continuations joined; keeps the physical lines it came from.
    (A plain class, not a NamedTuple: it never leaves the reader, and its joined ``code``, which every
    convention reader looks at, is built once here.)"""

    __slots__ = ("pieces", "comment", "stage", "above", "guards", "loops", "code")

    def __init__(
        self,
        pieces: tuple[tuple[int, str], ...],  # (line, code without trailing comment and backslash)
        comment: str,  # trailing comment of its last physical line
        stage: str | None,
        above: str = "",  # the comment lines directly above it (a heredoc's own comments), joined by "\n"
        guards: tuple[str, ...] = (),  # conditions of the `if ...` blocks it sits in, outermost first
        loops: tuple[tuple[str, tuple[str, ...]], ...] = (),  # (variable, words) of the `for` loops around it
    ) -> None:
        self.pieces, self.comment, self.stage, self.above = pieces, comment, stage, above
        self.guards, self.loops = guards, loops
        self.code = " ".join(text.strip() for _, text in pieces)

    def line_of(self, pattern: str) -> int:
        """Physical line where ``pattern`` first appears, else the command's first line."""
        for number, text in self.pieces:
            if re.search(pattern, text):
                return number
        return self.pieces[0][0]

    def tokens(self, path: str, pattern: str, until: str | None = None) -> list[str]:
        return [word for word, _ in self.located_tokens(path, pattern, until)]

    def located_tokens(self, path: str, pattern: str, until: str | None = None) -> list[tuple[str, int]]:
        """Shell words and operators of the command, quotes removed, each with its physical line; with
        `until`, only of the text before that pattern (a loop's body can hold words nobody reads)."""
        code = self.code
        if until is not None and (stop := re.search(until, code)):
            code = code[: stop.start()]
        try:
            words = _split_posix(code, operators=True)
        except ValueError as exc:
            raise InputError(path, self.line_of(pattern), f"cannot split shell command: {exc}") from None
        starts, offset = [], 0
        for _, text in self.pieces:
            starts.append(offset)
            offset += len(text.strip()) + 1
        return [(word, self.pieces[bisect_right(starts, at) - 1][0]) for word, at in words]


_DQ_REST = r'(?s)[^"\\]*(?:\\.[^"\\]*)*"'


# Script text up to its comment: ordinary characters, whole quoted strings, escapes and any `#` that does not
# start a word (`a#b`, `'x'#`); it stops at the comment's `#`, at a quote never closed or at a lone final
# backslash. One match per line (possessive: nothing to backtrack into), where `_chunks` would take a step
# per word and quote.
_CODE = re.compile(r"""(?:[^'"\\#]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.|(?<=\S)\#)*+""", re.DOTALL)


def _scan_shell_line(line: str, quote: str) -> tuple[str, str, str]:
    """(code, trailing comment, quote still open at the end) of one script line that starts inside `quote`
    ("" = none): a quoted string may run over several lines, as the shell reads it."""
    start = 0
    if quote:
        if quote == "'":
            start = line.find("'") + 1
        else:
            closed = re.match(_DQ_REST, line)
            start = closed.end() if closed else 0
        if start == 0:
            return line, "", quote
    if "#" not in line and "'" not in line and '"' not in line:
        return line, "", ""
    end = _CODE.match(line, start).end()
    if end == len(line):
        return line, "", ""
    if line[end] == "#":
        return line[:end], line[end + 1 :].strip(), ""
    return line, "", line[end] if line[end] != "\\" else ""  # a quote left open, or a lone final backslash


_IF_START = re.compile(r"^\s*(?:if|elif)\s+(.*?)\s*;?\s*(?:then\b.*)?$")
_NESTED_HEREDOC = r"(?<![<\d])\d*<<(?!<)(-?)((?:['\"]?[A-Za-z_][\w.-]*['\"]?)?)$"


def _join_shell(
    numbered: list[tuple[int, str]], stage: str | None, escape: str = "\\"
) -> list[_ShellCommand]:
    """Commands of a script, one per logical line: ``\\`` continuations and quoted strings that run on
    joined; the body of a heredoc inside the script (``cat > f <<'X'``) is data, never commands."""
    commands, pieces, above = [], [], []
    guards: list[str] = []
    loops: list[tuple[str, tuple[str, ...]]] = []
    quote = ""
    heredoc: tuple[str, bool] | None = None  # (terminator, strip tabs) of a heredoc the script opened
    for number, line in numbered:
        if heredoc is not None:
            if (line.lstrip("\t") if heredoc[1] else line) == heredoc[0]:
                heredoc = None
            continue
        if not pieces and (not line.strip() or _is_comment(line)):
            if not line.strip():
                above = []
            elif "->" not in line or not _count_statement(line, number):  # a count claims, it gives no reason
                above.append(_comment_text(line))
            continue
        code, comment, quote = _scan_shell_line(line, quote)
        if quote or (_continues(code, escape) and not comment):
            pieces.append((number, code if quote else _without_continuation(code, escape)))
            continue
        pieces.append((number, code))
        command = _ShellCommand(tuple(pieces), comment, stage, "\n".join(above), tuple(guards), tuple(loops))
        commands.append(command)
        guards = _track_guards(command.code, guards)
        loops = _track_loops(command.code, loops)
        heredoc = _script_heredoc(command.code) if "<<" in command.code else None
        pieces, above = [], []
    if pieces:
        commands.append(_ShellCommand(tuple(pieces), "", stage, "\n".join(above), tuple(guards), tuple(loops)))
    return commands


def _script_heredoc(code: str) -> tuple[str, bool] | None:
    """The terminator of the first heredoc a script command opens (``<<EOF``, ``<<-'X'``, ``<< "END"``)."""
    words = [w for _, w in _shell_words([(0, code)]) or []]
    for index, word in enumerate(words):
        if word[:1] in "'\"" or not (match := re.search(_NESTED_HEREDOC, word)):
            continue
        target = match.group(2) or (words[index + 1] if index + 1 < len(words) else "")
        name = _heredoc_name(target) if target else None
        if name:
            return name, match.group(1) == "-"
    return None


_FOR_HEAD = re.compile(r"^\s*for\s+(\w+)\s+in\s+(.*?)\s*(?:;\s*)?(?:\bdo\b.*)?$")
_COMMAND_END = ";&|"


def _has_closing_word(code: str, word: str) -> bool:
    """Whether `word` (`fi`, `done`) stands in `code` as a command of its own: at the start or after a blank
    or one of ``;&|``, and followed (blanks aside) by the end or one of ``;&|``."""
    at = code.find(word)
    while at >= 0:
        before = code[at - 1 : at]
        end = at + len(word)
        while end < len(code) and code[end].isspace():
            end += 1
        if (not before or before in _COMMAND_END or before.isspace()) and (end == len(code) or code[end] in _COMMAND_END):
            return True
        at = code.find(word, at + 1)
    return False


def _loop_words(text: str) -> tuple[str, ...]:
    try:
        return tuple(word for word, _ in _split_posix(text, operators=False))
    except ValueError:
        return ()


def _track_loops(code: str, loops: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """The `for VAR in WORDS` loops open after `code` (a one-line loop that ends in `done` opens none)."""
    lead = code.lstrip()
    done = _has_closing_word(code, "done")
    if (head := lead.startswith("for") and _FOR_HEAD.match(code)) and not done:  # the test spares most a regex
        return loops + [(head.group(1), _loop_words(head.group(2)))]
    if done and not lead.startswith("for ") and loops:
        return loops[:-1]
    return loops


def _loop_values(cmd: "_ShellCommand") -> dict[str, tuple[str, ...]]:
    """Loop variables visible to `cmd`: the loops around it and a one-line `for ...; do ...` in it."""
    values = dict(cmd.loops)
    for match in re.finditer(r"\bfor\s+(\w+)\s+in\s+([^;]*?)\s*;\s*do\b", cmd.code):
        values[match.group(1)] = _loop_words(match.group(2))
    return values


def _track_guards(code: str, guards: list[str]) -> list[str]:
    """The `if` conditions open after `code` (a one-line `if ...; then ...; fi` opens none); `elif` and
    `else` replace the innermost condition."""
    stripped = code.strip()
    closes = _has_closing_word(code, "fi")
    if (opened := stripped.startswith(("if", "elif")) and _IF_START.match(code)) and not closes:  # spares a regex
        condition = opened.group(1).removesuffix(";").strip()
        if stripped.startswith("elif") and guards:
            return guards[:-1] + [condition]
        return guards + [condition]
    if _starts_with_word(stripped, "else") and guards and not closes:
        return guards[:-1] + [f"not ({guards[-1]})"]
    if closes and not stripped.startswith("if ") and guards:
        return guards[:-1]
    return guards


def _shell_commands(ins: Instruction, lines: list[str], escape: str) -> list[_ShellCommand]:
    """Shell commands of a RUN: its heredoc bodies, or (without heredocs) the instruction itself.
    ``escape`` (the escape directive's) continues the instruction's lines; a body keeps the shell's ``\\``.

    A heredoc body is shell only when the RUN runs it with a shell (``RUN <<EOF`` or ``RUN <<EOF bash``);
    ``RUN python3 <<EOF`` or ``RUN cat <<EOF >file`` feed it to something else.
    """
    if ins.heredocs:
        words = _shell_words([(ins.start_line, _without_flags(ins.args))]) or []
        runner = [word for _, word in words if not _HEREDOC_WORD.fullmatch(word)]
        if runner and runner[0].rsplit("/", 1)[-1] not in _SHELLS:
            return []
        return [
            cmd
            for doc in ins.heredocs
            for cmd in _join_shell(list(enumerate(split_lines(doc.body), doc.start_line)), ins.stage)
        ]
    after_keyword = (lines[ins.start_line - 1].split(None, 1) + [""])[1]
    numbered = [(ins.start_line, after_keyword)] + [
        (n, lines[n - 1])
        for n in range(ins.start_line + 1, ins.end_line + 1)
        if lines[n - 1].strip() and not _is_comment(lines[n - 1])  # Docker drops these
    ]
    in_flags = True  # RUN flags may continue over several lines before the command starts
    stripped = []
    for number, text in numbered:
        if in_flags:
            text = _without_flags(text.strip())
            in_flags = not text or text.rstrip(" \t") == escape  # nothing left but a continuation
        stripped.append((number, text))
    if stripped[0][1].lstrip().startswith("["):
        return []  # exec form: JSON, no shell
    return _join_shell(stripped, ins.stage, escape)


def _after(tokens: list[str], *head: str) -> list[list[str]]:
    """Each run of tokens following the word sequence ``head``, up to the next shell operator."""
    return [[t for t, _ in run] for run in _after_located([(t, 0) for t in tokens], *head)]


def _after_located(tokens: list[tuple[str, int]], *head: str) -> list[list[tuple[str, int]]]:
    runs = []
    width = len(head)
    for start in range(len(tokens) - width + 1):
        if tokens[start][0] == head[0] and tuple(t for t, _ in tokens[start : start + width]) == head:
            runs.append(_command_words(tokens[start + width :]))
    return runs


_OPERATORS = "();<>|&"


def _command_words(tokens: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The words of one simple command: up to the next operator or redirection (`&&`, `|`, `> log`, `2>&1`)."""
    words = []
    for token in tokens:
        if token[0] and not token[0].strip(_OPERATORS):  # only operator characters
            if token[0][0] in "<>" and words and words[-1][0].isdigit():
                words.pop()  # the file descriptor of `2>`
            break
        words.append(token)
    return words


_VARIABLE = r"\$\{?(\w+)\}?"


def _warm_syncs(cmd: _ShellCommand, path: str) -> tuple[list[WarmSync], list[Note]]:
    """`uv sync` commands with their extras. An extra written as a loop variable (`for e in vllm fsdp; do
    uv sync --extra "$e"`) is one sync per loop word; one docgen cannot resolve is left out, with a note."""
    pattern = r"\buv\s+sync\b"
    if "sync" not in cmd.code or not re.search(pattern, cmd.code):
        return [], []
    found, notes = [], []
    runs = _after(cmd.tokens(path, pattern), "uv", "sync")
    # the trailing comment, else the comment line(s) right above a command that is this one sync
    comment = cmd.comment or (" ".join(cmd.above.split()) if len(runs) == 1 else "")
    line = cmd.line_of(pattern)
    loop_values = _loop_values(cmd) if "$" in cmd.code else {}
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
            found.append(WarmSync(tuple(extras), tuple(flags), comment, line, cmd.stage))
            continue
        name = re.fullmatch(_VARIABLE, variable)
        values = loop_values.get(name.group(1)) if name else None
        if not values or sum("$" in e for e in extras) > 1:
            notes.append(Note(line, "warm-steps", f"`uv sync --extra {variable}`: docgen cannot tell which extra "
                                                  "this warms (not a `for` loop variable); left out of the warm steps"))
            continue
        found += [WarmSync(tuple(value if e == variable else e for e in extras), tuple(flags), comment, line, cmd.stage)
                  for value in values]
    return found, notes


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
    shell: list[_ShellCommand], path: str
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
            rest = _command_words(tokens[index + 1 :])
            if _is_gym_script(token):
                gym.append(GymPrefetch(token, tuple(w for w, _ in rest), _arg_refs(" ".join(w for w, _ in rest)),
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


_ARG_REF = re.compile(r"\$\{(\w+)(?:[:?+=-][^}]*)?\}|\$(\w+)")


def _arg_refs(text: str) -> tuple[str, ...]:
    """Names a shell text expands (``$X``, ``${X}``, ``${X:-default}``), in order, once each."""
    names: list[str] = []
    for match in _ARG_REF.finditer(text):
        name = match.group(1) or match.group(2)
        if name not in names:
            names.append(name)
    return tuple(names)


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


def _pip_installs(cmd: _ShellCommand, path: str, run_comment: str = "") -> list[PipInstall]:
    """`uv pip install` commands; the reason is the command's trailing comment, else the comment lines
    directly above it in the script, else the Dockerfile comment above its RUN."""
    pattern = r"\buv\s+pip\s+install\b"
    if "pip" not in cmd.code or not re.search(pattern, cmd.code):
        return []
    found = []
    reason = cmd.comment or cmd.above or run_comment
    for rest in _after_located(cmd.located_tokens(path, pattern), "uv", "pip", "install"):
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


# module path, then a class name (a pattern string: compiled on first use, for a word that could match it)
_FQN_WORD = r"^[a-z_]\w*(?:\.[a-z_]\w*)+\.[A-Z]\w*$"
_FQN_START = frozenset("abcdefghijklmnopqrstuvwxyz_")


def _is_fqn(word: str) -> bool:
    return word[:1] in _FQN_START and "." in word and re.match(_FQN_WORD, word) is not None
_FOR_LOOP = re.compile(r"\bfor\s+(\w+)\s+in\b")


def _verify(shell: list[_ShellCommand], path: str) -> tuple[VerifyList | None, tuple[Note, ...]]:
    """The verification loop: `for actor in ...`, or a `for VAR in ...` loop whose words all look like actor
    FQNs (`package.module.ClassName`; `for cfg in a.yaml b.yaml` is some other loop).
    More than one such loop: their lists are joined and a note says so."""
    found: list[VerifyList] = []
    for cmd in shell:
        if "for" not in cmd.code or not (loop := _FOR_LOOP.search(cmd.code)):
            continue
        pattern = r"\bfor\s+" + loop.group(1) + r"\s+in\b"
        line = cmd.line_of(pattern)
        for actors in _after(cmd.tokens(path, pattern, until=r";\s*do\b"), "for", loop.group(1), "in"):
            if actors and (loop.group(1) == "actor" or all(_is_fqn(a) for a in actors)):
                found.append(VerifyList(tuple(actors), line))
    if not found:
        return None, ()
    notes = tuple(Note(v.line, "verify-list", f"a second verification loop (first at line {found[0].line}); "
                                              "docgen reads the loops' actors together") for v in found[1:])
    actors = tuple(dict.fromkeys(a for v in found for a in v.actors))
    return VerifyList(actors, found[0].line), notes


def _count_statement(line: str, number: int) -> CountStatement | None:
    """``# Eight filters -> nine venvs.`` -> ((8, 'filters'), (9, 'venvs'))."""
    if "->" not in line or not _is_comment(line):
        return None
    text = line.strip().lstrip("#").strip()
    at_start, at_end = (_ascii_pair_at_start, _ascii_pair_at_end) if text.isascii() else (_pair_at_start, _pair_at_end)
    segments = text.split("->")
    last = len(segments) - 1
    pairs = []
    for index, segment in enumerate(segments):
        # a pair sits right before each arrow and right after it; a middle segment is exactly one pair
        before_arrow = at_end(segment) if index < last else None
        after_arrow = at_start(segment) if index > 0 else None
        if (index < last and not before_arrow) or (index > 0 and not after_arrow):
            return None
        if before_arrow and after_arrow and before_arrow[:2] != after_arrow[:2]:
            return None
        pairs.append((segment, before_arrow or after_arrow))
    numbers = [_number(segment[p[0]:p[1]]) for segment, p in pairs]
    if None in numbers:
        return None
    return CountStatement(tuple((n, _plural(segment[p[2]:p[3]])) for n, (segment, p) in zip(numbers, pairs)),
                          text, number)


# A count pair found in a segment is read as (number start, number end, noun start, noun end, end of the
# blanks after the noun), whichever reader found it.

def _pair_of(match: re.Match[str] | None) -> tuple | None:
    return match and (*match.span(1), *match.span(2), match.end())


def _pair_at_start(segment: str) -> tuple | None:
    """The count the segment starts with, after blanks."""
    pattern = re.compile(_COUNT_PAIR, re.IGNORECASE)
    return _pair_of(pattern.match(segment, len(segment) - len(segment.lstrip())))


def _pair_at_end(segment: str) -> tuple | None:
    """The count the segment ends with, before blanks: its noun is the last word, its number the end of
    the word before (`x-one filters`), so the leftmost count that starts in that word, if it reaches the end."""
    words = segment.rsplit(None, 2)
    if len(words) < 2:
        return None
    noun_start = len(segment.rstrip()) - len(words[-1])
    match = re.compile(_COUNT_PAIR, re.IGNORECASE).search(segment, len(segment[:noun_start].rstrip()) - len(words[-2]))
    return _pair_of(match) if match and match.end() == len(segment) else None


# What `_COUNT_PAIR` reads on ASCII text, with str methods (tests/unit/test_dockerfile_reader.py compares the
# two on generated text). There a number is a whole run of blank-free text: it must be followed by a blank.
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ASCII_DIGITS = "0123456789"
_NOUN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"


def _ascii_noun(segment: str, at: int) -> tuple[int, int, int] | None:
    """After a number ending at `at`: blanks (at least one), the noun, the blanks after it:
    (noun start, noun end, end), or None."""
    rest = segment[at:]
    noun = rest.lstrip()
    start = len(segment) - len(noun)
    if start == at or not noun[:1].isalpha():   # ASCII text: a letter A-Z or a-z
        return None
    after = noun.lstrip(_NOUN_CHARS)
    end = len(segment) - len(after)
    return start, end, len(segment) - len(after.lstrip())


def _ascii_pair_at_start(segment: str) -> tuple | None:
    """`_pair_at_start` on ASCII text: the first word is the number, whole (a blank must follow it)."""
    start = len(segment) - len(segment.lstrip())
    first = segment[start:].split(None, 1)[0] if start < len(segment) else ""
    if not (first.isdigit() or first.lower() in _NUMBER_WORDS):   # ASCII: isdigit is 0-9
        return None
    noun = _ascii_noun(segment, start + len(first))
    return noun and (start, start + len(first), *noun)


def _ascii_pair_at_end(segment: str) -> tuple | None:
    """`_pair_at_end` on ASCII text: the number is the end of the second-last word (the leftmost one that
    starts a word there: a digit run, or a number word, after no word character), the noun the last word."""
    words = segment.rsplit(None, 2)
    if len(words) < 2:
        return None
    word = words[-2]
    noun_start = len(segment.rstrip()) - len(words[-1])
    at = len(segment[:noun_start].rstrip())   # where the second-last word ends
    begin = at - len(word)
    starts = [begin + len(word.rstrip(_ASCII_DIGITS))] if word[-1] in _ASCII_DIGITS else []
    low = word.lower()
    starts += [at - len(n) for n in _NUMBER_WORDS if low.endswith(n)]
    starts = [s for s in starts if s == begin or segment[s - 1] not in _ASCII_WORD]
    if not starts:
        return None
    noun = _ascii_noun(segment, at)
    return noun and noun[2] == len(segment) and (min(starts), at, *noun) or None


def _number(word: str) -> int | None:
    """The count a matched number spells; None for a word the case-insensitive pattern let through that
    is no number word (`ſeven`: the long s folds to s), or for digits no count could have (int() refuses
    to convert more than a few thousand)."""
    if word.isdigit():   # \d matched: decimal digits, which int() reads in any script
        return int(word) if len(word) <= 18 else None
    word = word.lower()
    return _NUMBER_WORDS.index(word) if word in _NUMBER_WORDS else None


def _plural(noun: str) -> str:
    noun = noun.lower()
    return noun if noun.endswith("s") else noun + "s"


def _not_prefetched(lines: list[str]) -> tuple[NotPrefetchedList | None, tuple[Note, ...]]:
    """The ``# Not prefetched`` comment: one ``<FQN>: <reason>`` entry per line below the header, or prose
    on the header line itself ("# NOT prefetched: sglang, trtllm, ... and the async bookkeeping actors").
    Several blocks are read together; an entry docgen cannot split is read as prose, with a note."""
    actors: list[tuple[str, str]] = []
    prose: list[str] = []
    notes: list[Note] = []
    first = None
    i = 0
    while i < len(lines):
        if "prefetched" not in lines[i].lower() or not (header := _NOT_PREFETCHED_HEADER.match(lines[i])):
            i += 1
            continue
        number = i + 1
        if first is not None:
            notes.append(Note(number, "not-prefetched-list",
                              f"a second '# Not prefetched' comment (first at line {first}); read together"))
        first = first or number
        tail = lines[i][header.end():].strip()
        if tail.startswith("("):  # "(what this list is):" describes the entries below; no actors in it
            tail = tail[tail.find(")") + 1:] if ")" in tail else ""
        text = tail.strip().lstrip(":").strip()
        block_entries = 0
        i += 1
        while text and i < len(lines) and _is_comment(lines[i]) and not _NOT_PREFETCHED_ENTRY.match(lines[i]):
            more = lines[i].lstrip()[1:].strip()  # a comment line: the text after its `#`
            if not more:
                break
            text += " " + more  # prose wrapped over several comment lines
            i += 1
        while i < len(lines) and (entry := _NOT_PREFETCHED_ENTRY.match(lines[i])):
            reason = _entry_reason(entry.group(2).strip())
            if reason is None:
                notes.append(Note(i + 1, "not-prefetched-list", "entry is not '<actor>: <reason>' or "
                                  f"'<actor> - <reason>'; read as the actor with that reason: {lines[i].strip()!r}"))
                actors.append((entry.group(1), entry.group(2).strip().strip("()").strip()))
            else:
                actors.append((entry.group(1), reason.strip()))
            block_entries += 1
            i += 1
        if text:
            prose.append(text)
        elif not block_entries:
            notes.append(Note(number, "not-prefetched-list", "'# Not prefetched' comment names no actors"))
    if first is None:
        return None, ()
    return NotPrefetchedList(tuple(actors), first, " ".join(prose)), tuple(notes)


def _entry_reason(rest: str) -> str | None:
    """The reason written after an entry's actor: `: <reason>`, `- <reason>` or nothing (""); None for
    any other form."""
    if not rest:
        return ""
    if rest[0] == ":" or (rest[0] == "-" and rest[1:2].isspace()):
        return rest[1:].lstrip()
    return None


# `#   <filter>   -> <extra>   (why)`: one row of a comment table mapping prefetch filters to extras.
# (A pattern string: compiled on first use, for a comment line whose first word is a filter.)
_MAPPING_ROW = r"^\s*#\s*(\S+)\s+->\s+([^\s(]+)\s*(?:\((.*)\))?\s*$"


def _mapping_rows(lines: list[str], filters: set[str]) -> tuple[MappingRow, ...]:
    """Rows whose left side is one of the prefetch filters (a header row or prose arrow is not one)."""
    rows = []
    for number, line in enumerate(lines, 1):
        # the row's filter is the first word after the `#` (a blank must follow it)
        if "->" not in line or not (words := line.lstrip()[1:].split(None, 1)) or words[0] not in filters:
            continue
        if _is_comment(line) and (match := re.match(_MAPPING_ROW, line)) and match.group(1) in filters:
            rows.append(MappingRow(match.group(1), match.group(2), (match.group(3) or "").strip(), number))
    return tuple(rows)
