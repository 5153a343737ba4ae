"""The one pipeline behind `docgen write`, `docgen check` and `docgen lint`.

Inputs (Dockerfile + snapshot) -> model -> every page parsed and every block rendered -> findings. `write`
and `check` run exactly this and differ only in whether they save; everything is parsed and rendered before
anything is written, so bad input in one page leaves all pages untouched. Nothing after `build_model`
reads a raw input again.
"""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISLNK
from typing import NamedTuple

from docgen.blocks import Document, parse_document, refresh
from docgen.check.facts import dump_facts, facts_of
from docgen.check.lint import check_coverage, check_value_line_start, lint
from docgen.check.mentions import dockerfile_comments, record_of, review_findings, scan
from docgen.check.prose import prose_findings
from docgen.errors import ArgError, InputError
from docgen.fences import allowed_rules
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.inputs.image_size import load_image_size
from docgen.inputs.quoted import QuotedFile
from docgen.io import Output, decode, read_bytes, read_input, read_record, write_files
from docgen.model.build import build_model
from docgen.model import ImageModel
from docgen.model.facts import fact_base
from docgen.project import Project
from docgen.rules import rule
from docgen.render.generators import GENERATORS, REQUIRED_GENERATORS, RenderInputs, render_block
from docgen.render.values import VALUES, markdown_value
from docgen.snapshot.load import load_snapshot


class Page(NamedTuple):
    path: Path
    raw: bytes                       # exactly what was read: the writer refuses to replace a changed page
    doc: Document
    new_text: str                    # the page with every block and value re-rendered
    block_changes: list
    value_changes: list


class Run(NamedTuple):
    project: Project
    model: ImageModel
    pages: list[Page]
    explicit_paths: bool
    facts: dict
    facts_text: str
    recorded_facts_raw: bytes | None       # None: there is no record yet
    recorded_facts: dict | None            # None: missing, or it cannot be read
    recorded_facts_unreadable: str | None  # why it cannot be read (file:line: what), for check and write to say
    mentions: list                   # check.mentions.Mention: every hand-written sentence that names facts


def _read_owned(path: Path, project: Project, what: str, shown: str | None = None) -> bytes:
    """The bytes of a file docgen may rewrite (a page, the facts record): never through a symlink, whatever it
    points at. `shown` is the path as reports show it (project.display), when the caller has it already."""
    try:
        st = os.lstat(path)   # one call says symlink or not, and stands in for the reader's own stat
    except OSError:
        st = None             # missing or unreadable: the reader's own stat reports it
    if st is not None and S_ISLNK(st.st_mode):
        raise InputError(shown or project.display(path), None, f"{what} docgen owns is a symlink; docgen reads "
                                                                 "and writes only regular files inside the root")
    return read_bytes(path, what, lstat=st)


def prepare(project: Project, paths: list[Path] | None = None, *, render: bool = True,
            confirm: frozenset[tuple[str, int]] = frozenset()) -> Run:
    """Read, model and render everything; `confirm` names sentences (path, line) a reviewer confirmed, whose
    recorded facts the new record takes from today's model."""
    required_unknown = [g for g in project.required or () if g not in GENERATORS]
    if required_unknown:
        raise InputError(project.display(project.config_file or project.root), None,
                         f"required: unknown generator(s) {', '.join(required_unknown)}")
    dockerfile_text = read_input(project.dockerfile, "the Dockerfile", newline="")
    quoted = [QuotedFile(project.display(q), read_input(q, "a file [tool.docgen] quoted names", newline=""))
              for q in project.quoted]
    model = build_model(parse_dockerfile(dockerfile_text, project.display(project.dockerfile)),
                        load_snapshot(project.snapshot, shown=project.display(project.snapshot)), quoted)
    explicit = bool(paths)
    page_paths = [Path.cwd() / p for p in paths] if paths else project.page_paths()
    params = {name: g.params for name, g in GENERATORS.items()}
    docs = []
    value_keys = frozenset(VALUES)
    for p in page_paths:
        shown = project.display(p)
        raw = _read_owned(p, project, "a page", shown)
        text = decode(shown, raw, "a page", newline="")   # newline="": keep CRLF
        docs.append((p, raw, parse_document(text, shown, params, value_keys)))

    image_size = None
    if render and any(b.generator == "image-size" for _, _, doc in docs for b in doc.blocks):
        image_size = load_image_size(project.image_size, project.display(project.image_size))
    src = RenderInputs(model, image_size)
    pages = []
    for path, raw, doc in docs:
        def render_one(block, doc=doc):
            try:
                return render_block(block.generator, dict(block.args), src)
            except ArgError as exc:
                raise InputError(doc.path, block.line, f"{block.generator}: {exc}") from None

        def value_one(value, doc=doc):
            try:
                return markdown_value(value.key, model)   # escaped for the sentence it stands in
            except ArgError as exc:
                raise InputError(doc.path, value.line, f"value {value.key}: {exc}") from None

        new_text, block_changes, value_changes = refresh(doc, render_one, value_one) if render else (doc.text, [], [])
        pages.append(Page(path, raw, doc, new_text, block_changes, value_changes))

    mentions = scan(model, [p.doc for p in pages], dockerfile_comments(model))
    recorded_raw = recorded = unreadable = None
    if project.facts.exists() or project.facts.is_symlink():
        shown = project.display(project.facts)
        recorded_raw = _read_owned(project.facts, project, "the facts record", shown)
        recorded, problem = read_record(shown, recorded_raw, "facts")   # someone else's file: InputError
        unreadable = str(problem) if problem else None
    facts = {**facts_of(model), "mentions": record_of(mentions, mentions_part(recorded), fact_base(model).by_key(), confirm)}
    return Run(project, model, pages, explicit, facts, dump_facts(facts), recorded_raw, recorded, unreadable,
               mentions)


def mentions_part(recorded: dict | None) -> dict | None:
    """The mentions part of the recorded facts (None when there is no readable record: every sentence is then
    new, and `check` says to record them)."""
    part = recorded.get("mentions") if isinstance(recorded, dict) else None
    return part if isinstance(part, dict) else None


def findings_of(run: Run):
    findings = lint(run.model)
    findings += prose_findings(run)
    findings += [f for m in run.mentions for f in m.findings]
    findings += review_findings(run.mentions, mentions_part(run.recorded_facts), fact_base(run.model).by_key())
    findings += check_value_line_start(p.doc for p in run.pages)
    if run.project.image_size.exists():
        # Measured figures are not derived from the inputs, so inputs that moved since the measurement are no
        # finding: the image-size block says so on the page. A malformed record is still bad input (exit 2).
        load_image_size(run.project.image_size, run.project.display(run.project.image_size))
    if not run.explicit_paths:  # coverage speaks about the whole doc set, not a chosen few pages
        required = run.project.required if run.project.required is not None else REQUIRED_GENERATORS
        findings += check_coverage([p.doc for p in run.pages], required, " + ".join(run.project.pages))
    # an allow marker silences exactly the rules it names, on its own line
    allows: dict[tuple[str, int | None], frozenset[str]] = {
        (p.doc.path, i + 1): allowed_rules(line) for p in run.pages for i, line in enumerate(p.doc.lines)
        if "docgen:allow" in line}
    return list(dict.fromkeys(f for f in findings if rule(f.check).id not in allows.get((f.path, f.line), ())))


def write(run: Run) -> list[str]:
    """Save every changed page and the facts record. Everything is rendered and checked before the first file
    is replaced, and each file is replaced atomically. Returns what changed, for the log."""
    outputs, log = [], []
    for page in run.pages:
        if page.new_text != page.doc.text:
            outputs.append(Output(page.path, page.new_text, page.raw, check_expected=True))
            log.append(f"updated {page.doc.path} ({len(page.block_changes)} blocks, {len(page.value_changes)} values)")
    if run.recorded_facts_raw != run.facts_text.encode():
        outputs.append(Output(run.project.facts, run.facts_text, run.recorded_facts_raw, check_expected=True,
                              kind="facts"))
        shown = run.project.display(run.project.facts)
        log.append(f"regenerated {shown} from scratch: the record there could not be read: "
                   f"{run.recorded_facts_unreadable}" if run.recorded_facts_unreadable else f"updated {shown}")
    write_files(run.project.root, outputs)
    return log


def write_record(run: Run) -> list[str]:
    """Save the facts record alone (`docgen review`): the pages stay as they are, and so does what the record
    says of the rest of the facts."""
    facts = {**(run.recorded_facts if isinstance(run.recorded_facts, dict) else run.facts),
             "mentions": run.facts["mentions"]}
    text = dump_facts(facts)
    if run.recorded_facts_raw == text.encode():
        return []
    write_files(run.project.root, [Output(run.project.facts, text, run.recorded_facts_raw,
                                          check_expected=True, kind="facts")])
    return [f"updated {run.project.display(run.project.facts)}"]
