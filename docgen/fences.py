"""Where a Markdown page shows code or a comment: the one rule of docgen's Markdown readers. The block engine,
the prose lint and the console parser all walk a page with `regions`, which names the fenced code blocks, the
indented code blocks and the HTML comments in the page's flow, so a line is code, comment or prose for all three
or for none."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.text import LineCounter, split_lines

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

# The one fence rule (docs/contributing.md). CommonMark's fences: a run of three or more backticks
# or tildes, then the info string; a backtick fence's info string holds no backtick; a fence is closed by a
# run of the same character at least as long with nothing but blanks after it. The prefix before the run is
# any indentation and block-quote markers: superfences nests fences in admonitions, list items and quotes,
# which a reader of single lines cannot tell from indentation (CommonMark's 0-3 spaces are the top level);
# a closing fence is indented at most 3 more than its opening one.
FENCE = re.compile(r"(?P<prefix>[ \t]*(?:>[ \t]*)*)(?P<run>`{3,}|~{3,})(?P<info>.*)")


class Fence(NamedTuple):
    """An opening code fence (FENCE): what stands before its run (indentation, block-quote markers), the run
    of backticks or tildes, and the info string after it."""
    prefix: str
    run: str
    info: str

    @property
    def language(self) -> str:
        """The first word of the info string (`console` for a console transcript), "" when there is none."""
        words = self.info.split(None, 1)
        return words[0] if words else ""

    def closed_by(self, line: str) -> bool:
        """Whether `line` (without its line ending) closes this fence: a run of the same character at least
        as long, with nothing but blanks after it, indented at most 3 more than the opening fence (more is
        the block's content, as in CommonMark)."""
        m = FENCE.match(line) if self.run[0] in line else None
        return (m is not None and m["run"][0] == self.run[0] and len(m["run"]) >= len(self.run)
                and not m["info"].strip() and len(m["prefix"]) <= len(self.prefix) + 3)


def opening_fence(line: str) -> Fence | None:
    """The fence `line` (without its line ending) opens, or None when it opens none: the one fence rule of
    the block engine, the prose lint and the console parser (FENCE)."""
    m = FENCE.match(line) if ("```" in line or "~~~" in line) else None
    if m is None or (m["run"][0] == "`" and "`" in m["info"]):
        return None
    return Fence(m["prefix"], m["run"], m["info"])


# Indented code (the other code block of Markdown). A line indented four columns (a tab counts four) past the
# content of its container is code when a blank line separates it from the paragraph above (indented code
# cannot interrupt a paragraph). The container is the nearest line above indented less: a list item, an
# admonition (`!!!`, `???`) or a content tab (`===`) holds its content four columns in, as mkdocs reads
# them (so a block inside an admonition or a list item stays live); any other line holds it at its own
# indentation. Block quotes are not looked into.
_CONTAINER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)]|!!!|\?\?\?\+?|===\+?)(?:[ \t]|$)")
# The start of a line indented four columns or more: the only lines that can be indented code.
_DEEP = re.compile(r"^(?: {4}| {0,3}\t)", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")

FENCED = "fenced"
INDENTED = "indented"
COMMENT = "comment"


class Region(NamedTuple):
    """A run of a page's lines that Markdown does not show as prose: lines [start, stop) (0-based, lines ending
    at "\\n" alone). FENCED: a fenced code block, its fence lines included (`fence` is the opening one);
    INDENTED: consecutive lines of an indented code block; COMMENT: one HTML comment in the page's flow, from
    offset `first` of line `start` (its `<!--`) to offset `last` of line stop - 1 (just past its `-->`). An
    unclosed fence or comment runs to the end of the page (`closed` False, `last` -1)."""
    kind: str
    start: int
    stop: int
    fence: Fence | None = None
    closed: bool = True
    first: int = 0
    last: int = -1


_ALLOW = re.compile(r"<!--\s*docgen:allow\s+([\w,-]+)\s")


def allowed_rules(line: str) -> frozenset[str]:
    """The rules the allow markers of a line name (`<!-- docgen:allow prose,stated-value WHY -->`): the one
    reading of the marker for the pipeline, the prose lint and the mentions. A marker shown in inline code is
    text, as the block engine reads every marker; one in a fenced block's line allows that line of code."""
    if "docgen:allow" not in line:
        return frozenset()
    spans = code_spans(line)
    return frozenset(r for m in _ALLOW.finditer(line) if not any(a <= m.start() < b for a, b in spans)
                     for r in m.group(1).split(","))


def code_spans(line: str) -> list[tuple[int, int]]:
    """Inline code spans of a line: a backtick run up to the next run of the same length. One pass over the
    runs with a forward-only cursor per length, so a line of thousands of unmatched runs stays linear (a
    regex search from each run would rescan the rest of the line every time)."""
    if "`" not in line:
        return []
    runs = [m.span() for m in _BACKTICKS.finditer(line)]
    by_length: dict[int, list[int]] = {}
    for index, (a, b) in enumerate(runs):
        by_length.setdefault(b - a, []).append(index)
    cursor = dict.fromkeys(by_length, 0)
    spans, index = [], 0
    while index < len(runs):
        a, b = runs[index]
        same, at = by_length[b - a], cursor[b - a]
        while at < len(same) and same[at] <= index:
            at += 1
        cursor[b - a] = at
        if at < len(same):
            closing = same[at]
            spans.append((a, runs[closing][1]))
            index = closing + 1
        else:
            index += 1   # no closing run: these backticks are literal text
    return spans


def span_texts(line: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each inline code span of a line (`code_spans`): the text between its backtick
    runs, with one blank stripped from each side when both sides have one and it is not all blanks, as
    CommonMark reads "`` `x` ``"."""
    out = []
    for start, end in code_spans(line):
        whole = line[start:end]
        run = len(whole) - len(whole.lstrip("`"))
        inside = whole[run:-run]
        if len(inside) > 1 and inside[0] == " " == inside[-1] and inside.strip(" "):
            inside = inside[1:-1]
        out.append((start, end, inside))
    return out


def _indentation(line: str) -> int:
    """The columns of leading blanks, a tab counting up to the next multiple of four."""
    col = 0
    for ch in line:
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            break
    return col


def _line_indexes(text: str, offsets: list[int]) -> list[int]:
    """The distinct line indexes of the sorted character offsets."""
    indexes: list[int] = []
    line_of = LineCounter(text)
    for at in offsets:
        line = line_of(at) - 1
        if not indexes or indexes[-1] != line:
            indexes.append(line)
    return indexes


def _token_lines(text: str) -> list[int]:
    """The lines holding three backticks or tildes, `<!--` or `-->`: the only lines where a fence or a comment
    can open or close. Found with str.find over the whole text (no token holds a line break), so the other
    lines, most of a page, cost nothing."""
    found = []
    for token in ("```", "~~~", "<!--", "-->"):
        at = text.find(token)
        while at != -1:
            found.append(at)
            end = text.find("\n", at)
            if end == -1:
                break
            at = text.find(token, end + 1)   # the rest of this line adds nothing
    found.sort()
    return _line_indexes(text, found)


def _indented_code(lines: Sequence[str], text: str) -> set[int]:
    """The lines the indented-code rule above makes code, fences and comments aside. For each line indented four
    columns or more, the line that decides is the nearest non-blank one above indented less; a stack of the
    deep lines since the last shallow one (depths increasing) finds it in one pass, so a long code block costs
    one step a line, not a walk up to its top for each."""
    deep = [i for i in _line_indexes(text, [m.start() for m in _DEEP.finditer(text)]) if lines[i].strip()]
    code: set[int] = set()
    stack: list[tuple[int, int]] = []   # (index, depth) of deep lines below `shallow`, depths increasing
    shallow: int | None = None          # the nearest non-blank line above indented less than four; None: none
    last_blank, prev = -1, -1
    for i in deep:
        j = i - 1
        while j > prev and not lines[j].strip():
            last_blank = max(last_blank, j)
            j -= 1
        if j > prev:   # a non-blank line indented less than four columns lies between
            shallow, stack = j, []
        col = _indentation(lines[i])
        while stack and stack[-1][1] >= col:
            stack.pop()
        above = stack[-1][0] if stack else shallow
        if above is None:
            code.add(i)   # nothing above it but blanks and deeper lines: code from the top of the page
        else:
            text_above = lines[above]
            depth = _indentation(text_above)
            base = depth + 4 if _CONTAINER.match(text_above) else depth
            if col >= base + 4 and (last_blank > above or text_above.lstrip().startswith("#")):
                code.add(i)
        stack.append((i, col))
        prev = i
    return code


def regions(text: str) -> Iterator[Region]:
    """The regions of a page that Markdown shows as code or as a comment, in order (a Region each): fenced
    code, indented code and the HTML comments in the page's flow. The one rule of the block engine, the prose
    lint and the console parser. Inside a fence nothing opens; inside a comment nothing but its `-->` counts
    (comments do not nest); a line of indented code opens neither a fence nor a comment; a `<!--` inside an
    inline code span is text. Lines end at "\\n" alone, as editors and GitHub number them."""
    lines = split_lines(text)
    indented = _indented_code(lines, text) if _DEEP.search(text) else set()
    events = _token_lines(text)
    if indented:
        events = sorted(indented.union(events))
    fence: Fence | None = None
    fence_at = 0
    comment: tuple[int, int] | None = None   # (line, offset) of the `<!--` of a comment still open
    run: list[int] | None = None              # [start, stop) of the indented lines not yielded yet
    for index in events:
        line = lines[index].rstrip("\r")
        if fence is not None:
            if fence.closed_by(line):
                yield Region(FENCED, fence_at, index + 1, fence)
                fence = None
            continue
        if comment is None:
            if index in indented:
                if run is not None and run[1] == index:
                    run[1] += 1
                else:
                    if run is not None:
                        yield Region(INDENTED, run[0], run[1])
                    run = [index, index + 1]
                continue
            if run is not None:
                yield Region(INDENTED, run[0], run[1])
                run = None
            fence = opening_fence(line)
            if fence is not None:
                fence_at = index
                continue
        spans: list[tuple[int, int]] | None = None
        at = 0
        while True:
            if comment is not None:
                close = line.find("-->", at)
                if close == -1:
                    break
                at = close + 3
                yield Region(COMMENT, comment[0], index + 1, first=comment[1], last=at)
                comment = None
                continue
            opener = line.find("<!--", at)
            if opener != -1 and "`" in line:
                spans = code_spans(line) if spans is None else spans
                while opener != -1 and any(a <= opener < b for a, b in spans):
                    opener = line.find("<!--", opener + 4)
            if opener == -1:
                break
            comment, at = (index, opener), opener + 4
    if run is not None:
        yield Region(INDENTED, run[0], run[1])
    if fence is not None:
        yield Region(FENCED, fence_at, len(lines), fence, closed=False)
    if comment is not None:
        yield Region(COMMENT, comment[0], len(lines), closed=False, first=comment[1])
