"""One reporter per output format for `docgen check` and `docgen lint`: text for a terminal, GitHub
workflow annotations, and one JSON object; plus a Markdown job summary. Each says which tree and which
inputs it judged.

Everything a run found becomes one ordered list of items, so every format tells the same story in the same
order: what changed in the facts first, then the items on files the change touched (`--changed-files`),
then the rest. A review sees the findings on its own edit first, and GitHub's per-step cap on annotations
drops the least relevant ones, with a last annotation saying how many more there are and where.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import NamedTuple

from docgen import __version__
from docgen.blocks import STAMP_VERSION, block_diff
from docgen.check.facts import diff_facts
from docgen.rules import rule
from docgen.check.mentions import coverage as claims_coverage
from docgen.check.pipeline import Run
from docgen.errors import escape_controls
from docgen.io import append_report
from docgen.render.markdown import code, text as markdown_text

DEFAULT_MAX_ANNOTATIONS = 10   # what GitHub shows of one type per step
_SUMMARY_DIFF_CHARS = 200_000  # a step summary is capped at 1 MiB; the diff gets folded and trimmed first


class Item(NamedTuple):
    path: str
    line: int | None
    title: str          # annotation title: "stale block", "facts changed", or a lint check's name
    message: str        # one line, without the location
    kind: str           # "facts", "drift" (docgen write fixes it) or "finding" (a person fixes it)
    diff: str = ""
    text: str = ""      # the text-format line, location included


class Options(NamedTuple):
    diff: bool = False
    quiet: bool = False
    changed: frozenset[str] = frozenset()
    max_annotations: int = DEFAULT_MAX_ANNOTATIONS
    summary: str | None = None          # a Markdown file to append the job summary to
    verbose: bool = False               # print the claims coverage line even when every claim is owned


def facts_changes(run: Run) -> list[str] | None:
    """None when the recorded facts match; else what changed (or why it cannot be said)."""
    if run.recorded_facts_raw == run.facts_text.encode():
        return None
    shown = run.project.display(run.project.facts)
    if run.recorded_facts_unreadable:
        return [f"{shown} cannot be read, `{fix_command(run)}` writes it anew: {run.recorded_facts_unreadable}"]
    if run.recorded_facts is None:
        return [f"{shown} is missing"]
    return diff_facts(run.recorded_facts, run.facts) or [f"{shown} is out of date"]


def block_message(change) -> str:
    name = change.block.generator
    if change.hand_edited:
        why = "edited by hand (its body no longer matches the digest it was written with)"
    elif change.block.recorded_body is None:
        why = "never rendered"
    elif not change.text_changed:
        why = "its end marker's digest does not match its text"
    else:
        why = "its text differs from what the current facts render"
    return f"block `{name}` is stale: {why}"


def drift_changes(run: Run) -> list:
    """The block changes that are drift: all but end markers of an older form around the right text."""
    return [c for p in run.pages for c in p.block_changes if not c.old_stamps]


def old_stamps_note(run: Run) -> str | None:
    """One line when blocks still carry input stamps (end markers before STAMP_VERSION 3) around the right
    text: not drift, nothing to fix, but `write` will rewrite those markers once."""
    old = [c for p in run.pages for c in p.block_changes if c.old_stamps]
    if not old:
        return None
    pages = list(dict.fromkeys(c.path for c in old))
    where = ", ".join(pages[:4]) + (f" and {len(pages) - 4} more pages" if len(pages) > 4 else "")
    return (f"docgen: note: {len(old)} block{'s' if len(old) != 1 else ''} in {where} still carry input stamps "
            f"(end markers of version {min(c.block.stamp_version or 1 for c in old)}); their text is current, so "
            f"this is not drift. `{fix_command(run)}` rewrites them as version {STAMP_VERSION} markers, which "
            "stamp only the block's own text.")


def collect(run: Run, findings, *, include_drift: bool, changed: frozenset[str] = frozenset()) -> list[Item]:
    """Every item of a run, in report order: facts, then items on changed files, then the rest."""
    items: list[Item] = []
    if include_drift:
        facts = facts_changes(run)
        if facts:
            shown = run.project.display(run.project.facts)
            items.append(Item(shown, None, "facts changed", "; ".join(facts), "facts",
                              text="facts changed since the docs were written: " + "; ".join(facts)))
    # a finding of a rule `docgen write` fixes (a sentence not yet recorded) is drift, not a person's job
    rest: list[Item] = [Item(f.path, f.line, f.check, f.message, "drift" if rule(f.check).write else "finding",
                             text=str(f)) for f in findings]
    if include_drift:
        for c in drift_changes(run):
            msg = block_message(c)
            rest.append(Item(c.path, c.block.line, "stale block", msg, "drift", block_diff(c),
                             f"{c.path}:{c.block.line}: {msg}"))
        for p in run.pages:
            for v in p.value_changes:
                rest.append(Item(v.path, v.value.line, "stale value",
                                 f"value `{v.value.key}` is {v.new!r} now, the page says {v.old!r}", "drift",
                                 text=f"{v.path}:{v.value.line}: value `{v.value.key}` is stale: "
                                      f"{v.old!r} -> {v.new!r}"))
    first = [i for i in rest if i.path in changed]
    # what changed in the facts explains what the pages show wrong; alone it is no failure: a fact no page
    # shows or names may move freely (the next `docgen write` brings the record along)
    return [_logged(i) for i in (items if rest else []) + first + [i for i in rest if i.path not in changed]]


def _logged(item: Item) -> Item:
    """An item whose text can go to a log: every field one line with its control characters shown escaped
    (input text reaches messages: a Dockerfile comment, a page's marker), the diff its lines kept."""
    return Item(escape_controls(item.path), item.line, escape_controls(item.title), escape_controls(item.message),
                item.kind, escape_controls(item.diff, lines=True), escape_controls(item.text))


def counts(run: Run, include_drift: bool) -> dict[str, int]:
    if not include_drift:
        return {}
    return {"stale blocks": len(drift_changes(run)),
            "stale values": sum(len(p.value_changes) for p in run.pages)}


def fix_command(run: Run) -> str:
    """The one command that brings the docs back in step, as the reader can paste it where they ran check."""
    how = run.project.how
    if how == "--config" and run.project.config_file is not None:
        return f"docgen write --config {run.project.config_file}"
    if how == "--root":
        return f"docgen write --root {run.project.root}"
    return "docgen write"


def verdict(run: Run, items: list[Item], include_drift: bool, *, diff_shown: bool) -> str:
    """The last line of a failing run: what is wrong, and what to type."""
    n = counts(run, include_drift)
    parts = [f"{v} {k}" for k, v in n.items()]
    findings = [i for i in items if i.kind == "finding"]
    parts.append(f"{len(findings)} findings")
    drift = any(i.kind != "finding" for i in items)
    text = f"docgen: {', '.join(parts)} in {run.project.root}."
    if drift:
        text += f" Fix the docs with `{fix_command(run)}` and commit the result"
        text += "; the findings need an edit to the inputs (docgen write cannot fix them)." if findings else "."
        if not diff_shown and any(i.diff for i in items):
            text += " (--diff shows what would change.)"
    elif findings:
        paths = ", ".join(dict.fromkeys(i.path for i in findings))
        text += f" Edit {paths} to resolve the findings; `docgen lint` re-checks them."
    return text


def judged(run: Run) -> dict:
    """Which tree and which files a run judged: stated by --verbose and the JSON report."""
    return {**run.project.describe(), "pages_read": [p.doc.path for p in run.pages]}


# ------------------------------------------------------------------------------------------------ formats

def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(item: Item) -> str:
    where = f"file={_escape_property(item.path)}" + (f",line={item.line}" if item.line else "")
    fix = ". Run `docgen write`." if item.kind != "finding" else ""
    return f"::error {where},title={_escape_property('docgen: ' + item.title)}::{_escape_data(item.message + fix)}\n"


def fenced_log(log: str) -> str:
    """`log` between GitHub's `stop-commands` and its end, so no line of it is read as a workflow command (a
    diff quotes pages, and a page quotes its inputs). The token is the log's own digest: the same log gives
    the same output, and no input can hold the digest of a text that holds it."""
    token = hashlib.sha256(log.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return f"::stop-commands::{token}\n{log}::{token}::\n"


def workflow_annotations(items: list[Item], limit: int) -> list[str]:
    """At most `limit` annotations; when there are more, the last one says how many and on which files."""
    if len(items) <= limit:
        return [annotation(i) for i in items]
    shown, left = items[: max(limit - 1, 0)], items[max(limit - 1, 0):]
    per_file: dict[str, int] = {}
    for i in left:
        per_file[i.path] = per_file.get(i.path, 0) + 1
    where = ", ".join(f"{n} in {p}" for p, n in per_file.items())
    more = (f"{len(left)} more not annotated (GitHub shows {limit} per step): {where}. "
            "All of them are in this step's log and in the job summary.")
    return [annotation(i) for i in shown] + [f"::error title={_escape_property('docgen: ' + str(len(left)) + ' more')}"
                                             f"::{_escape_data(more)}\n"]


def summary_markdown(run: Run, items: list[Item], include_drift: bool, changed: frozenset[str],
                     command: str = "check") -> str:
    """A job summary: facts first ("venvs 9 -> 8"), then findings and stale blocks, then the diff folded."""
    facts = facts_changes(run) if include_drift else None
    others = [i for i in items if i.kind != "facts"]
    out = [f"## docgen {command}: {'passed' if not items else 'failed'}\n"]
    coverage = claims_coverage(run) if getattr(run, "model", None) is not None else None   # a run with a model
    if coverage is not None:
        out.append(f"**Claims coverage:** {_md(coverage.line().removeprefix('docgen: claims coverage '))}\n")
    if coverage is not None and coverage.unowned:
        out.append("### Unowned claims (written by hand, judged by nothing)\n")
        out += [f"- {code(escape_controls(f'{c.path}:{c.line}'))}: {_md(c.text)}" for c in coverage.unowned]
        out.append("")
    if not items:
        out.append(f"The docs match the model and no check found anything ({len(run.pages)} pages).\n")
        return "\n".join(out) + "\n"
    if any(i.kind != "finding" for i in items):
        out.append(f"**To fix the docs:** run `{fix_command(run)}` and commit the result.\n")
    if facts:
        out.append("### What changed in the facts\n")
        out += [f"- {_md(f)}" for f in facts]
        out.append("")
    findings = [i for i in others if i.kind == "finding"]
    drift = [i for i in others if i.kind == "drift"]
    for title, group in (("Findings (edit the inputs)", findings), ("Stale docs (`docgen write` fixes them)", drift)):
        if group:
            out.append(f"### {title}: {len(group)}\n")
            for i in group:
                where = f"{i.path}:{i.line}" if i.line else i.path
                mark = " (changed in this pull request)" if i.path in changed else ""
                label = f"[{i.title}] " if i.kind == "finding" else ""
                out.append(f"- {code(where)}{mark}: {label}{_md(i.message)}")   # the title is a check's name
            out.append("")
    diff = "".join(i.diff for i in others)
    if diff:
        lines = diff.count("\n")
        if len(diff) > _SUMMARY_DIFF_CHARS:
            diff = diff[:_SUMMARY_DIFF_CHARS].rsplit("\n", 1)[0] + "\n... (trimmed; run `docgen check --diff`)\n"
        fence = "```"
        while fence in diff:
            fence += "`"
        out += [f"<details><summary>The diff `{fix_command(run)}` would apply ({lines} lines)</summary>\n",
                f"{fence}diff", diff.rstrip("\n"), fence, "", "</details>", ""]
    return "\n".join(out) + "\n"


def _coverage_json(run: Run) -> dict:
    """The claims coverage: the tally, the percentage and every unowned span with file:line."""
    coverage = claims_coverage(run)
    return {"percent": round(coverage.percent, 1), **coverage.tally(),
            "unowned_spans": [{"path": c.path, "line": c.line, "kind": c.kind, "text": c.text}
                              for c in coverage.unowned]}


def _md(text: str) -> str:
    """Message text inside a Markdown list item: control characters shown escaped, then Markdown's own
    escaper for text (no raw HTML, link, image or emphasis; the message's code spans kept)."""
    return markdown_text(escape_controls(text))


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rule_id(title: str) -> str:
    return "docgen/" + "-".join(title.lower().split())


def sarif(run: Run, items: list[Item]) -> dict:
    """Every item as a SARIF 2.1.0 result, for code scanning: no cap like the annotations', each on its file
    and line (relative to the repository root), drift with the command that fixes it."""
    rules: dict[str, dict] = {}
    results = []
    for i in items:
        rule = _rule_id(i.title)
        rules.setdefault(rule, {"id": rule, "name": i.title,
                                "shortDescription": {"text": f"docgen: {i.title}"},
                                "help": {"text": f"`{fix_command(run)}` re-renders the docs" if i.kind != "finding"
                                         else "edit the inputs this names; `docgen lint` re-checks them"}})
        location: dict[str, object] = {"artifactLocation": {"uri": i.path, "uriBaseId": "%SRCROOT%"}}
        if i.line:
            location["region"] = {"startLine": i.line}
        fix = f" Run `{fix_command(run)}`." if i.kind != "finding" else ""
        results.append({"ruleId": rule, "level": "error", "message": {"text": i.message + fix},
                        "locations": [{"physicalLocation": location}]})
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "docgen", "version": __version__,
                                          "rules": list(rules.values())}},
                      "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository root"}}},
                      "results": results}]}


def report(fmt: str, run: Run, findings, *, include_drift: bool, options: Options | None = None) -> bool:
    """Print the report (and append the job summary when asked); True when there is drift."""
    options = options or Options()
    items = collect(run, findings, include_drift=include_drift, changed=options.changed)
    drift = any(i.kind != "finding" for i in items)
    out = sys.stdout
    if options.summary:
        append_report(options.summary, summary_markdown(run, items, include_drift, options.changed,
                                                       "check" if include_drift else "lint"))
    if fmt == "json":
        blocks = [c for p in run.pages for c in p.block_changes] if include_drift else []
        drift_blocks = [c for c in blocks if not c.old_stamps]
        values = [c for p in run.pages for c in p.value_changes] if include_drift else []
        doc = {
            "ok": not items,
            "judged": judged(run),
            "stale_blocks": [{"path": c.path, "line": c.block.line, "generator": c.block.generator,
                              "hand_edited": c.hand_edited, "text_changed": c.text_changed,
                              "message": block_message(c), "diff": block_diff(c)}
                             for c in drift_blocks],
            # end markers of an older form around the right text: not drift, `write` rewrites them
            "old_stamps": [{"path": c.path, "line": c.block.line, "generator": c.block.generator,
                            "stamp_version": c.block.stamp_version}
                           for c in blocks if c.old_stamps],
            "stale_values": [{"path": c.path, "line": c.value.line, "key": c.value.key, "old": c.old, "new": c.new}
                             for c in values],
            "facts_changes": (facts_changes(run) or []) if include_drift else [],
            "findings": [{"path": f.path, "line": f.line, "check": f.check, "message": f.message} for f in findings],
            # every declared rule this run fired (docgen/rules.py): the findings' and the stale generated text's
            "rules": sorted({f.check for f in findings} | ({"stale-block"} if drift_blocks else set())
                            | ({"stale-value"} if values else set())),
            "order": [{"path": i.path, "line": i.line, "title": i.title} for i in items],
            "fix": fix_command(run) if drift else None,
            "claims_coverage": _coverage_json(run),
        }
        out.write(json.dumps(doc, indent=2) + "\n")
        return drift
    if fmt == "sarif":   # the whole report is the SARIF log; the verdict still goes to stderr
        out.write(json.dumps(sarif(run, items), indent=2) + "\n")
        if items:
            print(verdict(run, items, include_drift, diff_shown=False), file=sys.stderr)
        return drift
    if fmt == "github":
        out.writelines(workflow_annotations(items, options.max_annotations))
    if not options.quiet and items:
        log = "".join(i.text + "\n" + (i.diff if options.diff else "") for i in items)
        out.write(fenced_log(log) if fmt == "github" else log)
    coverage = claims_coverage(run)
    if (options.verbose or coverage.unowned) and not options.quiet:
        print(escape_controls(coverage.line()), file=sys.stderr)
    note = old_stamps_note(run) if include_drift and not options.quiet else None
    if note:
        print(escape_controls(note), file=sys.stderr)
    if items:
        print(escape_controls(verdict(run, items, include_drift, diff_shown=options.diff and not options.quiet)),
              file=sys.stderr)
    return drift
