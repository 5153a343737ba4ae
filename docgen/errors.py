"""Errors are values with a location until the CLI prints them, and the exit codes every command uses."""

from __future__ import annotations

from pathlib import Path

EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2   # ok; drift or findings; bad input (nothing written)


class InputError(Exception):
    """Bad input: names the file and line that is wrong. The CLI maps it to exit code 2."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"


class ArgError(ValueError):
    """A block or value the model cannot render (an argument it cannot satisfy, a fact the inputs do not
    give); the block engine adds the page's file and line and reports it as bad input."""
