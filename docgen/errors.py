"""Errors are values with a location until the CLI prints them, and the exit codes every command uses."""

from __future__ import annotations

import re
from pathlib import Path

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2   # ok; drift or findings; bad input (nothing written)


class InputError(Exception):
    """Bad input: names the file and line that is wrong. The CLI maps it to exit code 2."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = _escaped(str(path))
        self.line = line
        self.message = _escaped(message)
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escaped(text: str) -> str:
    """Control characters (a terminal escape, a NUL) quoted from an input are shown as escapes, never sent to
    the terminal as they are; newlines and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _CONTROL.search(text) else text


class ArgError(ValueError):
    """A block or value the model cannot render (an argument it cannot satisfy, a fact the inputs do not
    give); the block engine adds the page's file and line and reports it as bad input."""
