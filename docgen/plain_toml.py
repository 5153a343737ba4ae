"""Configuration files in plain TOML, read without importing `tomllib`.

Importing `tomllib` (with the `typing` and `datetime` modules it needs) costs about 5 ms, a tenth of a whole
`docgen check`, which runs on every commit just to read five settings. Most configurations, this
repository's pyproject.toml among them, use only a plain subset of TOML:

- `[table.headers]` (not `[[arrays.of.tables]]`), each naming a table that does not exist yet;
- `key = value` lines with bare or quoted keys (not dotted keys), each key once per table;
- values: strings without escapes or line breaks ("basic" or 'literal'), decimal integers, `true`,
  `false`, and arrays of these (across lines, with comments and a trailing comma);
- comments, blank lines, LF or CRLF line ends.

`loads_plain` reads exactly that subset and answers None for anything else, valid or not; the caller then
hands the text to `tomllib`, which reads the rest of TOML and reports every error. So this reader never
has to know a rule it could get wrong: for the texts it accepts, its result equals `tomllib.loads`, which
tests/unit/test_plain_toml.py checks on generated documents, and it declines the rest.
"""

from __future__ import annotations

_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DIGITS = frozenset("0123456789")
# what may follow a value on its line or in an array
_AFTER_VALUE = frozenset(" \t\r\n#,]")
# arrays nested deeper are declined (tomllib then reports them), never read by recursing without bound
MAX_NESTING = 16


class _Decline(Exception):
    """The text leaves the plain subset (tomllib decides what it is)."""


def _control(char: str) -> bool:
    """Characters TOML forbids in strings and comments (tab is allowed)."""
    return (char < " " and char != "\t") or char == "\x7f"


def loads_plain(text: str) -> dict | None:
    try:
        return _Reader(text).document()
    except _Decline:
        return None


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0   # arrays open around the reading position

    # -- characters --------------------------------------------------------------------------------
    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def spaces(self) -> None:
        while self.peek() in (" ", "\t"):
            self.pos += 1

    def comment(self) -> None:
        """From `#` to the line end (not included)."""
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        body = self.text[self.pos + 1:end]
        if body.endswith("\r"):
            body = body[:-1]
            end -= 1
        if any(_control(c) for c in body):
            raise _Decline
        self.pos = end

    def line_end(self) -> None:
        """Spaces, an optional comment, then a line break or the end of the text."""
        self.spaces()
        if self.peek() == "#":
            self.comment()
        if self.text.startswith("\r\n", self.pos):
            self.pos += 2
        elif self.peek() == "\n":
            self.pos += 1
        elif self.pos < len(self.text):
            raise _Decline

    def gaps(self) -> None:
        """Inside an array: any spaces, line breaks and comments."""
        while True:
            self.spaces()
            char = self.peek()
            if char == "#":
                self.comment()
            elif self.text.startswith("\r\n", self.pos):
                self.pos += 2
            elif char == "\n":
                self.pos += 1
            else:
                return

    # -- tokens ------------------------------------------------------------------------------------
    def string(self) -> str:
        quote = self.peek()
        if self.text.startswith(quote * 3, self.pos):
            raise _Decline   # multi-line strings
        end = self.text.find(quote, self.pos + 1)
        if end < 0:
            raise _Decline
        body = self.text[self.pos + 1:end]
        if (quote == '"' and "\\" in body) or any(_control(c) for c in body):
            raise _Decline   # escapes, line breaks, control characters
        self.pos = end + 1
        return body

    def key(self) -> str:
        if self.peek() in ('"', "'"):
            return self.string()
        start = self.pos
        while self.peek() in _BARE_KEY:
            self.pos += 1
        if self.pos == start:
            raise _Decline
        return self.text[start:self.pos]

    def value(self):
        char = self.peek()
        if char in ('"', "'"):
            result = self.string()
        elif char == "[":
            result = self.array()
        elif self.text.startswith("true", self.pos):
            self.pos += 4
            result = True
        elif self.text.startswith("false", self.pos):
            self.pos += 5
            result = False
        else:
            result = self.integer()
        if self.peek() and self.peek() not in _AFTER_VALUE:
            raise _Decline   # e.g. `truex`, `1.5`, `1_000`, a date
        return result

    def integer(self) -> int:
        start = self.pos
        if self.peek() == "-":
            self.pos += 1
        digits = self.pos
        while self.peek() in _DIGITS:
            self.pos += 1
        number = self.text[digits:self.pos]
        if not number or (len(number) > 1 and number[0] == "0") or len(number) > 18:
            raise _Decline   # not a number, a leading zero (TOML forbids it), or near the 64-bit limit
        return int(self.text[start:self.pos])

    def array(self) -> list:
        self.pos += 1   # [
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Decline
        items: list = []
        while True:
            self.gaps()
            if self.peek() == "]":
                self.pos += 1
                self.depth -= 1
                return items
            items.append(self.value())
            self.gaps()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "]":
                raise _Decline

    # -- the document ------------------------------------------------------------------------------
    def document(self) -> dict:
        root: dict = {}
        table = root
        while True:
            self.gaps()   # blank lines and comment lines
            if self.pos >= len(self.text):
                return root
            if self.peek() == "[":
                table = self.header(root)
            else:
                key = self.key()
                self.spaces()
                if self.peek() != "=" or key in table:
                    raise _Decline   # a dotted key, a missing `=`, or a key given twice
                self.pos += 1
                self.spaces()
                table[key] = self.value()
            self.line_end()

    def header(self, root: dict) -> dict:
        if self.text.startswith("[[", self.pos):
            raise _Decline
        self.pos += 1
        path = []
        while True:
            self.spaces()
            path.append(self.key())
            self.spaces()
            if self.peek() == "]":
                self.pos += 1
                break
            if self.peek() != ".":
                raise _Decline
            self.pos += 1
        table = root
        for depth, part in enumerate(path):
            if part not in table:
                table[part] = {}
            elif not isinstance(table[part], dict) or depth == len(path) - 1:
                raise _Decline   # a value there, or the table exists already (defined or implied)
            table = table[part]
        return table
