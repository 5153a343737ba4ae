"""Errors are values with a location until the CLI prints them, and the exit codes every command uses."""

from __future__ import annotations

import re
from pathlib import Path

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2   # ok; drift or findings; bad input (nothing written)


class InputError(Exception):
    """Bad input: names the file and line that is wrong. The CLI maps it to exit code 2."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = escape_controls(str(path))
        self.line = line
        self.message = escape_controls(message)
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


# control characters, the Unicode line and paragraph separators, and the bidirectional embeddings, overrides and
# isolates: what no name, path or log line from an input may hold as it is (the snapshot's loader and the
# configuration refuse them; messages show them escaped)
CONTROL_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str, *, lines: bool = False) -> str:
    """Text for a log line: control characters (a terminal escape, a NUL, a line break or a tab), the Unicode
    line separators and the bidirectional overrides are shown as escapes (`\\x1b`, `\\n`, `\\u202e`), never
    sent to the terminal or a CI log as they are, so an input can neither rewrite the screen nor start a line of
    its own (a GitHub workflow command such as `::error::` counts only at a line's start). With `lines`, line
    breaks and tabs stay: for text that is several lines by design (a diff), which its caller fences."""
    pattern = _LINES if lines else CONTROL_CHARS
    return pattern.sub(_escape_one, text) if pattern.search(text) else text


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_one(match: re.Match) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


class ArgError(ValueError):
    """A block or value the model cannot render (an argument it cannot satisfy, a fact the inputs do not
    give); the block engine adds the page's file and line and reports it as bad input."""
