"""One reporter per output format for `docgen check` and `docgen lint`: text for a terminal, GitHub
workflow annotations, and one JSON object. Each says which tree and which inputs it judged."""

from __future__ import annotations

import json
import sys

from docgen.check.pipeline import Run


def facts_changes(run: Run) -> list[str] | None:
    """None when the recorded facts match; else what changed (or why it cannot be said)."""
    from docgen.blocks.facts import diff_facts

    if run.recorded_facts_text == run.facts_text:
        return None
    shown = run.project.display(run.project.facts)
    if run.recorded_facts_text is None:
        return [f"{shown} is missing"]
    try:
        recorded = json.loads(run.recorded_facts_text)
    except (json.JSONDecodeError, RecursionError):
        return [f"{shown} is not valid JSON"]
    return diff_facts(recorded if isinstance(recorded, dict) else {}, run.facts) or [f"{shown} is out of date"]


def block_message(change) -> str:
    name = change.block.generator
    if change.hand_edited:
        why = "edited by hand (its body no longer matches the digest it was written with)"
    elif change.block.recorded_inputs is None:
        why = "never rendered"
    elif change.changed_inputs:
        why = f"{' and '.join(change.changed_inputs)} changed since it was written"
    else:
        why = "its text differs from what the current facts render"
    return f"block `{name}` is stale: {why}"


def judged(run: Run) -> dict:
    """Which tree and which files a run judged: stated by --verbose and the JSON report."""
    return {**run.project.describe(), "pages_read": [p.doc.path for p in run.pages]}


def verbose_line(run: Run) -> str:
    j = judged(run)
    config = j["config"] or "none (defaults)"
    return (f"docgen: root {j['root']} ({j['found_by']}); config {config}; dockerfile {j['dockerfile']}; "
            f"snapshot {j['snapshot']}; {len(j['pages_read'])} pages; facts {j['facts']}")


def report(fmt: str, run: Run, findings, *, include_drift: bool) -> bool:
    """Print the report; True when there is drift."""
    from docgen.blocks import block_diff

    blocks = [c for p in run.pages for c in p.block_changes] if include_drift else []
    values = [c for p in run.pages for c in p.value_changes] if include_drift else []
    facts = facts_changes(run) if include_drift else None
    facts_file = run.project.display(run.project.facts)
    drift = bool(blocks or values or facts)
    out = sys.stdout
    if fmt == "json":
        doc = {
            "ok": not drift and not findings,
            "judged": judged(run),
            "stale_blocks": [{"path": c.path, "line": c.block.line, "generator": c.block.generator,
                              "changed_inputs": list(c.changed_inputs), "hand_edited": c.hand_edited,
                              "message": block_message(c), "diff": block_diff(c)} for c in blocks],
            "stale_values": [{"path": c.path, "line": c.value.line, "key": c.value.key, "old": c.old, "new": c.new}
                             for c in values],
            "facts_changes": facts or [],
            "findings": [{"path": f.path, "line": f.line, "check": f.check, "message": f.message} for f in findings],
        }
        out.write(json.dumps(doc, indent=2) + "\n")
        return drift
    if fmt == "github":
        def annotate(path, line, title, message):
            where = f"file={path}" + (f",line={line}" if line else "")
            message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            out.write(f"::error {where},title={title}::{message}\n")
        for c in blocks:
            annotate(c.path, c.block.line, "docgen: stale block", block_message(c) + ". Run `docgen write`.")
        for c in values:
            annotate(c.path, c.value.line, "docgen: stale value",
                     f"value `{c.value.key}` is {c.new!r} now, the page says {c.old!r}. Run `docgen write`.")
        if facts:
            annotate(facts_file, None, "docgen: facts changed", "; ".join(facts) + ". Run `docgen write`.")
        for f in findings:
            if f.line is None:
                out.write(f"::error title=docgen: {f.check}::{f.path}: {f.message}\n")
            else:
                annotate(f.path, f.line, f"docgen: {f.check}", f.message)
    for c in blocks:
        if fmt == "text":
            out.write(f"{c.path}:{c.block.line}: {block_message(c)}\n")
        out.write(block_diff(c))
    if fmt == "text":
        for c in values:
            out.write(f"{c.path}:{c.value.line}: value `{c.value.key}` is stale: {c.old!r} -> {c.new!r}\n")
        if facts:
            out.write("facts changed since the docs were written: " + "; ".join(facts) + "\n")
        for f in findings:
            out.write(f"{f}\n")
        if drift or findings:
            parts = [f"{len(blocks)} stale blocks", f"{len(values)} stale values"] if include_drift else []
            parts.append(f"{len(findings)} findings")
            hint = " Run `docgen write` for the docs; fix the Dockerfile for the findings." if drift else ""
            print(f"docgen: {', '.join(parts)} in {run.project.root}.{hint}", file=sys.stderr)
    return drift
