"""Shell words as a POSIX shell and BuildKit's lexer quote them, the names of heredocs, the one
`${NAME}` / `$NAME` variable pattern docgen reads everywhere, and BuildKit's expansion of a text against a
lookup (what a name holds at a point is ``docgen.inputs.scope``'s answer, never a dict built here).

Text is read in chunks: one regex step per run of ordinary characters or per quoted string, so a
megabyte-long word costs one match (nothing builds strings character by character).
"""

from __future__ import annotations

import re
from bisect import bisect_right

# A variable reference: `${NAME}`, `${NAME<op>...}` (`${X:-default}`, `${X:+alt}`, ...) or `$NAME`.
# Groups: `braced` and `op` for the first two forms, `bare` for the third.
VARIABLE = re.compile(r"\$\{(?P<braced>\w+)(?P<op>[:?+=-][^}]*)?\}|\$(?P<bare>\w+)")


def variables(text: str) -> tuple[str, ...]:
    """Names a shell text expands (``$X``, ``${X}``, ``${X:-default}``), in order, once each."""
    return tuple(dict.fromkeys(m.group("braced") or m.group("bare") for m in VARIABLE.finditer(text)))


def variable_name(word: str) -> str | None:
    """The name when the whole word is one plain reference (``$X`` or ``${X}``), else None."""
    match = VARIABLE.fullmatch(word)
    return match and not match.group("op") and (match.group("braced") or match.group("bare")) or None


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
_BACKTICK_CHUNK = re.compile(_CHUNK_TEMPLATE.replace("E", "`"), re.VERBOSE | re.DOTALL)   # under escape=` only
# What the escape character escapes inside double quotes: in the shell \ " $ and `; in an instruction's
# words (BuildKit's lexer) only " $ and the escape character itself, the rest keeps it.
_DQ_ESCAPE = {None: r'\\([\\"$`])', "\\": r'\\([\\"$])', "`": r'`([`"$])'}


def _chunks(text: str, pos: int = 0, escape: str | None = None):
    """(kind, start, end) of each chunk; kind "open" is a quote never closed or a lone final escape
    character. `escape`: None for shell text, else the Dockerfile's escape character."""
    pattern = _BACKTICK_CHUNK if escape == "`" else _CHUNK
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
        # split keeps the escaped character (the group) and drops its escape; sub with a template does the
        # same far slower on a value full of escapes (bench/large_inputs.py)
        return "".join(re.split(_DQ_ESCAPE[escape], inner)) if (escape or "\\") in inner else inner
    if kind == "esc":
        return chunk[1:]
    return chunk


def split_words(text: str, *, operators: bool, escape: str | None = None) -> list[tuple[str, int]]:
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


def shell_words(pieces: list[tuple[int, str]]) -> list[tuple[int, str]] | None:
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


def heredoc_name(word: str) -> str | None:
    try:
        words = split_words(word, operators=False)
    except ValueError:
        return None
    return words[0][0] if words else None


# BuildKit's expansion of an instruction's words (ARG, ENV, FROM, USER, WORKDIR, ...): `$NAME`, `${NAME}`,
# `${NAME:-word}` / `${NAME-word}` (word when unset, `:` also when empty), `${NAME:+word}` / `${NAME+word}`
# (word when set, `:` only when not empty), `${NAME:?msg}` / `${NAME?msg}`. Nothing is expanded inside
# single quotes, nor after the escape character.
_EXPANSION = {
    "\\": re.compile(r"\\.|\$\{(?P<braced>\w+)(?P<op>:?[-+?])?(?P<word>[^}]*)\}|\$(?P<bare>\w+)", re.DOTALL),
    "`": re.compile(r"`.|\$\{(?P<braced>\w+)(?P<op>:?[-+?])?(?P<word>[^}]*)\}|\$(?P<bare>\w+)", re.DOTALL),
}


def expand_references(text: str, lookup, escape: str = "\\", unset=None) -> tuple[str, tuple[str, ...]]:
    """``text`` with every reference replaced by BuildKit's rules; ``lookup(name)`` is the value in scope,
    None when the name is not set. Returns the text and the names that could not be resolved (unset and
    without a default form); an unresolved reference becomes ``unset(name)``, or stays as written when that
    is None (or no ``unset`` is given)."""
    unresolved: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("bare")
        if name is None:
            return match.group(0)   # an escaped character: left for the unquoting
        op, word = match.group("op"), match.group("word") or ""
        if match.group("braced") and op is None and word:
            return match.group(0)   # a form BuildKit's older frontends reject (`${X#pat}`): left as written
        value = lookup(name)
        if op is None:
            if value is None:
                unresolved.append(name)
                instead = unset(name) if unset is not None else None
                return match.group(0) if instead is None else instead
            return value
        empty_counts = op.startswith(":")
        is_set = value is not None and (value != "" or not empty_counts)
        kind = op[-1]
        if kind == "-":
            return value if is_set else expand_references(word, lookup, escape, unset)[0]
        if kind == "+":
            return expand_references(word, lookup, escape, unset)[0] if is_set else ""
        if not is_set:               # `?`: BuildKit fails the build with the message
            unresolved.append(name)
            return match.group(0)
        return value

    if "$" not in text:
        return text, ()
    return _EXPANSION["`" if escape == "`" else "\\"].sub(one, text), tuple(dict.fromkeys(unresolved))


def split_expanded(text: str, lookup, escape: str = "\\", unset=None) -> tuple[list[tuple[str, int]], tuple[str, ...]]:
    """`split_words` of an instruction's text (the Dockerfile's escape character), each word expanded as
    BuildKit expands it: unquoted and double-quoted text is expanded, single-quoted text is not. Returns the
    words and the names that could not be resolved (each becomes ``unset(name)``, see `expand_references`).
    Raises ValueError for an open quote."""
    words: list[tuple[str, int]] = []
    parts: list[str] = []
    unresolved: list[str] = []
    start = 0
    for kind, begin, end in _chunks(text, 0, escape):
        if kind == "space":
            if parts:
                words.append(("".join(parts), start))
                parts = []
            continue
        if kind == "open":
            if text[begin] == escape:
                continue
            raise ValueError("No closing quotation")
        if not parts:
            start = begin
        chunk = text[begin:end]
        if kind in ("plain", "dq", "hash", "op"):
            chunk, missing = expand_references(chunk, lookup, escape, unset)
            unresolved += missing
        parts.append(_unquote(kind, chunk, escape))
    if parts:
        words.append(("".join(parts), start))
    return words, tuple(dict.fromkeys(unresolved))
