"""The image's conventions written as Dockerfile comments, each optional: ``N things -> M things`` count
statements, the ``# Not prefetched`` list, ``filter -> extra`` table rows, ``extra: why`` rows above a
command that warms several extras, and ``# docgen: mixed-extras`` declarations. What does not read as the convention is no fact, or a ``Note`` (file:line) the lint reports.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from docgen.inputs.syntax import is_comment
from docgen.names import NUMBER_WORD_PATTERN, normalize, number_value

# A count as a comment states it, `<number> <noun>` ("Eight filters", "9 venvs"), and the blanks after it.
# The noun is a letter, then letters, `_` or `-`.
_COUNT_PAIR = re.compile(r"\b(\d+|" + NUMBER_WORD_PATTERN + r")\s+((?![_-])[A-Za-z_-]+)\s*", re.IGNORECASE)
_NOT_PREFETCHED_HEADER = re.compile(r"^\s*#\s*Not prefetched\b", re.IGNORECASE)
_NOT_PREFETCHED_ENTRY = re.compile(r"^\s*#\s+([A-Za-z_]\w*(?:\.\w+)+)(.*)$")
# A comment anywhere in the file that declares a filter meant to select actors of different extras.
MIXED_DECLARATION = re.compile(r"\s*#\s*docgen:\s*mixed-extras\s+(\S+)")


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


def mixed_extras(lines: list[str]) -> tuple[tuple[str, int], ...]:
    """`# docgen: mixed-extras <filter>` declarations, with their lines."""
    return tuple((m.group(1), n) for n, line in enumerate(lines, 1) if (m := MIXED_DECLARATION.match(line)))


def count_statement(line: str, number: int) -> CountStatement | None:
    """``# Eight filters -> nine venvs.`` -> ((8, 'filters'), (9, 'venvs'))."""
    if "->" not in line or not is_comment(line):
        return None
    text = line.strip().lstrip("#").strip()
    segments = text.split("->")
    last = len(segments) - 1
    pairs = []
    for index, segment in enumerate(segments):
        # a pair sits right before each arrow and right after it; a middle segment is exactly one pair
        before_arrow = _pair_at_end(segment) if index < last else None
        after_arrow = _pair_at_start(segment) if index > 0 else None
        if (index < last and not before_arrow) or (index > 0 and not after_arrow):
            return None
        if before_arrow and after_arrow and before_arrow[:2] != after_arrow[:2]:
            return None
        pair = before_arrow or after_arrow
        assert pair is not None   # the check above: a pair before the arrow, or after it
        pairs.append((segment, pair))
    numbers = [_number(segment[p[0]:p[1]]) for segment, p in pairs]
    counted = [(n, _plural(segment[p[2]:p[3]])) for n, (segment, p) in zip(numbers, pairs) if n is not None]
    if len(counted) < len(pairs):   # a word that is no number
        return None
    return CountStatement(tuple(counted), text, number)


# A count pair found in a segment is read as (number start, number end, noun start, noun end, end of the
# blanks after the noun).

def _pair_of(match: re.Match[str] | None) -> tuple | None:
    return match and (*match.span(1), *match.span(2), match.end())


def _pair_at_start(segment: str) -> tuple | None:
    """The count the segment starts with, after blanks."""
    return _pair_of(_COUNT_PAIR.match(segment, len(segment) - len(segment.lstrip())))


def _pair_at_end(segment: str) -> tuple | None:
    """The count the segment ends with, before blanks: its noun is the last word, its number the end of
    the word before (`x-one filters`), so the leftmost count that starts in that word, if it reaches the end."""
    words = segment.rsplit(None, 2)
    if len(words) < 2:
        return None
    noun_start = len(segment.rstrip()) - len(words[-1])
    match = _COUNT_PAIR.search(segment, len(segment[:noun_start].rstrip()) - len(words[-2]))
    return _pair_of(match) if match and match.end() == len(segment) else None


def _number(word: str) -> int | None:
    """The count a matched number spells; None for a word the case-insensitive pattern let through that
    is no number word (`ſeven`: the long s folds to s), or for digits no count could have (int() refuses
    to convert more than a few thousand)."""
    if word.isdigit():   # \d matched: decimal digits, which int() reads in any script
        return int(word) if len(word) <= 18 else None
    word = word.lower()
    return number_value(word)


def _plural(noun: str) -> str:
    noun = noun.lower()
    return noun if noun.endswith("s") else noun + "s"


def not_prefetched_list(lines: list[str]) -> tuple[NotPrefetchedList | None, tuple[Note, ...]]:
    """The ``# Not prefetched`` comment: one ``<FQN>: <reason>`` entry per line below the header, or prose
    on the header line itself ("# NOT prefetched: sglang, trtllm, ... and the async bookkeeping actors").
    Several blocks are read together; an entry docgen cannot split is read as prose, with a note."""
    actors: list[tuple[str, str]] = []
    prose: list[str] = []
    notes: list[Note] = []
    first = None
    i = 0
    while i < len(lines):
        if not (header := _NOT_PREFETCHED_HEADER.match(lines[i])):
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
        while text and i < len(lines) and is_comment(lines[i]) and not _NOT_PREFETCHED_ENTRY.match(lines[i]):
            more = lines[i].lstrip()[1:].strip()  # a comment line: the text after its `#`
            if not more:
                break
            text += " " + more  # prose wrapped over several comment lines
            i += 1
        while i < len(lines) and (entry := _NOT_PREFETCHED_ENTRY.match(lines[i])):
            column = entry.start(1)
            rest = entry.group(2).strip()
            i += 1
            while i < len(lines) and _continues_entry(lines[i], column):
                rest += " " + lines[i].lstrip()[1:].strip()   # a reason wrapped onto the next comment line
                i += 1
            reason = _entry_reason(rest)
            if reason is None:
                notes.append(Note(i, "not-prefetched-list", "entry is not '<actor>: <reason>' or "
                                  f"'<actor> - <reason>'; read as the actor with that reason: {rest!r}"))
                actors.append((entry.group(1), rest.strip("()").strip()))
            else:
                actors.append((entry.group(1), reason.strip()))
            block_entries += 1
        if block_entries and i < len(lines) and (odd := _ODD_ENTRY.match(lines[i])):
            notes.append(Note(i + 1, "not-prefetched-list", f"comment line right below the `# Not prefetched` "
                              f"entries reads like an entry but names no actor FQN ({odd.group(1)!r}); left out"))
        if text:
            prose.append(text)
        elif not block_entries:
            notes.append(Note(number, "not-prefetched-list", "'# Not prefetched' comment names no actors"))
    if first is None:
        return None, ()
    return NotPrefetchedList(tuple(actors), first, " ".join(prose)), tuple(notes)


# A comment line shaped like an entry (`#   Name: reason`) whose name is no dotted FQN.
_ODD_ENTRY = re.compile(r"^\s*#\s+([A-Za-z_][\w-]*):\s+\S")


def _continues_entry(line: str, column: int) -> bool:
    """A comment line below an entry that carries on its reason: its text starts right of the entry's
    FQN, and it is no entry itself."""
    if not is_comment(line):
        return False
    entry = _NOT_PREFETCHED_ENTRY.match(line)
    if entry and entry.start(1) <= column:
        return False
    body = line.lstrip()[1:].lstrip()
    return bool(body) and len(line) - len(body) > column


def _entry_reason(rest: str) -> str | None:
    """The reason written after an entry's actor: `: <reason>`, `- <reason>` or nothing (""); None for
    any other form."""
    if not rest:
        return ""
    if rest[0] == ":" or (rest[0] == "-" and rest[1:2].isspace()):
        return rest[1:].lstrip()
    return None


# `#   <filter>   -> <extra>   (why)`: one row of a comment table mapping prefetch filters to extras. The
# reason may wrap onto the indented comment lines below the row, and text may follow its `)`.
_MAPPING_ROW = re.compile(r"\s*#\s*(\S+)\s+->\s+(.*?)\s*")
_FILTER_LIKE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+")


def mapping_rows(lines: list[str], filters: set[str]) -> tuple[tuple[MappingRow, ...], tuple[Note, ...]]:
    """Rows whose left side is one of the prefetch filters (a header row or prose arrow is not one), each
    read whole: its reason continues on the comment lines below it whose text starts right of the row's `->`.
    A row that names something shaped like a filter but no prefetch filter, or whose `(` never closes, is
    a note: no row is read in part without a word."""
    rows: list[MappingRow] = []
    notes: list[Note] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        match = _MAPPING_ROW.fullmatch(line)
        if match is None or not is_comment(line):
            continue
        left, rest = match.group(1), match.group(2)
        arrow = line.index("->", match.end(1))
        if left not in filters:
            if _FILTER_LIKE.fullmatch(left):
                notes.append(Note(number, "mapping-comment", f"comment row maps {left!r}, which is no prefetch "
                                  f"filter; docgen cannot check it against the registry: {line.strip()!r}"))
            continue
        row_line = number
        while number < len(lines) and _continues_row(lines[number], arrow):
            rest += " " + lines[number].lstrip()[1:].strip()
            number += 1
        extra, _, why = rest.partition(" ") if not rest.startswith("(") else ("", "", rest)
        extra, why = extra.strip(), why.strip()
        if "(" in extra:                      # `vllm(why)`: the reason starts inside the extra's word
            extra, _, more = extra.partition("(")
            why = "(" + more + (" " + why if why else "")
        if not extra:
            notes.append(Note(row_line, "mapping-comment", f"comment row for filter {left!r} names no extra after "
                              f"`->`; left unread: {line.strip()!r}"))
            continue
        reason, problem = _row_reason(why)
        if problem:
            notes.append(Note(row_line, "mapping-comment", f"comment row for filter {left!r}: {problem}; read "
                              f"as extra {extra!r} with the reason {reason!r}"))
        rows.append(MappingRow(left, extra, reason, row_line))
    return tuple(rows), tuple(notes)


def _continues_row(line: str, arrow: int) -> bool:
    """A comment line below a row that carries on its reason: its text starts right of the row's `->`
    (under the extra or the reason), and it is no row itself."""
    if not is_comment(line):
        return False
    body = line.lstrip()[1:].lstrip()
    return bool(body) and len(line) - len(body) > arrow and " -> " not in body


def _row_reason(why: str) -> tuple[str, str | None]:
    """The reason of a row: `(why)`, `(why) more` (the text after the `)` belongs to it) or bare text;
    with what is wrong when the parenthesis never closes."""
    if not why.startswith("("):
        return why, None
    depth = 0
    for index, char in enumerate(why):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            inner, after = why[1:index].strip(), why[index + 1:].strip()
            return (f"{inner} {after}" if inner and after else inner or after), None
    return why[1:].strip(), "its `(` is never closed"


# `<extra>: why` (or `<extra> - why`, `<extra> -> why`, `--extra <extra>: why`): one row of a comment above a
# command that warms several extras at once (a `for` loop, `uv sync ... && uv sync ...`).
_WARM_ROW = re.compile(r"^(\s*)(?:--extra[ =])?([A-Za-z0-9][\w.-]*)\s*(?::|->|\s-\s)\s*(.*?)\s*$")


def warm_rows(text: str, extras: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The comment above a command that warms several `extras`, read as one row per extra, each read whole
    (its reason continues on the lines below it indented past the row's name). Returns the reason of each
    extra that has a row (normalised name -> reason) and what could not be read: a row naming an extra the
    command does not warm, a line among the rows that is no row and no continuation. Lines before the first
    row are the comment's heading. A comment with no row for any of the extras is no table: ({}, ())."""
    wanted = {normalize(e) for e in extras}
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines)
                  if (m := _WARM_ROW.match(line)) and normalize(m.group(2)) in wanted), None)
    if first is None:
        return {}, ()
    reasons: dict[str, str] = {}
    problems: list[str] = []
    current, indent = None, 0
    for line in lines[first:]:
        row = _WARM_ROW.match(line)
        if current is not None and line.strip() and len(line) - len(line.lstrip()) > indent \
                and not (row and normalize(row.group(2)) in wanted):
            reasons[current] = f"{reasons[current]} {line.strip()}".strip()   # a reason wrapped on
            continue
        if row and normalize(row.group(2)) in wanted:
            current, indent = normalize(row.group(2)), len(row.group(1))
            if current in reasons:
                problems.append(f"a second row for extra {row.group(2)!r} ({line.strip()!r}); read together")
                reasons[current] = f"{reasons[current]} {row.group(3)}".strip()
            else:
                reasons[current] = row.group(3)
            continue
        current = None
        if not line.strip():
            continue
        if row:
            problems.append(f"row {line.strip()!r} names {row.group(2)!r}, which this command does not warm "
                            f"(it warms {', '.join(extras)}); left out")
        else:
            problems.append(f"line {line.strip()!r} among the per-extra rows is neither a row (`extra: why`) nor "
                            "indented under one; left out")
    return reasons, tuple(problems)
