"""Small Markdown helpers shared by the renderers: pipe tables, code spans, mermaid-safe labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence


def _cells(values: Iterable[object]) -> str:
    """One table row's cells: pipes escaped, line breaks flattened (a cell is one line in a pipe table). One
    comprehension per row: a function call per cell was a quarter of the time spent building tables."""
    return " | ".join(["" if v is None else str(v).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()
                       for v in values])


def code(value: object) -> str:
    """A code span that survives backticks inside the value."""
    text = str(value)
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


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
    """Text inside a quoted mermaid label or message: quotes and semicolons would end it early."""
    return str(text).replace('"', "#quot;").replace(";", "#59;")


def short_fqn(fqn: str) -> str:
    """`nemo_rl.models.policy.workers.x.Cls` -> `workers.x.Cls`: enough to tell actors apart in a table."""
    parts = fqn.split(".")
    return ".".join(parts[-3:]) if len(parts) > 3 else fqn
