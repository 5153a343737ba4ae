"""`docgen write`, `docgen check`, `docgen lint`: generated blocks and semantic checks on the command line.

`write` and `check` run the same pipeline (parse every page, render every block, compare) and differ only
in whether they save. Every page is parsed and rendered before anything is written, so bad input in one
page leaves all pages untouched.
"""


import argparse
import os
import sys
from pathlib import Path
from typing import NamedTuple

from docgen.layout import (
    DEFAULT_DOCKERFILE, DEFAULT_SNAPSHOT, EXIT_FINDINGS, EXIT_OK, FACTS_FILE, IMAGE_SIZE_FILE, REPO_ROOT,
)


SHORT_HELP = {
    "write": "re-render every generated block and value in place",
    "check": "fail on stale blocks or inconsistent inputs (changes nothing)",
    "lint": "only the semantic checks across the Dockerfile, the registry and the lock",
}


def register(subparsers, only: str | None = None) -> None:
    descriptions = {
        "write": "Re-render every generated block and inline value in place, and record the facts they were "
                 "rendered from in " + FACTS_FILE + ".",
        "check": "Change nothing; exit 1 when a block, a value or the recorded facts are stale (with a diff "
                 "and what changed in the facts) or when a semantic check finds something.",
        "lint": "Semantic checks only: the Dockerfile's filters, verification list, comments and warm order "
                "against the registry and the lock; required generators present in the docs.",
    }
    for name, func in (("write", cmd_write), ("check", cmd_check), ("lint", cmd_lint)):
        if only is not None and name != only:
            continue
        p = subparsers.add_parser(name, help=SHORT_HELP[name],
                                  description=descriptions[name])
        if name != "lint":
            p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                           help="Markdown files (default: README.md and docs/**/*.md under --root)")
        p.add_argument("--root", type=Path, default=None,
                       help="repository root (default: the one docgen is installed from)")
        p.add_argument("--dockerfile", type=Path, default=None, help=f"default: ROOT/{DEFAULT_DOCKERFILE}")
        p.add_argument("--snapshot", type=Path, default=None, help=f"default: ROOT/{DEFAULT_SNAPSHOT}")
        if name != "write":
            p.add_argument("--format", choices=("text", "github", "json"), default="text",
                           help="github: workflow annotations; json: one report object")
        p.set_defaults(func=func)


# ------------------------------------------------------------------------------------------------ pipeline

class Page(NamedTuple):
    path: Path
    doc: object                      # blocks.Document
    new_text: str                    # the page with every block and value re-rendered
    block_changes: list
    value_changes: list


class Run(NamedTuple):
    root: Path
    model: object
    dockerfile_text: str
    pages: list[Page]
    explicit_paths: bool
    facts: dict
    facts_text: str
    recorded_facts_text: str | None


def _root(args) -> Path:
    return (args.root or REPO_ROOT).resolve()


def _read(path: Path) -> str:
    from docgen.errors import read_input
    return read_input(path, newline="")  # newline="": keep CRLF as it is


def discover_pages(root: Path) -> list[Path]:
    pages = [root / "README.md"] if (root / "README.md").is_file() else []
    docs = root / "docs"
    if docs.is_dir():
        for dirpath, dirnames, filenames in os.walk(docs):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            pages += [Path(dirpath) / f for f in sorted(filenames) if f.endswith(".md")]
    return pages


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _load_image_size(root: Path) -> dict | None:
    from docgen.errors import InputError, read_json_object

    path = root / IMAGE_SIZE_FILE
    if not path.is_file():
        return None
    text, data = read_json_object(path, "the image-size record")

    def fail(key: str, message: str):
        found = text.find(f'"{key}"')
        return InputError(path, text.count("\n", 0, found) + 1 if found >= 0 else 1, message)

    def check_size(key: str, value) -> None:
        import math
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise fail(key, f"{key}: expected a size in bytes, got {value!r}")

    for key in ("parts", "production"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise fail(key, f"{key}: expected a JSON object, got {data[key]!r}")
    if data.get("size_bytes") is not None:
        check_size("size_bytes", data["size_bytes"])
    for name, value in (data.get("parts") or {}).items():
        check_size(name, value)
    if (data.get("production") or {}).get("size_bytes") is not None:
        check_size("size_bytes", data["production"]["size_bytes"])
    return data


def prepare(args, *, render: bool = True) -> Run:
    from docgen.blocks import parse_document, refresh
    from docgen.errors import InputError
    from docgen.model import build_model
    from docgen.render.facts import InputDigests, dump_facts, facts_of
    from docgen.render.generators import GENERATORS, RenderInputs, render_block
    from docgen.render.tables import ArgError
    from docgen.render.values import VALUES, render_value
    from docgen.snapshot import load_snapshot
    from docgen.sources.dockerfile import parse_dockerfile

    root = _root(args)
    dockerfile = args.dockerfile or root / DEFAULT_DOCKERFILE
    dockerfile_text = _read(dockerfile)
    shown_dockerfile = _display(dockerfile, root)
    model = build_model(parse_dockerfile(dockerfile_text, shown_dockerfile),
                        load_snapshot(args.snapshot or root / DEFAULT_SNAPSHOT))
    explicit = bool(getattr(args, "paths", None))
    paths = [p if p.is_absolute() else Path.cwd() / p for p in args.paths] if explicit else discover_pages(root)
    params = {name: g.params for name, g in GENERATORS.items()}
    docs = [(p, parse_document(_read(p), _display(p, root), params, frozenset(VALUES))) for p in paths]

    pages = []
    src = RenderInputs(model, _load_image_size(root) if render and any(
        b.generator == "image-size" for _, doc in docs for b in doc.blocks) else None)
    digests = InputDigests(src)
    for path, doc in docs:
        def render_one(block, doc=doc):
            try:
                body = render_block(block.generator, dict(block.args), src)
            except ArgError as exc:
                raise InputError(doc.path, block.line, f"{block.generator}: {exc}") from None
            return body, digests.of(GENERATORS[block.generator].inputs)

        def value_one(value):
            return render_value(value.key, model)

        new_text, block_changes, value_changes = refresh(doc, render_one, value_one) if render else (doc.text, [], [])
        pages.append(Page(path, doc, new_text, block_changes, value_changes))

    facts = facts_of(model)
    facts_path = root / FACTS_FILE
    recorded = _read(facts_path) if facts_path.is_file() else None
    return Run(root, model, dockerfile_text, pages, explicit, facts, dump_facts(facts), recorded)


# ------------------------------------------------------------------------------------------------ commands

def cmd_write(args: argparse.Namespace) -> int:
    from docgen.snapshot import write_atomic

    run = prepare(args)
    changed = [page for page in run.pages if page.new_text != page.doc.text]
    for page in changed:
        write_atomic(page.path, page.new_text)
        print(f"docgen: updated {page.doc.path} ({len(page.block_changes)} blocks, "
              f"{len(page.value_changes)} values)", file=sys.stderr)
    if run.recorded_facts_text != run.facts_text:
        write_atomic(run.root / FACTS_FILE, run.facts_text)
        print(f"docgen: updated {FACTS_FILE}", file=sys.stderr)
    return EXIT_OK


def _findings(run: Run):
    from docgen.checks import check_coverage, lint
    from docgen.render.generators import REQUIRED_GENERATORS

    findings = lint(run.model, run.dockerfile_text)
    if not run.explicit_paths:  # coverage speaks about the whole doc set, not a chosen few pages
        findings += check_coverage([p.doc for p in run.pages], REQUIRED_GENERATORS, "README.md + docs/")
    return findings


def cmd_lint(args: argparse.Namespace) -> int:
    run = prepare(args, render=False)
    findings = _findings(run)
    _report(args.format, run, findings, include_drift=False)
    return EXIT_FINDINGS if findings else EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    run = prepare(args)
    findings = _findings(run)
    drift = _report(args.format, run, findings, include_drift=True)
    return EXIT_FINDINGS if findings or drift else EXIT_OK


# ------------------------------------------------------------------------------------------------ reports

def _facts_changes(run: Run) -> list[str] | None:
    """None when the recorded facts match; else what changed (or why it cannot be said)."""
    import json
    from docgen.render.facts import diff_facts

    if run.recorded_facts_text == run.facts_text:
        return None
    if run.recorded_facts_text is None:
        return [f"{FACTS_FILE} is missing"]
    try:
        recorded = json.loads(run.recorded_facts_text)
    except json.JSONDecodeError:
        return [f"{FACTS_FILE} is not valid JSON"]
    return diff_facts(recorded if isinstance(recorded, dict) else {}, run.facts) or [f"{FACTS_FILE} is out of date"]


def _block_message(change) -> str:
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


def _report(fmt: str, run: Run, findings, *, include_drift: bool) -> bool:
    """Print the report; True when there is drift."""
    from docgen.blocks import block_diff

    blocks = [c for p in run.pages for c in p.block_changes] if include_drift else []
    values = [c for p in run.pages for c in p.value_changes] if include_drift else []
    facts = _facts_changes(run) if include_drift else None
    drift = bool(blocks or values or facts)
    out = sys.stdout
    if fmt == "json":
        import json
        report = {
            "ok": not drift and not findings,
            "stale_blocks": [{"path": c.path, "line": c.block.line, "generator": c.block.generator,
                              "changed_inputs": list(c.changed_inputs), "hand_edited": c.hand_edited,
                              "message": _block_message(c), "diff": block_diff(c)} for c in blocks],
            "stale_values": [{"path": c.path, "line": c.value.line, "key": c.value.key, "old": c.old, "new": c.new}
                             for c in values],
            "facts_changes": facts or [],
            "findings": [{"path": f.path, "line": f.line, "check": f.check, "message": f.message} for f in findings],
        }
        out.write(json.dumps(report, indent=2) + "\n")
        return drift
    if fmt == "github":
        def annotate(path, line, title, message):
            where = f"file={path}" + (f",line={line}" if line else "")
            message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            out.write(f"::error {where},title={title}::{message}\n")
        for c in blocks:
            annotate(c.path, c.block.line, "docgen: stale block", _block_message(c) + ". Run `docgen write`.")
        for c in values:
            annotate(c.path, c.value.line, "docgen: stale value",
                     f"value `{c.value.key}` is {c.new!r} now, the page says {c.old!r}. Run `docgen write`.")
        if facts:
            annotate(FACTS_FILE, None, "docgen: facts changed", "; ".join(facts) + ". Run `docgen write`.")
        for f in findings:
            if f.line is None:
                out.write(f"::error title=docgen: {f.check}::{f.path}: {f.message}\n")
            else:
                annotate(f.path, f.line, f"docgen: {f.check}", f.message)
    for c in blocks:
        if fmt == "text":
            out.write(f"{c.path}:{c.block.line}: {_block_message(c)}\n")
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
            print(f"docgen: {', '.join(parts)}.{hint}", file=sys.stderr)
    return drift
