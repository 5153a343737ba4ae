"""Small Markdown helpers shared by the renderers, and the one escaper for each context text from the inputs
lands in: `text` (prose and table cells: HTML outside the author's code spans), `code` (a code span, fenced
longer than any backtick run inside), `_cells` (a table cell: pipes, line breaks), `label` (a mermaid label)
and `shell` (a word of a generated console command). No input text reaches a page but through one of them,
so a comment holding HTML or a docgen marker renders as text and can neither create nor break a block."""

from __future__ import annotations

import re
import shlex

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def _cells(values: Iterable[object]) -> str:
    """One table row's cells: pipes escaped, line breaks flattened (a cell is one line in a pipe table). One
    comprehension per row: a function call per cell was a quarter of the time spent building tables."""
    return " | ".join(["" if v is None else str(v).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()
                       for v in values])


_RUNS = re.compile(r"`+")


def code(value: object) -> str:
    """A code span that survives backticks inside the value: its fence is one backtick longer than the
    longest run inside, padded with a space (which Markdown strips) so a run at either end cannot join the
    fence. A code span is one line: line breaks become spaces."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(r) for r in _RUNS.findall(text)) + 1)
    return f"{fence} {text} {fence}"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(value: object) -> str:
    """Prose from an input (a Dockerfile comment, a reason, a recorded field) as Markdown that shows exactly
    it: the author's code spans (a backtick run up to the next run of the same length) are kept, `&`, `<`
    and `>` outside them become entities, so raw HTML and marker-like comments render as text, and a
    backtick that closes no span becomes an entity, so it cannot pair with a code span that follows."""
    raw = str(value)
    if "`" not in raw:
        return _html(raw)
    out, at = [], 0
    runs = list(_RUNS.finditer(raw))
    index = 0
    while index < len(runs):
        run = runs[index]
        closing = next((j for j in range(index + 1, len(runs)) if len(runs[j][0]) == len(run[0])), None)
        out.append(_html(raw[at:run.start()]))
        if closing is None:
            out.append("&#96;" * len(run[0]))
            at = run.end()
            index += 1
        else:
            out.append(raw[run.start():runs[closing].end()])
            at = runs[closing].end()
            index = closing + 1
    out.append(_html(raw[at:]))
    return "".join(out)


_INLINE_MARKUP = re.compile(r"([\\`*_\[\]~])")   # what starts emphasis, code, a link or strikethrough inline


def literal(value: object) -> str:
    """Input text shown character for character where a code span will not do (a table cell that may hold
    a pipe: Python-Markdown shows an escaped pipe inside a code span as a backslash and a pipe): `&`, `<`
    and `>` as entities, and every character Markdown could read as markup (emphasis, links, code) escaped
    with a backslash, which Python-Markdown and GitHub both honour. For text inside a line (a table cell):
    what only starts a block at a line's start (`#`, `-`, `1.`) is left alone."""
    return _INLINE_MARKUP.sub(r"\\\1", _html(str(value)))


def shell(word: object) -> str:
    """One word of a generated console command, quoted for the shell when it holds anything but the plain
    characters of names and paths (which stay as they are)."""
    return shlex.quote(str(word))


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


def label(text: str) -> str:
    """Text inside a quoted mermaid label or message, as mermaid entity codes: quotes and semicolons would
    end it early, `#` starts an entity, `<` and `>` are markup (or an arrow), a backtick could close the
    page's fence; a label is one line."""
    return str(text).translate(_LABEL)


_LABEL = str.maketrans({"#": "#35;", '"': "#quot;", ";": "#59;", "<": "#lt;", ">": "#gt;", "`": "#96;",
                        "\r": " ", "\n": " "})


def short_fqn(fqn: str) -> str:
    """`nemo_rl.models.policy.workers.x.Cls` -> `workers.x.Cls`: enough to tell actors apart in a table."""
    parts = fqn.split(".")
    return ".".join(parts[-3:]) if len(parts) > 3 else fqn
