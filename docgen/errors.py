"""Errors are values with a location until the CLI prints them (exit code 2)."""

from __future__ import annotations

from pathlib import Path


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


def read_json_object(path: str | Path, what: str = "") -> tuple[str, dict]:
    """An input file holding one JSON object: (its text, for finding lines later; the object)."""
    import json

    text = read_input(path, what)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise InputError(path, 1, "expected a JSON object")
    return text, data


def read_input(path: str | Path, what: str = "", *, newline: str | None = None) -> str:
    """The text of an input file. Unreadable (missing, a directory, no permission) or non-UTF-8 input is an
    InputError naming the file, and for a bad byte its line. `newline=None` turns CRLF and CR into LF as
    `open` does; `newline=""` keeps line endings as written."""
    label = f"cannot read{' ' + what if what else ''}"
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(path, None, f"{label}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, data.count(b"\n", 0, exc.start) + 1,
                         f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x})") from None
    return text if newline == "" else text.replace("\r\n", "\n").replace("\r", "\n")
