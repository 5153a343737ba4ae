"""RUN scripts as the shell reads them, one ``ShellCommand`` per logical line: a RUN's heredoc bodies run by
a shell or its own text, continuations and multi-line quotes joined, trailing comments and the comment
lines above kept, the ``if`` and ``for`` blocks around each command tracked, and the bodies of heredocs a
script opens itself (``cat > f <<'X'``) skipped as data.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, NamedTuple

from docgen.errors import InputError
from docgen.inputs.comments import count_statement
from docgen.inputs.shellwords import heredoc_name, shell_words, split_words
from docgen.inputs.syntax import (
    HEREDOC_WORD, Instruction, comment_text, continues, is_comment, split_lines, without_continuation, without_flags,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

_SHELLS = frozenset({"sh", "bash", "dash"})


def _starts_with_word(text: str, word: str) -> bool:
    """`text` starts with `word` as a whole word: no word character (letter, digit, `_`) follows it."""
    after = text[len(word) : len(word) + 1]
    return text.startswith(word) and not (after.isalnum() or after == "_")


class ShellCommand:
    """One shell command with ``\\`` continuations joined; keeps the physical lines it came from.
    (A plain class, not a NamedTuple: it never leaves the reader, and its joined ``code``, which every
    convention reader looks at, is built once here.)"""

    __slots__ = ("pieces", "comment", "stage", "above", "guards", "loops", "code", "loop_above", "_words", "_starts")

    def __init__(
        self,
        pieces: tuple[tuple[int, str], ...],  # (line, code without trailing comment and backslash)
        comment: str,  # trailing comment of its last physical line
        stage: str | None,
        above: str = "",  # the comment lines directly above it (a heredoc's own comments), joined by "\n"
        guards: tuple[str, ...] = (),  # conditions of the `if ...` blocks it sits in, outermost first
        loops: tuple[tuple[str, tuple[str, ...]], ...] = (),  # (variable, words) of the `for` loops around it
        loop_above: str = "",  # the comment lines directly above the innermost `for` loop around it
    ) -> None:
        self.pieces, self.comment, self.stage, self.above = pieces, comment, stage, above
        self.guards, self.loops, self.loop_above = guards, loops, loop_above
        self.code = " ".join(text.strip() for _, text in pieces)
        self._words: list[tuple[str, int]] | None = None
        self._starts: list[int] | None = None

    def words(self) -> list[tuple[str, int]]:
        """Shell words and operators of the whole command with their offsets in ``code``, split once (several
        readers ask). Raises ValueError for a quote left open."""
        if self._words is None:
            self._words = split_words(self.code, operators=True)
        return self._words

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
        stop = re.search(until, code) if until is not None else None
        try:
            words = split_words(code[: stop.start()], operators=True) if stop else self.words()
        except ValueError as exc:
            raise InputError(path, self.line_of(pattern), f"cannot split shell command: {exc}") from None
        return [(word, self.line_at(at)) for word, at in words]

    def line_at(self, offset: int) -> int:
        """The physical line of the character at ``offset`` in ``code``."""
        if self._starts is None:
            self._starts, at = [], 0
            for _, text in self.pieces:
                self._starts.append(at)
                at += len(text.strip()) + 1
        return self.pieces[bisect_right(self._starts, offset) - 1][0]


_DQ_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


# Script text up to its comment: ordinary characters, whole quoted strings, escapes and any `#` that does not
# start a word (`a#b`, `'x'#`); it stops at the comment's `#`, at a quote never closed or at a lone final
# backslash. One match per line, where `_chunks` would take a step per word and quote. A plain greedy repeat:
# a match of `(...)*` cannot fail, so nothing backtracks. (Not possessive, `*+`: CPython before 3.11.5 gave
# such a match back one character short, and Debian 12's python3 is 3.11.2.)
_CODE = re.compile(r"""(?:[^'"\\#]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.|(?<=\S)\#)*""", re.DOTALL)


def _scan_shell_line(line: str, quote: str) -> tuple[str, str, str]:
    """(code, trailing comment, quote still open at the end) of one script line that starts inside `quote`
    ("" = none): a quoted string may run over several lines, as the shell reads it."""
    start = 0
    if quote:
        if quote == "'":
            start = line.find("'") + 1
        else:
            closed = _DQ_REST.match(line)
            start = closed.end() if closed else 0
        if start == 0:
            return line, "", quote
    code = _CODE.match(line, start)
    assert code is not None   # `*`: it matches everywhere, if only the empty string
    end = code.end()
    if end == len(line):
        return line, "", ""
    if line[end] == "#":
        return line[:end], line[end + 1 :].strip(), ""
    return line, "", line[end] if line[end] != "\\" else ""  # a quote left open, or a lone final backslash


def shell_code(line: str) -> str:
    """One shell line up to its comment, as the shell reads it (`echo "a #b"  # c` -> `echo "a #b"  `)."""
    return _scan_shell_line(line, "")[0]


_IF_START = re.compile(r"^\s*(?:if|elif)\s+(.*?)\s*;?\s*(?:then\b.*)?$")
_NESTED_HEREDOC = re.compile(r"(?<![<\d])\d*<<(?!<)(-?)((?:['\"]?[A-Za-z_][\w.-]*['\"]?)?)$")


def _join_shell(
    numbered: list[tuple[int, str]], stage: str | None, escape: str = "\\"
) -> list[ShellCommand]:
    """Commands of a script, one per logical line: ``\\`` continuations and quoted strings that run on
    joined; the body of a heredoc inside the script (``cat > f <<'X'``) is data, never commands. A trailing
    comment continues on the comment lines right below it whose `#` sits in its column (a wrapped comment),
    and a `for` loop's comment reaches the commands of its body as ``loop_above``."""
    commands: list[ShellCommand] = []
    pieces: list[tuple[int, str]] = []
    above: list[str] = []
    guards: list[str] = []
    loops: list[tuple[str, tuple[str, ...]]] = []
    loop_aboves: list[str] = []  # the comment above each open loop, innermost last
    quote = ""
    heredoc: tuple[str, bool] | None = None  # (terminator, strip tabs) of a heredoc the script opened
    trailing_column = None  # the column of the last command's trailing `#`, while its comment may wrap on
    for number, line in numbered:
        if heredoc is not None:
            if (line.lstrip("\t") if heredoc[1] else line) == heredoc[0]:
                heredoc = None
            continue
        if not pieces and (not line.strip() or is_comment(line)):
            if not line.strip():
                above, trailing_column = [], None
            elif trailing_column is not None and len(line) - len(line.lstrip()) == trailing_column:
                commands[-1].comment += " " + comment_text(line).strip()   # the trailing comment, wrapped
            elif "->" not in line or not count_statement(line, number):  # a count claims, it gives no reason
                above.append(comment_text(line))
                trailing_column = None
            continue
        code, comment, quote = _scan_shell_line(line, quote)
        if quote or (continues(code, escape) and not comment):
            pieces.append((number, code if quote else without_continuation(code, escape)))
            continue
        pieces.append((number, code))
        command = ShellCommand(tuple(pieces), comment, stage, "\n".join(above), tuple(guards), tuple(loops),
                               loop_aboves[-1] if loop_aboves else "")
        commands.append(command)
        trailing_column = len(code) if comment else None
        guards = _track_guards(command.code, guards)
        opened = _track_loops(command.code, loops)
        if len(opened) > len(loops):
            loop_aboves.append(command.above)
        elif len(opened) < len(loops):
            loop_aboves.pop()
        loops = opened
        heredoc = _script_heredoc(command.code) if "<<" in command.code else None
        pieces, above = [], []
    if pieces:
        commands.append(ShellCommand(tuple(pieces), "", stage, "\n".join(above), tuple(guards), tuple(loops),
                                     loop_aboves[-1] if loop_aboves else ""))
    return commands


def _script_heredoc(code: str) -> tuple[str, bool] | None:
    """The terminator of the first heredoc a script command opens (``<<EOF``, ``<<-'X'``, ``<< "END"``)."""
    words = [w for _, w in shell_words([(0, code)]) or []]
    for index, word in enumerate(words):
        if word[:1] in "'\"" or not (match := _NESTED_HEREDOC.search(word)):
            continue
        target = match.group(2) or (words[index + 1] if index + 1 < len(words) else "")
        name = heredoc_name(target) if target else None
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


def loop_words(text: str) -> tuple[str, ...]:
    try:
        return tuple(word for word, _ in split_words(text, operators=False))
    except ValueError:
        return ()


def _track_loops(code: str, loops: list[tuple[str, tuple[str, ...]]]) -> list[tuple[str, tuple[str, ...]]]:
    """The `for VAR in WORDS` loops open after `code` (a one-line loop that ends in `done` opens none)."""
    lead = code.lstrip()
    done = _has_closing_word(code, "done")
    if (head := _FOR_HEAD.match(code)) and not done:
        return loops + [(head.group(1), loop_words(head.group(2)))]
    if done and not lead.startswith("for ") and loops:
        return loops[:-1]
    return loops


def loop_values(cmd: "ShellCommand") -> dict[str, tuple[str, ...]]:
    """Loop variables visible to `cmd`: the loops around it and a one-line `for ...; do ...` in it."""
    values = dict(cmd.loops)
    for match in re.finditer(r"\bfor\s+(\w+)\s+in\s+([^;]*?)\s*;\s*do\b", cmd.code):
        values[match.group(1)] = loop_words(match.group(2))
    return values


def _track_guards(code: str, guards: list[str]) -> list[str]:
    """The `if` conditions open after `code` (a one-line `if ...; then ...; fi` opens none); `elif` and
    `else` replace the innermost condition."""
    stripped = code.strip()
    closes = _has_closing_word(code, "fi")
    if (opened := _IF_START.match(code)) and not closes:
        condition = opened.group(1).removesuffix(";").strip()
        if stripped.startswith("elif") and guards:
            return guards[:-1] + [condition]
        return guards + [condition]
    if _starts_with_word(stripped, "else") and guards and not closes:
        return guards[:-1] + [f"not ({guards[-1]})"]
    if closes and not stripped.startswith("if ") and guards:
        return guards[:-1]
    return guards


def shell_commands(ins: Instruction, lines: list[str], escape: str) -> list[ShellCommand]:
    """Shell commands of a RUN: its heredoc bodies, or (without heredocs) the instruction itself.
    ``escape`` (the escape directive's) continues the instruction's lines; a body keeps the shell's ``\\``.

    A heredoc body is shell only when the RUN runs it with a shell (``RUN <<EOF`` or ``RUN <<EOF bash``);
    ``RUN python3 <<EOF`` or ``RUN cat <<EOF >file`` feed it to something else.
    """
    if ins.heredocs:
        words = shell_words([(ins.start_line, without_flags(ins.args))]) or []
        runner = [word for _, word in words if not HEREDOC_WORD.fullmatch(word)]
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
        if lines[n - 1].strip() and not is_comment(lines[n - 1])  # Docker drops these
    ]
    in_flags = True  # RUN flags may continue over several lines before the command starts
    stripped = []
    for number, text in numbered:
        if in_flags:
            text = without_flags(text.strip())
            in_flags = not text or text.rstrip(" \t") == escape  # nothing left but a continuation
        stripped.append((number, text))
    if stripped[0][1].lstrip().startswith("["):
        return []  # exec form: JSON, no shell
    return _join_shell(stripped, ins.stage, escape)


def after(tokens: list[str], *head: str) -> list[list[str]]:
    """Each run of tokens following the word sequence ``head``, up to the next shell operator."""
    return [[t for t, _ in run] for run in after_located([(t, 0) for t in tokens], *head)]


def after_located(tokens: list[tuple[str, int]], *head: str) -> list[list[tuple[str, int]]]:
    runs = []
    width = len(head)
    for start in range(len(tokens) - width + 1):
        if tokens[start][0] == head[0] and tuple(t for t, _ in tokens[start : start + width]) == head:
            runs.append(command_words(tokens[start + width :]))
    return runs


_OPERATORS = "();<>|&"
# how a simple command's words are read: the shell's reserved words, an assignment before the command
# (`A=1 cmd`), and the commands that run the next word as the command
RESERVED = frozenset("if then else elif fi for in do done while until case esac ! { }".split())
ASSIGNMENT = re.compile(r"[A-Za-z_]\w*(?==)")
PREFIX_COMMANDS = ("time", "sudo", "env", "exec", "command")
# reserved words after which the next word is no command (`for NAME`, `case WORD`, `in WORDS`, a closing word)
_NO_COMMAND_AFTER = frozenset(("for", "case", "in", "done", "fi", "esac", "}"))


class Role(NamedTuple):
    at: int     # the word's index among the tokens
    word: str
    role: str   # "operator", "assignment" (before a command), "reserved", "command" or "argument"


def roles(tokens: "Sequence[str]") -> "Iterator[Role]":
    """What each shell word of a command line is, as the shell reads it: an operator starts a command; before
    it, assignments and reserved words (after `for`, `case`, `in` and the closing words no command follows);
    the command; its arguments. A prefix command (`sudo`, `env`, `exec`, ...) runs the next word as the
    command; the word after a redirection (`> /dev/null`) is its "target", and a `case` arm's words up to its `)`
    are a "pattern". The one walk over a line's commands (a RUN step's programs and settings, a script's options)."""
    start, redirect, pattern, case_header = True, False, False, False
    for index, word in enumerate(tokens):
        if redirect:
            redirect = False
            yield Role(index, word, "target")
        elif pattern:   # `download)`, `*)`: a case arm's pattern; `esac` ends the case
            pattern = word not in (")", "esac")
            start = word == ")"
            yield Role(index, word, "operator" if word == ")" else "reserved" if word == "esac" else "pattern")
        elif word and not word.strip(_OPERATORS):
            if "<" in word or ">" in word:   # a redirection: the next word is a file, the command goes on
                redirect = True
            else:
                start, pattern = True, word in (";;", ";&", ";;&")
            yield Role(index, word, "operator")
        elif case_header and word == "in":   # `case WORD in`: the first arm's pattern follows
            case_header, pattern = False, True
            yield Role(index, word, "reserved")
        elif start and tokens[index + 1: index + 2] == [")"]:   # an arm on a line of its own: `download)`
            yield Role(index, word, "pattern")
        elif start and ASSIGNMENT.match(word):
            yield Role(index, word, "assignment")
        elif start and word in RESERVED:
            case_header = word == "case"
            start = word not in _NO_COMMAND_AFTER
            yield Role(index, word, "reserved")
        elif start:
            start = word in PREFIX_COMMANDS
            yield Role(index, word, "command")
        else:
            yield Role(index, word, "argument")


def program_name(word: str) -> str:
    """The program a command word runs, as pages name it: its last path part in lower case, a variable's name
    for a variable (`"$MKDOCS"` -> `mkdocs`, `/usr/bin/env` -> `env`); "" when that is no name (`$((n + 1))`)."""
    name = word.strip("\"'").removeprefix("$").removeprefix("{").removesuffix("}").rpartition("/")[2].lower()
    return name if _PROGRAM_NAME.fullmatch(name) else ""


_PROGRAM_NAME = re.compile(r"[a-z][\w.+-]*")

# commands of the shell itself that print, test, assign or steer the script, not what the build runs; `umask`,
# `set` and `cd` are not among them: they decide the modes, the options and the place of the commands after them
BUILTINS = frozenset("echo printf export exit return unset continue break read local true false "
                     "test [ shift eval trap wait source . : exec command".split())


def command_words(tokens: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The words of one simple command: up to the next operator or redirection (`&&`, `|`, `> log`, `2>&1`)."""
    words: list[tuple[str, int]] = []
    for token in tokens:
        if token[0] and not token[0].strip(_OPERATORS):  # only operator characters
            if token[0][0] in "<>" and words and words[-1][0].isdigit():
                words.pop()  # the file descriptor of `2>`
            break
        words.append(token)
    return words
