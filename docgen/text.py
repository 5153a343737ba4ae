"""How docgen cuts text: into lines, a character offset into a line number, a sentence into clauses. Every
reader of a page, a Dockerfile, a lock or a snapshot asks here, so a line number means the same line in every
message. (Where a Markdown line holds code, a fence or a code span is docgen/fences.py; numbers and the nouns
a count counts are docgen/names.py.)

Lines end at "\\n" alone, as editors and GitHub number them: str.splitlines would also end a line at form
feeds, \\x1c-\\x1e and Unicode line separators, and every later line number would be off."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of `text`; the text's last line ending starts no line. With `keepends`, each line keeps its
    "\\n" (the last one has none when the text does not end with one)."""
    found = text.split("\n")
    last = found.pop()
    if keepends:
        found = [line + "\n" for line in found]
    if last:
        found.append(last)
    return found


def line_at(text: str | bytes, offset: int) -> int:
    """The line (1-based) that character (or byte) `offset` of `text` stands on."""
    if isinstance(text, bytes):
        return text.count(b"\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1


class LineCounter:
    """Line numbers (1-based) of ascending offsets of one text, each answer counting only the line endings
    since the one before: a scan of a long text that asks at every match stays one pass."""
    __slots__ = ("_text", "_line", "_at")

    def __init__(self, text: str) -> None:
        self._text, self._line, self._at = text, 1, 0

    def __call__(self, offset: int) -> int:
        self._line += self._text.count("\n", self._at, offset)
        self._at = offset
        return self._line


# A sentence ends after ".", "!" or "?" (and a closing quote or bracket), before a blank and what can open a
# sentence; a paragraph, a list item, a definition, a heading, a quote, an admonition and a table row are units of
# their own.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z`\[(*_\"])")
_UNIT_START = re.compile(r"^\s*(?:#{1,6}\s|\||[-*+]\s|\d+[.)]\s|>|!!!|\?\?\?|:\s)")   # `:   ` a definition
# a line that is a unit by itself: a heading, an admonition's or a details box's title line (mkdocs' `!!! note`)
_ONE_LINE_UNIT = re.compile(r"^\s*(?:#{1,6}\s|!!!|\?\?\?)")


def sentences(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(1-based first line, sentence) for every sentence of a page's hand-written lines: a paragraph, a list
    item, a heading and a table row (its cells joined by " | ") are units, and a unit splits at sentence ends.
    A sentence's lines are joined by one blank. The sentences of sentences_with_lines, which the mentions read,
    without their lines (the comments a page quotes are split this way)."""
    for line, sentence, _ in sentences_with_lines(lines):
        yield line, sentence


def sentences_with_lines(lines: list[str]) -> Iterator[tuple[int, str, tuple[int, ...]]]:
    """As `sentences`, with the line (1-based) of each blank-separated word of each sentence: a finding about
    a word of a sentence that runs over several lines is reported where that word stands. A definition's
    description (`:   text` under a one-line term) is a unit of its own whose sentences begin with the term,
    their subject; each is known by its own first line."""
    unit: list[str] = []
    first = 0
    term: tuple[str, int] | None = None   # (text, line) of the term of the description in `unit`

    def flush() -> Iterator[tuple[int, str, tuple[int, ...]]]:
        if not unit:
            return
        joined = " ".join(unit)
        ends, at = [], 0   # where each line's text ends in `joined`
        for part in unit:
            at += len(part)
            ends.append(at)
            at += 1
        start = 0
        for m in [*_SENTENCE_END.finditer(joined), None]:
            end = m.start() if m else len(joined)
            # a sentence ends at a blank, and lines are joined by one: no word spans two lines
            words: list[int] = []
            i = bisect_right(ends, start - 1)
            while i < len(ends) and (i == 0 or ends[i - 1] + 1 < end):
                piece = joined[max(start, ends[i - 1] + 1 if i else 0): min(end, ends[i])]
                words += [first + i + 1] * len(piece.split())
                i += 1
            if words and term:   # a description: the term's words first, the sentence known by its own line
                yield words[0], f"{term[0]} {joined[start:end].strip()}", (term[1],) * len(term[0].split()) + tuple(words)
            elif words:   # a sentence from the line of its first word
                yield words[0], joined[start:end].strip(), tuple(words)
            if m:
                start = m.end()
        unit.clear()

    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:   # a blank line ends a unit (most lines of a page's prose are blank: code and blocks)
            if unit:
                yield from flush()
            continue
        if line.startswith("|"):
            yield from flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            row = " | ".join(cells)
            yield i + 1, row, (i + 1,) * len(row.split())
            continue
        if _UNIT_START.match(raw) or not unit:
            described = (unit[0], first + 1) if line.startswith(":") and len(unit) == 1 and first == i - 1 else None
            yield from flush()
            term, first = described, i
        unit.append(line)
        if _ONE_LINE_UNIT.match(raw):
            yield from flush()
    yield from flush()



# A version as a sentence states it (group 1 without a leading "v"): dotted numbers and words after a first
# number ("0.9.1", "3.x", "2.6.0+cu128"), not a piece of a longer word, dotted name or path.
STATED_VERSION = re.compile(r"(?<![\w.+-])v?(\d+(?:\.\w+)+(?:\+[\w.]*\w)?)(?![\w/-])")


# A clause ends at a comma, semicolon, colon or parenthesis, or before "and" / "while": a verb of one clause
# says nothing of the names in another ("vllm wheel, deep_ep builds from source"). A comma before "which",
# "who" or "whose" ends none: the relative clause says what the name before it does ("`flash-attn`, which uv
# compiles from source").
_CLAUSE_END = re.compile(r",(?!\s*(?:which|who|whose)\b)|[;:()]|\band\b|\bwhile\b")


def clauses(text: str) -> list[str]:
    """The clauses of a sentence or comment, in order (an empty one where two ends meet)."""
    return _CLAUSE_END.split(text)
