"""Small Markdown helpers shared by the renderers: pipe tables, code spans, mermaid-safe labels."""

from __future__ import annotations

from typing import Iterable, Sequence


def cell(value: object) -> str:
    """One table cell: pipes escaped, line breaks flattened (a cell is one line in a pipe table)."""
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()


def code(value: object) -> str:
    """A code span that survives backticks inside the value."""
    text = str(value)
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
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
