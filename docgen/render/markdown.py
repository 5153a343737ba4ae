"""Small Markdown helpers shared by the renderers, and the one escaper for each context text from the inputs
lands in: `text` (prose and table cells: HTML and inline Markdown outside the author's code spans), `code` (a
code span, fenced longer than any backtick run inside), `_cells` (a table cell: pipes, line breaks), `label`
(a mermaid label) and `shell` (a word of a generated console command). No input text reaches a page but
through one of them, so a comment holding HTML, a link, an image, an attribute list or a docgen marker
renders as text and can neither create nor break a block.

Each escaper returns its own `str` subclass (`Markdown`, `Label`, `ShellWord`): text already escaped for a
context says so by its type, and an escaper given its own type returns it as it is, so text is never escaped
twice and a renderer can tell escaped text from raw text."""

from __future__ import annotations

import re
import shlex

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


class Markdown(str):
    """Text escaped for Markdown inline content: what it shows is what the input said, with no markup of its own
    but the author's code spans."""
    __slots__ = ()


class Label(str):
    """Text escaped for a quoted mermaid label or a sequence diagram's message: one line, no directive."""
    __slots__ = ()


class ShellWord(str):
    """One word of a bash command line: quoted so it stays one word on one line."""
    __slots__ = ()


def _cells(values: Iterable[object]) -> str:
    """One table row's cells: pipes escaped, line breaks flattened (a cell is one line in a pipe table). One
    comprehension per row: a function call per cell was a quarter of the time spent building tables."""
    return " | ".join(["" if v is None else str(v).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()
                       for v in values])


_RUNS = re.compile(r"`+")


def code(value: object) -> Markdown:
    """A code span that survives backticks inside the value: its fence is one backtick longer than the
    longest run inside, padded with a space (which Markdown strips) so a run at either end cannot join the
    fence. A code span is one line: line breaks become spaces."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    if "`" not in text:
        return Markdown(f"`{text}`")
    fence = "`" * (max(len(r) for r in _RUNS.findall(text)) + 1)
    return Markdown(f"{fence} {text} {fence}")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# Inline syntax outside code spans, each escaped with a backslash (Python-Markdown and GitHub both honour an
# escaped ASCII punctuation mark): `[` `]` open links, images and footnotes (`!` alone does nothing), `{` `}`
# attribute lists (attr_list), `*` emphasis, `~` strikethrough on GitHub, `\` an escape of its own. An
# underscore is emphasis only at a word's edge (`nemo_rl` stays as it is, on both renderers). A line break
# is a space: text is inline, and a break could start a block (a heading, a list, a fence).
_INLINE = re.compile(r"[\\*\[\]{}~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _plain(text: str) -> str:
    """Input text between code spans: HTML characters as entities, inline syntax escaped, one line."""
    text = _html(text)
    if "\n" in text or "\r" in text:
        text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    return _INLINE.sub(r"\\\g<0>", text)


def text(value: object) -> Markdown:
    """Prose from an input (a Dockerfile comment, a reason, a recorded field) as Markdown that shows exactly
    it: the author's code spans (a backtick run up to the next run of the same length) are kept; outside
    them `&`, `<` and `>` become entities and inline syntax (links, images, emphasis, attribute lists) is
    escaped, so raw HTML, a `javascript:` link, an outside image and marker-like comments render as text;
    a backtick that closes no span becomes an entity, so it cannot pair with a code span that follows."""
    if isinstance(value, Markdown):
        return value
    raw = str(value)
    if "`" not in raw:
        return Markdown(_plain(raw))
    out, at = [], 0
    runs = list(_RUNS.finditer(raw))
    index = 0
    while index < len(runs):
        run = runs[index]
        closing = next((j for j in range(index + 1, len(runs)) if len(runs[j][0]) == len(run[0])), None)
        out.append(_plain(raw[at:run.start()]))
        if closing is None:
            out.append("&#96;" * len(run[0]))
            at = run.end()
            index += 1
        else:
            out.append(code(raw[run.end():runs[closing].start()]) if "\n" in raw[run.start():runs[closing].end()]
                       else raw[run.start():runs[closing].end()])
            at = runs[closing].end()
            index = closing + 1
    out.append(_plain(raw[at:]))
    return Markdown("".join(out))


# what starts emphasis, code, a link, an attribute list or strikethrough
_INLINE_MARKUP = re.compile(r"([\\`*_\[\]{}~])")


def literal(value: object) -> Markdown:
    """Input text shown character for character where a code span will not do (a table cell that may hold
    a pipe: Python-Markdown shows an escaped pipe inside a code span as a backslash and a pipe): `&`, `<`
    and `>` as entities, and every character Markdown could read as markup (emphasis, links, code,
    attribute lists) escaped with a backslash, which Python-Markdown and GitHub both honour. For text inside
    a line (a table cell): what only starts a block at a line's start (`#`, `-`, `1.`) is left alone."""
    if isinstance(value, Markdown):
        return value
    return Markdown(_INLINE_MARKUP.sub(r"\\\1", _html(str(value))))


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shell(word: object) -> ShellWord:
    """One word of a generated console command, quoted for bash when it holds anything but the plain
    characters of names and paths (which stay as they are). A word holding a line break or another control
    character is written in bash's `$'...'` quoting, its characters as escapes, so it stays on its line and a
    line break in an input can never add a command to a transcript."""
    if isinstance(word, ShellWord):
        return word
    raw = str(word)
    if not _CONTROL.search(raw):
        return ShellWord(shlex.quote(raw))
    body = "".join(f"\\x{ord(ch):02x}" if _CONTROL.match(ch) or ch in "\\'" else ch for ch in raw)
    return ShellWord(f"$'{body}'")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + _cells(headers) + " |", "|" + "|".join(["---"] * len(headers)) + "|"]
    lines += ["| " + _cells(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def mermaid(lines: Iterable[str]) -> str:
    return "```mermaid\n" + "\n".join(lines) + "\n```\n"


def node_id(text: str) -> str:
    """A mermaid node id: letters, digits and underscores only."""
    out = "".join(ch if ch.isalnum() else "_" for ch in text)
    return out if out[:1].isalpha() else "n_" + out


def label(text: str) -> Label:
    """Text inside a quoted mermaid label or message, as mermaid entity codes: quotes and semicolons would
    end it early, `#` starts an entity, `<` and `>` are markup (or an arrow), a backtick could close the
    page's fence or open a Markdown string, `%` could open a directive (`%%{init: ...}%%`, read anywhere in
    a diagram) or a comment, `{` `}` could close a node's shape; a label is one line, and other control
    characters are dropped."""
    if isinstance(text, Label):
        return text
    return Label(str(text).translate(_LABEL))


_LABEL = str.maketrans({"#": "#35;", '"': "#quot;", ";": "#59;", "<": "#lt;", ">": "#gt;", "`": "#96;",
                        "%": "#37;", "{": "#123;", "}": "#125;", "\r": " ", "\n": " ",
                        **{c: None for c in [*range(0x00, 0x0a), *range(0x0b, 0x0d), *range(0x0e, 0x20), 0x7f]}})


def short_fqn(fqn: str) -> str:
    """`nemo_rl.models.policy.workers.x.Cls` -> `workers.x.Cls`: enough to tell actors apart in a table."""
    parts = fqn.split(".")
    return ".".join(parts[-3:]) if len(parts) > 3 else fqn
