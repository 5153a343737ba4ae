"""Console transcripts in Markdown: ```console fenced blocks read as commands plus expected output.

A block holds one or more steps. A step is a `$ command` line, its continuation lines (the previous
line ends in `\\`, or the line starts with `> `), then the expected output up to the next `$ ` line.
`...` alone on a line matches any number of lines, `...` inside a line matches any text, and a last
line `[N]` expects exit status N (default 0). Options sit in an HTML comment directly above the fence:
`<!-- console: timeout=20 skip="reason" where=host -->`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Iterator, NoReturn

from docgen.fences import COMMENT, Fence, regions
from docgen.errors import InputError

DEFAULT_TIMEOUT = 30.0
WHERE_CHOICES = ("image", "host")
ANY_LINES = "..."

_ATX_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(?P<text>.*?)[ \t]*#*[ \t]*$")
_OPTIONS = re.compile(r"^[ \t]*<!--[ \t]*console:(?P<args>.*?)-->[ \t]*$")
_EXIT_STATUS = re.compile(r"^\[(?P<status>\d{1,3})\]$")


@dataclass(frozen=True)
class BlockOptions:
    timeout: float = DEFAULT_TIMEOUT
    skip: str | None = None
    where: str = "image"


@dataclass(frozen=True)
class ShellStep:
    """One `$` command of a block and what it is expected to print and return."""

    command: str                    # the text bash receives
    source: tuple[str, ...]         # the command lines as written, kept for update mode
    expected: tuple[str, ...]       # expected output lines (may hold `...` wildcards)
    exit_status: int
    line: int                       # line of the `$` in the document


@dataclass(frozen=True)
class ConsoleBlock:
    path: str
    line: int                       # line of the opening fence
    heading: str                    # slug of the nearest heading above, "top" when none
    number: int                     # 1-based position among the blocks under that heading
    steps: tuple[ShellStep, ...]
    options: BlockOptions = field(default_factory=BlockOptions)
    start: int = 0                  # character offsets of the whole fenced block ...
    end: int = 0
    body_start: int = 0             # ... and of the lines between its fences
    body_end: int = 0

    @property
    def test_id(self) -> str:
        return f"{self.heading}::{self.number}"


# --- matching ---------------------------------------------------------------------------------

def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in expected.split("...")), re.DOTALL)


def output_matches(expected: tuple[str, ...] | list[str], actual: list[str]) -> bool:
    """True when the actual lines fit the expected lines, wildcards included.

    Dynamic programming over (expected index, actual index) so several `...` lines stay linear-ish
    instead of backtracking exponentially.
    """
    expected = list(_trim_trailing_blank(list(expected)))
    actual = list(_trim_trailing_blank(list(actual)))
    n, m = len(expected), len(actual)
    # row[j]: expected[i:] matches actual[j:]; only the row below is needed, so memory stays O(m)
    below = [False] * (m + 1)
    below[m] = True
    for i in range(n - 1, -1, -1):
        row = [False] * (m + 1)
        if expected[i] == ANY_LINES:
            any_later = False
            for j in range(m, -1, -1):
                any_later = any_later or below[j]
                row[j] = any_later
        else:
            pattern = _line_pattern(expected[i])
            for j in range(m - 1, -1, -1):
                row[j] = below[j + 1] and pattern.fullmatch(actual[j]) is not None
        below = row
    return below[0]


def _trim_trailing_blank(lines: list[str]) -> list[str]:
    # Blank lines that separate steps for readability are not part of what is expected.
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


# --- options ----------------------------------------------------------------------------------

def parse_options(text: str, path: str, line: int) -> BlockOptions:
    """Read `key=value` tokens of a `<!-- console: ... -->` comment; anything unknown is an error."""
    def fail(message: str) -> NoReturn:
        raise InputError(path, line, f"console options: {message}") from None

    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        fail(str(exc))
    values: dict[str, object] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            fail(f"expected key=value, got {token!r}")
        if key in values:
            fail(f"{key!r} given twice")
        if key == "timeout":
            try:
                seconds = float(value)
            except ValueError:
                seconds = -1.0
            if not 0 < seconds <= 3600:
                fail(f"timeout must be seconds in (0, 3600], got {value!r}")
            values[key] = seconds
        elif key == "skip" and not value.strip():
            fail('skip needs a reason, e.g. skip="needs a GPU"')
        elif key == "where" and value not in WHERE_CHOICES:
            fail(f"where must be one of {', '.join(WHERE_CHOICES)}, got {value!r}")
        elif key not in ("skip", "where"):
            fail(f"unknown option {key!r} (known: skip, timeout, where)")
        else:
            values[key] = value
    return BlockOptions(**values)  # type: ignore[arg-type]


# --- block bodies -----------------------------------------------------------------------------

def parse_steps(lines: list[str], path: str, first_line: int) -> tuple[ShellStep, ...]:
    """Split a block's lines into steps. `first_line` is the document line of lines[0]."""
    steps: list[ShellStep] = []
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and not lines[i].startswith("$ "):
        raise InputError(path, first_line + i, "console block: output before the first `$ ` command")
    while i < len(lines):
        start = i
        source = [lines[i]]
        parts = [lines[i][2:]]
        i += 1
        while i < len(lines) and (source[-1].endswith("\\") or lines[i].startswith("> ")):
            # a `> ` secondary prompt is the reader's typing aid, never part of the command
            text = lines[i][2:] if lines[i].startswith("> ") else lines[i]
            if source[-1].endswith("\\"):
                parts[-1] += "\n" + text   # bash joins backslash-newline itself
            else:
                parts.append(text)
            source.append(lines[i])
            i += 1
        if not "".join(parts).strip():
            raise InputError(path, first_line + start, "console block: `$` without a command")
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        expected = _trim_trailing_blank(expected)
        status = 0
        if expected and (found := _EXIT_STATUS.match(expected[-1])):
            status = int(found["status"])
            expected = _trim_trailing_blank(expected[:-1])
        steps.append(ShellStep("\n".join(parts), tuple(source), tuple(expected), status, first_line + start))
    return tuple(steps)


def render_steps(steps: list[ShellStep] | tuple[ShellStep, ...]) -> list[str]:
    """The block lines for these steps, as parse_steps reads them back."""
    lines: list[str] = []
    for step in steps:
        lines.extend(step.source)
        lines.extend(step.expected)
        if step.exit_status:
            lines.append(f"[{step.exit_status}]")
    return lines


def slugify(heading: str) -> str:
    text = re.sub(r"[^\w\s-]", "", heading.lower())
    return re.sub(r"[\s_]+", "-", text).strip("-") or "section"


# --- documents --------------------------------------------------------------------------------

def find_blocks(text: str, path: str) -> Iterator[ConsoleBlock]:
    """Every ```console block of a Markdown text, with its options, heading and number. Where the page shows
    code or a comment is docgen/fences.py's rule, shared with the block engine and the prose lint: a fence
    inside an HTML comment or indented code opens no block, and an options comment counts only in the page's
    flow. Lines end at "\\n" alone, as the block engine numbers them."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    fences: dict[int, tuple[int, Fence]] = {}   # first line -> (stop, opening fence) of each fenced block
    other = bytearray(len(lines))                # 1: a line of indented code or inside a comment
    options_at: set[int] = set()                 # lines holding one comment in the page's flow and nothing else
    for region in regions(text):
        if region.fence is not None:   # FENCED: a fenced region holds its opening fence
            fences[region.start] = (region.stop - 1 if region.closed else region.stop, region.fence)
        elif region.kind == COMMENT and region.stop == region.start + 1:
            options_at.add(region.start)
        else:
            first = region.start + 1 if region.kind == COMMENT else region.start
            other[first:region.stop] = b"\x01" * (region.stop - first)
    heading = "top"
    per_heading: dict[str, int] = {}
    pending_options: tuple[int, str] | None = None   # (line number, args) of a comment just above
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\n")
        if i not in fences:
            if pending_options is not None:
                raise InputError(path, pending_options[0], "console options comment is not directly above a ```console block")
            if other[i]:
                pass
            elif i in options_at and (comment := _OPTIONS.match(raw)) is not None:
                pending_options = (i + 1, comment["args"])
            elif (found := _ATX_HEADING.match(raw)) is not None:
                heading = slugify(found["text"])
            i += 1
            continue
        close, fence = fences[i]
        if fence.language == "console":
            if len(fence.prefix) > 3 or fence.prefix.strip(" \t"):
                # nested in a list item, an admonition or a quote: its lines carry the container's prefix,
                # which neither the steps nor an update of the block would keep
                raise InputError(path, i + 1, "console block nested in a list, admonition or quote: the console "
                                              "runner reads blocks whose fence is indented 3 spaces at most")
            options = BlockOptions()
            if pending_options is not None:
                options = parse_options(pending_options[1], path, pending_options[0])
            body = [line.rstrip("\n") for line in lines[i + 1:close]]
            per_heading[heading] = per_heading.get(heading, 0) + 1
            yield ConsoleBlock(
                path=path,
                line=i + 1,
                heading=heading,
                number=per_heading[heading],
                steps=parse_steps(body, path, i + 2),
                options=options,
                start=offsets[i],
                end=offsets[min(close + 1, len(lines))],
                body_start=offsets[i + 1],
                body_end=offsets[close] if close < len(lines) else offsets[-1],
            )
        elif pending_options is not None:
            raise InputError(path, pending_options[0], "console options comment is not directly above a ```console block")
        pending_options = None
        i = close + 1
