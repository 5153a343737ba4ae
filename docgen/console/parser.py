"""Console transcripts in Markdown: ```console fenced blocks read as commands plus expected output.

A block holds one or more steps. A step is a `$ command` line, its continuation lines (the previous
line ends in `\\`, or the line starts with `> `), then the expected output up to the next `$ ` line.
`...` alone on a line matches any number of lines, `...` inside a line matches any text, and a last
line `[N]` expects exit status N (default 0). Options sit in an HTML comment directly above the fence:
`<!-- console: timeout=20 skip="reason" where=host -->`.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Iterator, NoReturn

from docgen.errors import InputError
from docgen.fences import COMMENT, regions

ANY_LINES = "..."
_ATX_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(?P<text>.*?)[ \t]*#*[ \t]*")
_OPTIONS = re.compile(r"[ \t]*<!--[ \t]*console:(?P<args>.*?)-->[ \t]*")
EXIT_STATUS = re.compile(r"\[(\d{1,3})\]")
_NOT_ABOVE = "console options comment is not directly above a ```console block"


@dataclass(frozen=True)
class BlockOptions:
    timeout: float = 30.0
    skip: str | None = None
    where: str = "image"            # or "host"


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


def output_matches(expected: tuple[str, ...] | list[str], actual: list[str]) -> bool:
    """True when the actual lines fit the expected lines, wildcards included. Greedy, going back only to the
    last `...` line on a mismatch (as glob matching does): at most len(expected) * len(actual) line tests,
    never an exponential backtrack."""
    want, got = _trim_trailing_blank(list(expected)), _trim_trailing_blank(list(actual))
    fits = [re.compile(".*".join(map(re.escape, line.split("..."))), re.DOTALL).fullmatch for line in want]
    i = j = 0
    back: tuple[int, int] | None = None   # where to resume after the last `...`: (expected, actual) index
    while j < len(got):
        if i < len(want) and want[i] == ANY_LINES:
            if i + 1 == len(want):
                return True   # a last `...` takes the rest
            i, back = i + 1, (i + 1, j)
        elif i < len(want) and fits[i](got[j]):
            i, j = i + 1, j + 1
        elif back is not None:   # the last `...` takes the lines up to the next one its follower fits
            i, j = back[0], next((k for k in range(back[1] + 1, len(got)) if fits[back[0]](got[k])), len(got))
            back = (i, j)
        else:
            return False
    return all(line == ANY_LINES for line in want[i:])


def _trim_trailing_blank(lines: list[str]) -> list[str]:
    # Blank lines that separate steps for readability are not part of what is expected.
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def parse_options(text: str, path: str, line: int) -> BlockOptions:
    """Read `key=value` tokens of a `<!-- console: ... -->` comment; anything unknown is an error."""
    def fail(message: str) -> NoReturn:
        raise InputError(path, line, f"console options: {message}") from None

    def seconds(value: str) -> float:
        with contextlib.suppress(ValueError):
            if 0 < (number := float(value)) <= 3600:
                return number
        fail(f"timeout must be seconds in (0, 3600], got {value!r}")

    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        fail(str(exc))
    values: dict[str, Any] = {}
    for key, sep, value in (token.partition("=") for token in tokens):
        if not sep or not key:
            fail(f"expected key=value, got {key + sep + value!r}")
        if key in values:
            fail(f"{key!r} given twice")
        if key not in ("skip", "timeout", "where"):
            fail(f"unknown option {key!r} (known: skip, timeout, where)")
        if key == "skip" and not value.strip():
            fail('skip needs a reason, e.g. skip="needs a GPU"')
        if key == "where" and value not in ("image", "host"):
            fail(f"where must be one of image, host, got {value!r}")
        values[key] = seconds(value) if key == "timeout" else value
    return BlockOptions(**values)


def parse_steps(lines: list[str], path: str, first_line: int) -> tuple[ShellStep, ...]:
    """Split a block's lines into steps. `first_line` is the document line of lines[0]."""
    steps: list[ShellStep] = []
    i = next((n for n, line in enumerate(lines) if line.strip()), len(lines))
    if i < len(lines) and not lines[i].startswith("$ "):
        raise InputError(path, first_line + i, "console block: output before the first `$ ` command")
    while i < len(lines):
        start, i = i, i + 1
        while i < len(lines) and (lines[i - 1].endswith("\\") or lines[i].startswith("> ")):
            i += 1
        source = lines[start:i]
        # bash joins a backslash-newline itself; a `> ` secondary prompt is the reader's typing aid, not the command's
        parts = [source[0][2:], *(line[2:] if line.startswith("> ") else line for line in source[1:])]
        if not "".join(parts).strip():
            raise InputError(path, first_line + start, "console block: `$` without a command")
        output_from = i
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        expected, status = _trim_trailing_blank(lines[output_from:i]), 0
        if expected and (found := EXIT_STATUS.fullmatch(expected[-1])):
            expected, status = _trim_trailing_blank(expected[:-1]), int(found[1])
        steps.append(ShellStep("\n".join(parts), tuple(source), tuple(expected), status, first_line + start))
    return tuple(steps)


def render_steps(steps: list[ShellStep] | tuple[ShellStep, ...]) -> list[str]:
    """The block lines for these steps, as parse_steps reads them back."""
    return [line for step in steps
            for line in (*step.source, *step.expected, *([f"[{step.exit_status}]"] if step.exit_status else []))]


def slugify(heading: str) -> str:
    return re.sub(r"[\s_]+", "-", re.sub(r"[^\w\s-]", "", heading.lower())).strip("-") or "section"


def find_blocks(text: str, path: str) -> Iterator[ConsoleBlock]:
    """Every ```console block of a Markdown text, with its options, heading and number. Where the page shows
    code or a comment is docgen/fences.py's rule, shared with the block engine and the prose lint: a fence
    inside an HTML comment or indented code opens no block, and an options comment counts only in the page's
    flow, alone on its line. Lines end at "\\n" alone, as the block engine numbers them."""
    lines = text.split("\n")
    # the offset where each line starts (the text's end past its last line)
    at = [min(n, len(text)) for n in itertools.accumulate((len(line) + 1 for line in lines), initial=0)]
    heading, prose_from = "top", 0
    numbers: dict[str, int] = {}              # blocks so far under each heading
    pending: tuple[int, str] | None = None   # (line, arguments) of the options comment just above
    for region in [*regions(text), None]:
        comment = region is not None and region.kind == COMMENT
        for i in range(prose_from, len(lines) if region is None else region.start + comment):
            if pending is not None:   # a line of prose, or a comment, between the options and the fence
                raise InputError(path, pending[0], _NOT_ABOVE)
            if comment and region and region.stop == i + 1 and (found := _OPTIONS.fullmatch(lines[i])):
                pending = (i + 1, found["args"])
            elif found := _ATX_HEADING.fullmatch(lines[i]):
                heading = slugify(found["text"])
        if region is None or comment:
            prose_from = len(lines) if region is None else region.stop
            continue
        if region.fence is None or region.fence.language != "console":
            if pending is not None:
                raise InputError(path, pending[0], _NOT_ABOVE)
            prose_from = region.stop
            continue
        if len(region.fence.prefix) > 3 or region.fence.prefix.strip(" \t"):
            # nested in a list item, an admonition or a quote: its lines carry the container's prefix,
            # which neither the steps nor an update of the block would keep
            raise InputError(path, region.start + 1, "console block nested in a list, admonition or quote: the "
                                                     "console runner reads blocks whose fence is indented 3 spaces at most")
        options = BlockOptions() if pending is None else parse_options(pending[1], path, pending[0])
        close = region.stop - region.closed   # the closing fence's line; the page's end when it has none
        numbers[heading] = numbers.get(heading, 0) + 1
        yield ConsoleBlock(path, region.start + 1, heading, numbers[heading],
                           parse_steps(lines[region.start + 1:close], path, region.start + 2), options,
                           at[region.start], at[region.stop], at[region.start + 1], at[close])
        pending, prose_from = None, region.stop
    if pending is not None:
        raise InputError(path, pending[0], _NOT_ABOVE)
