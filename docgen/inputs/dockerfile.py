"""Read a Dockerfile into plain facts with 1-based line numbers.

Two layers:
  1. Dockerfile syntax: instructions (with ``\\`` continuations, or backtick ones under ``# escape=```,
     comments inside continuation runs, heredocs), stages, ARG, ENV and instruction flags. Written here
     rather than borrowed, because we need the exact line of every fact for error messages and
     documentation links.
  2. The image's shell conventions, read from RUN scripts: ``uv sync`` warm-up commands, the single
     ``prefetch_venvs.py`` call, the ``for actor in ...`` verification loop, and two comment forms
     (``N things -> M things`` count statements and the ``# Not prefetched`` list).

Only reads; never executes anything. Bad input raises ``InputError(path, line, message)``.
"""


import re
import shlex
from typing import NamedTuple
from pathlib import Path

from docgen.errors import InputError
from docgen.io import read_input
from docgen.names import NUMBER_WORDS

KEYWORDS = frozenset(
    "ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL MAINTAINER ONBUILD RUN SHELL "
    "STOPSIGNAL USER VOLUME WORKDIR".split()
)
HEREDOC_KEYWORDS = frozenset({"RUN", "COPY", "ADD"})  # the only instructions Docker reads heredocs for

_CONTINUATION = re.compile(r"\\[ \t]*$")  # same rule as BuildKit: backslash, then only blanks
# Instruction continuation per ``# escape=`` value; BuildKit accepts no others. Shell text (a heredoc body)
# keeps the shell's own backslash continuation whatever the directive says.
_ESCAPE_CONTINUATIONS = {"\\": _CONTINUATION, "`": re.compile(r"`[ \t]*$")}
_COMMENT_LINE = re.compile(r"^\s*#")
_DIRECTIVE = re.compile(r"^#\s*(syntax|escape|check)\s*=\s*(\S.*)$", re.IGNORECASE)
_HEREDOC_WORD = re.compile(r"\d*<<(-?)([^<]+)")  # a whole shell word, as BuildKit: [fd]<<[-]WORD
_LEADING_FLAG = re.compile(r"^--([A-Za-z][\w-]*)(?:=(\S*))?(?:\s+|$)")
_NUMBER_WORDS = NUMBER_WORDS
_NUMBER = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
_COUNT_PAIR = r"\b" + _NUMBER + r"\s+([A-Za-z][A-Za-z_-]*)"
_PAIR_AT_END = re.compile(_COUNT_PAIR + r"\s*$", re.IGNORECASE)
_PAIR_AT_START = re.compile(r"^\s*" + _COUNT_PAIR, re.IGNORECASE)
_NOT_PREFETCHED_HEADER = re.compile(r"^\s*#\s*Not prefetched\b", re.IGNORECASE)
_NOT_PREFETCHED_ENTRY = re.compile(r"^\s*#\s+([A-Za-z_]\w*(?:\.\w+)+)(.*)$")
_SHELL_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "(", ")"})
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
    filters: tuple[str, ...]
    negative_filters: tuple[str, ...]
    line: int
    filter_lines: tuple[int, ...] = ()   # physical line of each filter (findings point at the filter itself)


class VerifyList(NamedTuple):
    actors: tuple[str, ...]
    line: int


class CountStatement(NamedTuple):
    counts: tuple[tuple[int, str], ...]
    text: str
    line: int


class NotPrefetchedList(NamedTuple):
    actors: tuple[tuple[str, str], ...]
    line: int


class DockerfileFacts(NamedTuple):
    path: str
    syntax_directive: int | None
    instructions: tuple[Instruction, ...]
    stages: tuple[Stage, ...]
    args: tuple[Arg, ...]
    envs: tuple[EnvVar, ...]
    warm_syncs: tuple[WarmSync, ...]
    prefetch: PrefetchCall
    verify: VerifyList | None
    counts: tuple[CountStatement, ...]
    not_prefetched: NotPrefetchedList | None
    mixed_extras: tuple[tuple[str, int], ...] = ()   # `# docgen: mixed-extras <filter>` declarations, with lines

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


# A comment anywhere in the file that declares a filter meant to select actors of different extras.
MIXED_DECLARATION = re.compile(r"^\s*#\s*docgen:\s*mixed-extras\s+(\S+)")


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
    lines = split_lines(text)
    syntax_line, directive_lines, escape = _directives(lines, path)
    continuation = _ESCAPE_CONTINUATIONS[escape]
    stages, instructions = _stages(_instructions(lines, path, directive_lines, escape), path)
    shell = [cmd for ins in instructions if ins.keyword == "RUN" for cmd in _shell_commands(ins, lines, continuation)]
    return DockerfileFacts(
        path=path,
        syntax_directive=syntax_line,
        instructions=instructions,
        stages=stages,
        args=tuple(a for ins in instructions if ins.keyword == "ARG" for a in _args(ins, path)),
        envs=tuple(e for ins in instructions if ins.keyword == "ENV" for e in _envs(ins, path)),
        warm_syncs=tuple(w for cmd in shell for w in _warm_syncs(cmd, path)),
        prefetch=_prefetch(shell, path, len(lines) or None),
        verify=_verify(shell, path),
        counts=tuple(c for n, line in enumerate(lines, 1) if (c := _count_statement(line, n))),
        not_prefetched=_not_prefetched(lines, path),
        mixed_extras=tuple((m.group(1), n) for n, line in enumerate(lines, 1)
                           if "docgen:" in line and (m := MIXED_DECLARATION.match(line))),
    )


# ---- layer 1: Dockerfile syntax ---------------------------------------------------------------


def _directives(lines: list[str], path: str) -> tuple[int | None, set[int], str]:
    """Parser directives: known ``# key=value`` lines at the very top, ended by any other line.
    Returns the ``# syntax=`` line, the directive lines and the escape character (``# escape=``)."""
    syntax, seen, keys, escape = None, set(), set(), "\\"
    for number, line in enumerate(lines, 1):
        match = _DIRECTIVE.match(line.strip())
        if not match:
            break
        key, value = match.group(1).lower(), match.group(2).strip()
        if key in keys:
            raise InputError(path, number, f"only one {key} parser directive can be used")
        seen.add(number)
        keys.add(key)
        if key == "syntax":
            syntax = number
        elif key == "escape":
            if value not in _ESCAPE_CONTINUATIONS:
                raise InputError(path, number, f"invalid escape token {value!r} does not match ` or \\")
            escape = value
    return syntax, seen, escape


def _instructions(lines: list[str], path: str, skip: set[int], escape: str) -> list[Instruction]:
    continuation = _ESCAPE_CONTINUATIONS[escape]
    found: list[Instruction] = []
    comment: list[str] = []
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i]
        if number in skip or not line.strip():
            comment = []  # a blank line detaches the comment block from what follows
            i += 1
            continue
        if _COMMENT_LINE.match(line):
            comment.append(re.sub(r"^\s*# ?", "", line).rstrip())
            i += 1
            continue
        pieces = [(number, line)]
        while continuation.search(pieces[-1][1]):
            i += 1
            while i < len(lines) and (not lines[i].strip() or _COMMENT_LINE.match(lines[i])):
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
        args = " ".join(p for p in (continuation.sub("", p).strip() for p in parts) if p)
        heredocs: list[Heredoc] = []
        if keyword in HEREDOC_KEYWORDS:
            joined = [(n, continuation.sub("", text)) for n, text in pieces]  # BuildKit joins them without a blank
            for marker_line, word in _shell_words(joined) or []:  # a quote left open: BuildKit finds no heredoc
                if (marker := _HEREDOC_WORD.fullmatch(word)) and (name := shlex.split(marker.group(2))):
                    heredoc, i = _read_heredoc(lines, i, marker.group(1) == "-", name[0], marker_line, path)
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


def _shell_words(pieces: list[tuple[int, str]]) -> list[tuple[int, str]] | None:
    """Words of the pieces' text joined as is, split at unquoted blanks, quotes and ``\\`` escapes kept
    (as BuildKit splits a line to find heredocs; a mid-line ``#`` is no comment there). Each word comes
    with the line it starts on; None when a quote is left open."""
    words: list[tuple[int, str]] = []
    word, start, quote, escaped = "", 0, "", False
    for number, text in pieces:
        for char in text:
            if char.isspace() and not (quote or escaped):
                if word:
                    words.append((start, word))
                word = ""
                continue
            if not word:
                start = number
            word += char
            quote, escaped = _shell_state(char, quote, escaped)
    if quote:
        return None
    word = word[:-1] if escaped else word  # BuildKit's lexer drops a lone escape at the very end
    return words + [(start, word)] if word else words


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
    while match := _LEADING_FLAG.match(args):
        flags.setdefault(match.group(1), []).append(match.group(2) or "")
        args = args[match.end() :]
    return {name: tuple(values) for name, values in flags.items()}


def _without_flags(args: str) -> str:
    while match := _LEADING_FLAG.match(args):
        args = args[match.end() :]
    return args


def _stage_label(stage: Stage) -> str:
    return stage.name if stage.name is not None else str(stage.index)


def _stages(instructions: list[Instruction], path: str) -> tuple[tuple[Stage, ...], tuple[Instruction, ...]]:
    """Split instructions into stages and stamp each with its stage label (None before the first FROM)."""
    heads: list[tuple[str | None, str, int]] = []  # (name, base, line) per FROM
    members: list[list[Instruction]] = []
    labelled: list[Instruction] = []
    for ins in instructions:
        if ins.keyword == "FROM":
            name, base = _from(ins, path)
            if name is not None and any(name == head[0] for head in heads):
                raise InputError(path, ins.start_line, f"duplicate stage name {name!r}")
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


def _words(ins: Instruction, path: str) -> list[str]:
    try:
        return shlex.split(ins.args, comments=False, posix=True)
    except ValueError as exc:
        raise InputError(path, ins.start_line, f"{ins.keyword}: cannot split {ins.args!r}: {exc}") from None


def _args(ins: Instruction, path: str) -> list[Arg]:
    words = _words(ins, path)
    if not words:
        raise InputError(path, ins.start_line, "ARG without a name")
    found = []
    for word in words:
        name, has_default, default = word.partition("=")
        if not name:
            raise InputError(path, ins.start_line, f"ARG without a name in {word!r}")
        found.append(Arg(name, default if has_default else None, ins.stage, ins.start_line, ins.comment))
    return found


def _envs(ins: Instruction, path: str) -> list[EnvVar]:
    words = _words(ins, path)
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


class _ShellCommand(NamedTuple):
    """One shell command with ``\\`` continuations joined; keeps the physical lines it came from."""

    pieces: tuple[tuple[int, str], ...]  # (line, code without trailing comment and backslash)
    comment: str  # trailing comment of its last physical line
    stage: str | None

    @property
    def code(self) -> str:
        return " ".join(text.strip() for _, text in self.pieces)

    def line_of(self, pattern: str) -> int:
        """Physical line where ``pattern`` first appears, else the command's first line."""
        for number, text in self.pieces:
            if re.search(pattern, text):
                return number
        return self.pieces[0][0]

    def tokens(self, path: str, pattern: str, until: str | None = None) -> list[str]:
        """Shell words of the command; with `until`, only of the text before that pattern (shlex is slow
        and a loop's body can hold hundreds of words nobody reads)."""
        code = self.code
        if until is not None and (stop := re.search(until, code)):
            code = code[: stop.start()]
        lexer = shlex.shlex(code, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, ""
        try:
            return list(lexer)
        except ValueError as exc:
            raise InputError(path, self.line_of(pattern), f"cannot split shell command: {exc}") from None


def _split_comment(line: str) -> tuple[str, str]:
    """Split a shell line at an unquoted ``#`` that starts a word: (code, comment text)."""
    quote, escaped = "", False
    for pos, char in enumerate(line):
        if char == "#" and not (quote or escaped) and (pos == 0 or line[pos - 1].isspace()):
            return line[:pos], line[pos + 1 :].strip()
        quote, escaped = _shell_state(char, quote, escaped)
    return line, ""


def _shell_state(char: str, quote: str, escaped: bool) -> tuple[str, bool]:
    """The (open quote, pending backslash) state after reading `char`, as a POSIX shell tracks it."""
    if escaped:
        return quote, False
    if char == "\\" and quote != "'":
        return quote, True
    if quote:
        return ("" if char == quote else quote), False
    if char in "'\"":
        return char, False
    return quote, False


def _join_shell(
    numbered: list[tuple[int, str]], stage: str | None, continuation: re.Pattern[str] = _CONTINUATION
) -> list[_ShellCommand]:
    commands, pieces = [], []
    for number, line in numbered:
        if not pieces and (not line.strip() or _COMMENT_LINE.match(line)):
            continue
        code, comment = _split_comment(line)
        if continuation.search(code) and not comment:
            pieces.append((number, continuation.sub("", code)))
            continue
        pieces.append((number, code))
        commands.append(_ShellCommand(tuple(pieces), comment, stage))
        pieces = []
    if pieces:
        commands.append(_ShellCommand(tuple(pieces), "", stage))
    return commands


def _shell_commands(ins: Instruction, lines: list[str], continuation: re.Pattern[str]) -> list[_ShellCommand]:
    """Shell commands of a RUN: its heredoc bodies, or (without heredocs) the instruction itself.
    ``continuation`` joins the instruction's lines (the escape directive's); a body keeps the shell's ``\\``.

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
        if lines[n - 1].strip() and not _COMMENT_LINE.match(lines[n - 1])  # Docker drops these
    ]
    in_flags = True  # RUN flags may continue over several lines before the command starts
    stripped = []
    for number, text in numbered:
        if in_flags:
            text = _without_flags(text.strip())
            in_flags = not text or continuation.fullmatch(text) is not None
        stripped.append((number, text))
    if stripped[0][1].lstrip().startswith("["):
        return []  # exec form: JSON, no shell
    return _join_shell(stripped, ins.stage, continuation)


def _after(tokens: list[str], *head: str) -> list[list[str]]:
    """Each run of tokens following the word sequence ``head``, up to the next shell operator."""
    runs = []
    for start in range(len(tokens) - len(head) + 1):
        if tuple(tokens[start : start + len(head)]) == head:
            rest = []
            for token in tokens[start + len(head) :]:
                if token in _SHELL_OPERATORS:
                    break
                rest.append(token)
            runs.append(rest)
    return runs


def _warm_syncs(cmd: _ShellCommand, path: str) -> list[WarmSync]:
    pattern = r"\buv\s+sync\b"
    if not re.search(pattern, cmd.code):
        return []
    found = []
    for rest in _after(cmd.tokens(path, pattern), "uv", "sync"):
        extras, flags = [], []
        words = iter(rest)
        for word in words:
            if word == "--extra":
                value = next(words, "")
                if not value or value.startswith("-"):
                    raise InputError(path, cmd.line_of(pattern), "uv sync --extra without a value")
                extras.append(value)
            elif word.startswith("--extra="):
                if word == "--extra=":
                    raise InputError(path, cmd.line_of(pattern), "uv sync --extra without a value")
                extras.append(word.removeprefix("--extra="))
            elif word.startswith(("-", "$")):
                flags.append(word)
        found.append(WarmSync(tuple(extras), tuple(flags), cmd.comment, cmd.line_of(pattern), cmd.stage))
    return found


def _prefetch(shell: list[_ShellCommand], path: str, last_line: int | None) -> PrefetchCall:
    pattern = r"prefetch_venvs\.py\b"
    calls: list[PrefetchCall] = []
    for cmd in shell:
        if not re.search(pattern, cmd.code):
            continue
        tokens = cmd.tokens(path, pattern)
        script = next((i for i, t in enumerate(tokens) if t.endswith("prefetch_venvs.py")), None)
        if script is None:
            continue  # only mentioned, e.g. inside an echo'd string
        if "examples/nemo_gym/" in tokens[script]:
            continue  # the Gym environment-server prefetch, not the actor prefetch
        filters, negative, target = [], [], None
        for word in tokens[script + 1 :]:
            if word in _SHELL_OPERATORS:
                break
            if word == "--negative-filters":
                target = negative
            elif word.startswith("-"):
                target = None  # some other option: its values are not filters
            else:
                (filters if target is None else target).append(word)
        line = cmd.line_of(pattern)
        if calls:
            raise InputError(path, line, f"second prefetch_venvs.py call (first at line {calls[0].line})")
        if not filters:
            raise InputError(path, line, "prefetch_venvs.py call without filters")
        filter_lines = tuple(cmd.line_of(rf"(?:^|\s){re.escape(f)}(?:\s|$)") for f in filters)
        calls.append(PrefetchCall(tuple(filters), tuple(negative), line, filter_lines))
    if not calls:
        raise InputError(path, last_line, "no prefetch_venvs.py call in any RUN instruction")
    return calls[0]


def _verify(shell: list[_ShellCommand], path: str) -> VerifyList | None:
    pattern = r"\bfor\s+actor\s+in\b"
    found: VerifyList | None = None
    for cmd in shell:
        if not re.search(pattern, cmd.code):
            continue
        line = cmd.line_of(pattern)
        for actors in _after(cmd.tokens(path, pattern, until=r";\s*do\b"), "for", "actor", "in"):
            if found is not None:
                raise InputError(path, line, f"second 'for actor in' loop (first at line {found.line})")
            found = VerifyList(tuple(actors), line)
    return found


def _count_statement(line: str, number: int) -> CountStatement | None:
    """``# Eight filters -> nine venvs.`` -> ((8, 'filters'), (9, 'venvs'))."""
    if not _COMMENT_LINE.match(line) or "->" not in line:
        return None
    text = line.strip().lstrip("#").strip()
    segments = text.split("->")
    last = len(segments) - 1
    pairs = []
    for index, segment in enumerate(segments):
        # a pair sits right before each arrow and right after it; a middle segment is exactly one pair
        before_arrow = _PAIR_AT_END.search(segment) if index < last else None
        after_arrow = _PAIR_AT_START.search(segment) if index > 0 else None
        if (index < last and not before_arrow) or (index > 0 and not after_arrow):
            return None
        if before_arrow and after_arrow and before_arrow.span(1) != after_arrow.span(1):
            return None
        pairs.append(before_arrow or after_arrow)
    return CountStatement(tuple((_number(m.group(1)), _plural(m.group(2))) for m in pairs), text, number)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS.index(word.lower())


def _plural(noun: str) -> str:
    noun = noun.lower()
    return noun if noun.endswith("s") else noun + "s"


def _not_prefetched(lines: list[str], path: str) -> NotPrefetchedList | None:
    found = None
    i = 0
    while i < len(lines):
        if not _NOT_PREFETCHED_HEADER.match(lines[i]):
            i += 1
            continue
        header = i + 1
        if found is not None:
            raise InputError(path, header, f"second '# Not prefetched' block (first at line {found.line})")
        actors = []
        i += 1
        while i < len(lines) and (entry := _NOT_PREFETCHED_ENTRY.match(lines[i])):
            reason = re.fullmatch(r"(?:(?::|-\s)\s*(.*))?", entry.group(2).strip())
            if reason is None:
                raise InputError(path, i + 1, f"expected '<actor>: <reason>' or '<actor> - <reason>': {lines[i].strip()!r}")
            actors.append((entry.group(1), (reason.group(1) or "").strip()))
            i += 1
        if not actors:
            raise InputError(path, header, "'# Not prefetched' block lists no actors")
        found = NotPrefetchedList(tuple(actors), header)
    return found
