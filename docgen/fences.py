"""The one fence rule of docgen's Markdown readers: the block engine, the prose lint and the console parser
all tell code from prose through `opening_fence` and `Fence.closed_by`, so a region is code for all three or
for none."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence

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


def indentation(line: str) -> int:
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


def in_indented_code(lines: Sequence[str], index: int) -> bool:
    """Whether lines[index] (lines with or without their endings) lies in an indented code block: the rule
    above. Only a line indented four or more can; the walk goes up only over the lines indented as deep."""
    line = lines[index]
    col = indentation(line)
    if col < 4 or not line.strip():
        return False
    blank = False
    for j in range(index - 1, -1, -1):
        above = lines[j]
        if not above.strip():
            blank = True
            continue
        depth = indentation(above)
        if depth >= col:
            continue
        base = depth + 4 if _CONTAINER.match(above) else depth
        return col >= base + 4 and (blank or above.lstrip().startswith("#"))
    return True   # nothing above it but blanks and deeper lines: code from the top of the page
