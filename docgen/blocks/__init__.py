"""Generated regions in Markdown: find them, re-render them, compare. `write` and `check` share this path.

    <!-- docgen:begin GENERATOR [key=value ...] -->
    ...generated...
    <!-- docgen:end GENERATOR body=5e6f7a8b -->

and inline: `<!-- docgen:value KEY -->nine<!-- docgen:end-value -->`.

Text outside the markers is never touched, byte for byte (line endings included). A marker counts only
where Markdown shows it as a comment in the page's flow: inside a fenced or indented code block, an inline
code span or another HTML comment it is text, so pages can show the syntax (docgen/fences.py holds the
code rules). The end marker records a short
digest of the block's own text (`body=`) and nothing else, so `check` notices a block edited by hand, and
a change to an input that does not alter what a block renders changes no byte of its page. A stale block
is found by rendering it again and comparing; what changed in the inputs is told by the facts record
(docgen/check/facts.py), not by the markers. End markers written before STAMP_VERSION 3 also carry
`inputs=[vN:]name:digest,...`: they are still read, never reported as drift on their own, and `write`
rewrites them without it. This module knows nothing about the model: the caller passes the generator table
and a render callback.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.errors import InputError
from docgen.rules import RULES
from docgen.fences import COMMENT, Region, code_spans, regions
from docgen.model.digests import digest
from docgen.text import split_lines

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

# A marker: `docgen:`, the longest run of word characters and hyphens (the kind; `docgen:end-value-->` is an
# unclosed `end-value--`), then the rest up to the first `-->` or, unclosed, the end of the line.
_MARKER = re.compile(r"<!--\s*docgen:(?P<kind>[\w-]*)(?P<rest>.*?)(?P<close>-->|$)")
_HUNK = r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@"   # compiled on first use: only block_diff reads it
_LOWER_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"
# What an end marker records. 1: inputs=name:digest,... and body=; 2: the same with a `v2:` prefix on the
# inputs; 3 (now): body= alone, the digest of the block's own text. A marker with inputs= is read as the
# version it names; one with body= alone is version 3. Bump it (and teach _parse_record the old form) only
# when digest() or the marker's form changes: tests/unit/test_stamps.py pins the digest of a fixed text.
STAMP_VERSION = 3
# The records below are named tuples (typing.NamedTuple) rather than dataclasses: `docgen check` runs on every
# commit, and each frozen dataclass adds to its start-up (bench/record_cost.py).


class Block(NamedTuple):
    generator: str
    args: tuple[tuple[str, str], ...]
    begin: int                      # 0-based index of the begin marker's line
    end: int                        # 0-based index of the end marker's line
    indent: str                     # the begin marker's indentation, kept for the body (lists, admonitions)
    recorded_inputs: tuple[tuple[str, str], ...] | None   # input stamps of a marker older than version 3
    recorded_body: str | None                             # None: never rendered
    stamp_version: int | None = None                      # the marker's STAMP_VERSION; None: never rendered

    @property
    def line(self) -> int:
        return self.begin + 1


class InlineValue(NamedTuple):
    key: str
    line_index: int
    start: int                      # offsets of the value text inside its line
    stop: int

    @property
    def line(self) -> int:
        return self.line_index + 1


class Document(NamedTuple):
    path: str
    lines: tuple[str, ...]          # with their line endings
    blocks: tuple[Block, ...]
    values: tuple[InlineValue, ...]
    regions: tuple[Region, ...] = ()   # where the page shows code or a comment (docgen/fences.py), read once

    @property
    def text(self) -> str:
        return "".join(self.lines)


class BlockChange(NamedTuple):
    """A block whose region differs from what `write` would put there. `text_changed` is False when the text
    a reader sees is the same and only the end marker differs; `old_stamps` when that marker is merely an
    older form (input stamps before STAMP_VERSION 3): `write` rewrites it, but it is not drift."""
    path: str
    block: Block
    old: str
    new: str
    hand_edited: bool
    text_changed: bool = True

    @property
    def old_stamps(self) -> bool:
        return not self.text_changed and self.block.recorded_inputs is not None


class ValueChange(NamedTuple):
    path: str
    value: InlineValue
    old: str
    new: str


# ----------------------------------------------------------------------------------------------- parsing

def _markers(line: str) -> list[tuple[int, int, str, str, bool]]:
    """The markers of a line (without its line ending) that are not inside an inline code span, left to
    right: (start, end, kind, rest, closed)."""
    if "docgen:" not in line:   # most lines: skip the scan and the code-span scan
        return []
    found = [(m.start(), m.end(), m["kind"], m["rest"], bool(m["close"])) for m in _MARKER.finditer(line)]
    if found and "`" in line:
        spans = code_spans(line)
        found = [m for m in found if not any(a <= m[0] < b for a, b in spans)]
    return found


def _live_marker_lines(text: str, found: tuple[Region, ...], lines: tuple[str, ...],
                       commented: dict[str, tuple[int, int]]):
    """(line index, live markers) for each line where a comment in the page's flow opens (docgen/fences.py
    decides where), in order; a marker is live when its `<!--` opens such a comment. The begin markers found
    inside a comment are added to `commented` (generator -> (their line, the comment's first line)) before the
    lines after them are yielded, for the message of an end marker they leave unmatched. A fence or comment
    the page never closes comes last, as its Region."""
    if "<!--" not in text:
        for region in found:
            if not region.closed:
                yield region.start, region
        return
    line_at = -1
    live: list[tuple[int, int, str, str, bool]] = []   # (start, end, kind, rest, closes) of each marker
    for region in found:
        if region.kind != COMMENT:
            if not region.closed:
                if live:
                    yield line_at, live
                    line_at, live = -1, []
                yield region.start, region
            continue
        if region.start != line_at:
            if live:
                yield line_at, live
            line_at, live = region.start, []
        line = lines[region.start].rstrip("\r\n")
        m = _MARKER.match(line, region.first)
        if m is not None:
            live.append((m.start(), m.end(), m["kind"], m["rest"], bool(m["close"])))
        if "docgen:" in text:
            _note_commented(lines, region, commented)
        if not region.closed:
            if live:
                yield line_at, live
                line_at, live = -1, []
            yield region.start, region
    if live:
        yield line_at, live


def _note_commented(lines: tuple[str, ...], region: Region, commented: dict[str, tuple[int, int]]) -> None:
    """Adds the begin markers inside the comment `region` (not its own opener) to `commented`."""
    stop = region.stop - 1
    for index in range(region.start, region.stop):
        line = lines[index].rstrip("\r\n")
        if "docgen:" not in line:
            continue
        for start, _, kind, rest, _ in _markers(line):
            if index == region.start and start <= region.first:
                continue
            if index == stop and region.closed and start >= region.last:
                continue
            if kind == "begin" and rest.split():
                commented.setdefault(rest.split()[0], (index, region.start))


def parse_document(text: str, path: str, generators: Mapping[str, Mapping[str, tuple[str, ...] | None]],
                   value_keys: set[str] | frozenset[str]) -> Document:
    """Find blocks and values; any malformed marker raises InputError(path, line). `generators` maps each
    generator name to its parameters (allowed values, or None for any value)."""
    lines = tuple(split_lines(text, keepends=True))
    blocks: list[Block] = []
    values: list[InlineValue] = []
    commented: dict[str, tuple[int, int]] = {}   # generator -> (line of a begin marker inside a comment, its opener)
    open_block: tuple[int, str, tuple, str] | None = None  # (index, generator, args, indent)
    unclosed: Region | None = None   # a fence or a comment the page never closes

    def fail(index: int, message: str) -> InputError:
        return InputError(path, index + 1, message)

    found = tuple(regions(text))
    for index, live in _live_marker_lines(text, found, lines, commented):
        if isinstance(live, Region):
            unclosed = live
            continue
        line = lines[index].rstrip("\r\n")
        value_open: tuple[str, int] | None = None
        for start, end, kind, rest, closed in live:
            rest = rest.split()
            if not closed:
                raise fail(index, f"docgen:{kind} marker is not closed with '-->' on its line")
            if kind in ("begin", "end"):
                if line.strip() != line[start:end]:
                    raise fail(index, f"docgen:{kind} marker must be alone on its line")
                if not rest:
                    raise fail(index, f"docgen:{kind} marker without a generator name")
            if kind == "begin":
                if open_block is not None:
                    raise fail(index, f"nested block: docgen:begin {open_block[1]} at line {open_block[0] + 1} "
                                      "is not closed yet")
                name = rest[0]
                if name not in generators:
                    raise fail(index, f"unknown generator {name!r} (known: {', '.join(sorted(generators))})")
                args = _parse_args(rest[1:], generators[name], lambda msg: fail(index, f"{name}: {msg}"))
                open_block = (index, name, args, line[: len(line) - len(line.lstrip())])
            elif kind == "end":
                if open_block is None:
                    hint = ""
                    if rest[0] in commented and commented[rest[0]][0] <= index:   # a begin marker above it
                        at, opener = commented[rest[0]]
                        hint = (f" (the docgen:begin {rest[0]} at line {at + 1} is inside the HTML comment opened at "
                                f"line {opener + 1}, which that marker's own '-->' closes: comments do not nest)")
                    raise fail(index, f"docgen:end {rest[0]} without a matching docgen:begin{hint}")
                begin, name, args, indent = open_block
                if rest[0] != name:
                    raise fail(index, f"docgen:end {rest[0]} closes docgen:begin {name} (line {begin + 1})")
                inputs, body, version = _parse_record(rest[1:], lambda msg: fail(index, msg))
                blocks.append(Block(name, args, begin, index, indent, inputs, body, version))
                open_block = None
            elif kind == "value":
                if open_block is not None:
                    raise fail(index, f"docgen:value inside generated block {open_block[1]} "
                                      f"(line {open_block[0] + 1})")
                if value_open is not None:
                    raise fail(index, f"docgen:value {value_open[0]} is not closed before the next value")
                if len(rest) != 1:
                    raise fail(index, "docgen:value takes exactly one KEY")
                if rest[0] not in value_keys:
                    raise fail(index, f"unknown value {rest[0]!r} (known: {', '.join(sorted(value_keys))})")
                value_open = (rest[0], end)
            elif kind == "end-value":
                if value_open is None:
                    raise fail(index, "docgen:end-value without a docgen:value before it on the line")
                if rest:
                    raise fail(index, "docgen:end-value takes no arguments")
                values.append(InlineValue(value_open[0], index, value_open[1], start))
                value_open = None
            elif kind == "allow":
                named = rest[0].split(",") if rest else []
                unknown = [r for r in named if r not in RULES]
                if not rest or unknown:
                    raise fail(index, f"docgen:allow names {'no rule' if not rest else repr(unknown[0])}: write "
                                      f"<!-- docgen:allow RULE WHY THIS LINE STATES IT --> with RULE one of "
                                      f"{', '.join(RULES)} (comma-separated for several)")
                if len(rest) < 2:
                    raise fail(index, "docgen:allow needs a reason after the rule: "
                                      "<!-- docgen:allow RULE WHY THIS LINE STATES IT -->")
            else:
                raise fail(index, f"unknown marker docgen:{kind} (begin, end, value, end-value, allow)")
        if value_open is not None:
            raise fail(index, f"docgen:value {value_open[0]} is not closed by docgen:end-value on the same line")
    if open_block is not None:
        raise fail(open_block[0], f"docgen:begin {open_block[1]} is never closed by docgen:end {open_block[1]}")
    if unclosed is not None and unclosed.fence is not None:   # FENCED: a fenced region holds its opening fence
        # An unclosed fence runs to the end of the page, so every marker after it would silently become
        # code and its block would never be checked again.
        hidden = _marker_after(lines, unclosed.start)
        if hidden is not None:
            raise fail(unclosed.start, f"code fence {unclosed.fence.run} is never closed, so the docgen marker at line "
                                       f"{hidden + 1} would be read as code; close the fence")
    if unclosed is not None and unclosed.kind == COMMENT:
        hidden = _marker_after(lines, unclosed.start)
        if hidden is not None:
            raise fail(unclosed.start, f"HTML comment '<!--' is never closed with '-->', so the docgen marker at line "
                                       f"{hidden + 1} would be read as part of it; close the comment")
    return Document(path, lines, tuple(blocks), tuple(values), found)


def _marker_after(lines: tuple[str, ...], index: int) -> int | None:
    """The first line after `index` that holds a marker-like comment, None when there is none."""
    return next((i for i in range(index + 1, len(lines))
                 if "docgen:" in lines[i] and _MARKER.search(lines[i].rstrip("\r\n"))), None)


def _parse_args(tokens: list[str], params: Mapping[str, tuple[str, ...] | None], fail) -> tuple:
    args: dict[str, str] = {}
    for token in tokens:
        key, eq, value = token.partition("=")
        if not eq or not key or not value:
            raise fail(f"argument {token!r} is not key=value")
        if key not in params:
            raise fail(f"unknown argument {key!r}" + (f" (takes {', '.join(params)})" if params else " (takes none)"))
        if key in args:
            raise fail(f"argument {key!r} given twice")
        allowed = params[key]
        if allowed is not None and value not in allowed:
            raise fail(f"{key}={value}: expected one of {', '.join(allowed)}")
        if allowed is None and not _plain_name(value):
            raise fail(f"{key}={value}: not a plain name")
        args[key] = value
    return tuple(args.items())


def _plain_name(value: str) -> bool:
    """[a-z0-9][a-z0-9._-]*, without a regex: a free-form argument value is a plain name."""
    return value != "" and value[0] in _LOWER_DIGITS and not value.strip(_LOWER_DIGITS + "._-")


def _stamp_version(value: str) -> tuple[int, str]:
    """`v2:dockerfile:...` -> (2, "dockerfile:..."); a record without a `vN:` prefix is version 1."""
    head, sep, rest = value.partition(":")
    if sep and head[:1] == "v" and head[1:].isdecimal():
        return int(head[1:]), rest
    return 1, value


def _parse_record(tokens: list[str], fail) -> tuple[tuple | None, str | None, int | None]:
    """The digests an end marker records and the marker's version; none for a block never rendered. Input
    stamps (inputs=..., versions 1 and 2) are read so that old pages parse; nothing compares them."""
    inputs, body, version = None, None, None
    for token in tokens:
        key, eq, value = token.partition("=")
        if key == "inputs" and eq:
            version, value = _stamp_version(value)
            pairs = [p.partition(":") for p in value.split(",") if p]
            if any(not sep or not name or not d for name, sep, d in pairs):
                raise fail(f"malformed inputs={value!r} (expected name:digest,...)")
            inputs = tuple((name, d) for name, _, d in pairs)
        elif key == "body" and eq and value:
            body = value
        else:
            raise fail(f"unexpected {token!r} in docgen:end (it records body=...)")
    if version is None and body is not None:
        version = STAMP_VERSION
    return inputs, body, version


# ----------------------------------------------------------------------------------------------- refresh

def _not_inert(body: str) -> str | None:
    """What in a rendered body would act on the page around it, None when nothing does: a live marker, a fence
    or an HTML comment it leaves open (which would swallow its end marker). Bodies are checked with the
    page's own rules, so no input text can create or break a block."""
    if "docgen:" not in body and "<!--" not in body and "```" not in body and "~~~" not in body:
        return None
    lines = body.split("\n")
    last: Region | None = None
    for region in regions(body):
        if region.kind == COMMENT and _MARKER.match(lines[region.start].rstrip("\r"), region.first):
            return f"holds a docgen marker at its line {region.start + 1}"
        last = region
    if last is not None and not last.closed:
        return f"leaves a code fence {last.fence.run} open" if last.fence is not None else "leaves an HTML comment open"
    return None


def _newline(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _region(doc: Document, block: Block) -> str:
    return "".join(doc.lines[block.begin + 1: block.end + 1])


def _current_body(doc: Document, block: Block) -> str:
    """The body as rendered text: line endings and the block's indentation taken off."""
    lines = [raw.rstrip("\r\n") for raw in doc.lines[block.begin + 1: block.end]]
    lines = [ln[len(block.indent):] if ln.startswith(block.indent) else ln for ln in lines]
    return "\n".join(lines).strip("\n")


def _block_region(block: Block, body: str, nl: str, last_nl: str) -> tuple[str, str]:
    """The lines between the markers (the text a reader sees) and the end marker's line, as `write` puts
    them. The marker stamps the body's own digest only, so it moves exactly when the text does."""
    ind = block.indent
    body = body.strip("\n")
    if ind:
        content = nl.join([ind + ln if ln else "" for ln in body.split("\n")])
    else:   # most blocks: the body as it is, without a step per line
        content = body if nl == "\n" else body.replace("\n", nl)
    end = f"{ind}<!-- docgen:end {block.generator} body={digest(body)} -->"
    return nl + content + nl + nl, end + last_nl


def refresh(doc: Document, render_block: Callable[[Block], str],
            render_value: Callable[[InlineValue], str]) -> tuple[str, list[BlockChange], list[ValueChange]]:
    """Re-render every block and value. Returns the new text and what changed; the caller saves or reports."""
    out: list[str] = []
    block_changes: list[BlockChange] = []
    value_changes: list[ValueChange] = []
    blocks = {b.begin: b for b in doc.blocks}
    values_by_line: dict[int, list[InlineValue]] = {}
    for v in doc.values:
        values_by_line.setdefault(v.line_index, []).append(v)
    index = 0   # the first line not copied yet; lines without a block or a value are copied as they are
    for at in sorted(blocks.keys() | values_by_line.keys()):
        if at < index:   # inside a block already rewritten
            continue
        out += doc.lines[index:at]
        raw = doc.lines[at]
        block = blocks.get(at)
        if block is not None:
            body = render_block(block)
            problem = _not_inert(body)
            if problem:
                raise InputError(doc.path, block.line, f"block {block.generator}: its rendered text {problem}, which "
                                 "would change the page's blocks; a renderer let input text through unescaped")
            nl = _newline(raw)
            content, end = _block_region(block, body, nl, _newline(doc.lines[block.end]))
            new = content + end
            old = _region(doc, block)
            if new != old:
                text_changed = content != "".join(doc.lines[block.begin + 1: block.end])
                edited = block.recorded_body is not None and block.recorded_body != digest(_current_body(doc, block))
                block_changes.append(BlockChange(doc.path, block, old, new, edited and text_changed, text_changed))
            out += [raw, new]
            index = block.end + 1
            continue
        for v in sorted(values_by_line[at], key=lambda v: v.start, reverse=True):
            new_value = render_value(v)
            old_value = raw[v.start: v.stop]
            if new_value != old_value:
                value_changes.append(ValueChange(doc.path, v, old_value, new_value))
            raw = raw[: v.start] + new_value + raw[v.stop:]
        out.append(raw)
        index = at + 1
    out += doc.lines[index:]
    value_changes.sort(key=lambda c: (c.value.line_index, c.value.start))
    return "".join(out), block_changes, value_changes


def block_diff(change: BlockChange) -> str:
    """A unified diff of one stale block, numbered as in its file."""
    import difflib  # noqa: PLC0415  # only a stale block's diff needs it, never a check of current pages
    old = split_lines(change.old, keepends=True)   # lines end at "\n" only, as the block's own line numbers do
    new = split_lines(change.new, keepends=True)
    lines = list(difflib.unified_diff(old, new, f"a/{change.path}", f"b/{change.path}", n=2))
    # difflib numbers from the start of the region; shift the hunk headers to the file's own line numbers
    offset = change.block.begin + 1
    out = []
    for line in lines:
        m = re.match(_HUNK, line) if line.startswith("@@") else None
        if m:
            line = f"@@ -{int(m.group(1)) + offset}{m.group(2) or ''} +{int(m.group(3)) + offset}{m.group(4) or ''} @@\n"
        out.append(line if line.endswith("\n") else line + "\n")
    return "".join(out)
