"""The prose lint: facts about the image written by hand in the pages docgen owns.

Generated blocks and inline values are owned; console transcripts are proven by the console runner
against the built image. Everything else is prose, and a sentence there can go stale silently. This lint
finds the facts such a sentence states without owning them:

- a count next to an image noun ("nine venvs", "8 filters", "three actors ...");
- a version literal next to a package or tool name ("vLLM 0.25.1", "compute capability 9.0");
- a path under the image's roots (`/opt/...`);
- a user or group id ("uid 2000", as docgen.fact.stated_ids reads one);
- a code-spanned actor class, FQN, extra, ARG or environment variable the model does not know.

Each finding names file:line and the value or block to use instead. A line that must state such a fact
anyway (an example, another tool's version) carries `<!-- docgen:allow REASON -->`.
"""

from __future__ import annotations

import re
from functools import cached_property   # loaded already: re imports functools
from typing import TYPE_CHECKING, NamedTuple

from docgen.fences import COMMENT, INDENTED, allowed_rules, code_spans, span_texts
from docgen.check.lint import Finding
from docgen.fact import ALIASES, stated_ids
from docgen.model.claims import known_names, package_words
from docgen.names import COUNT, COUNT_NOUNS, NUMBER_WORD, PRONOUN_COUNT, antecedent, number_value, singular
from docgen.records import Memo
from docgen.render.values import VALUES, known_value
from docgen.text import STATED_VERSION, line_at

if TYPE_CHECKING:
    from collections.abc import Iterable
    from docgen.blocks import Document
    from docgen.model import ImageModel
    from docgen.model.claims import KnownNames

CHECK = "prose"

# What a claim is, for the coverage report: rendered (a value or a generated block), compared (a rule held the
# value it states to the model), under review (a hand-written sentence naming facts, recorded with their values,
# so any change of them fails `check` there: docgen/check/mentions.py), allowed (a line with a reviewer's reason)
# or unowned (written by hand and judged by nothing, or judged false: each one is also a finding).
RENDERED, COMPARED, REVIEWED, ALLOWED, UNOWNED = "rendered", "compared", "under review", "allowed", "unowned"
STATUSES = (RENDERED, COMPARED, REVIEWED, ALLOWED, UNOWNED)


class Claim(NamedTuple):
    path: str
    line: int
    kind: str          # "value", "block", "count", "version", "path", "uid", "actor", "package"
    text: str
    status: str


class Coverage(NamedTuple):
    findings: tuple[Finding, ...]
    claims: tuple[Claim, ...]

    def tally(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for c in self.claims:
            out[c.status] += 1
        return out

    @property
    def unowned(self) -> tuple[Claim, ...]:
        return tuple(c for c in self.claims if c.status == UNOWNED)

    @property
    def percent(self) -> float:
        total = len(self.claims)
        return 100.0 if not total else 100.0 * (total - len(self.unowned)) / total

    def line(self) -> str:
        """The one line `check` prints: how much of what the pages state is owned."""
        t = self.tally()
        return f"docgen: claims coverage {self.percent:.1f}%: " + ", ".join(f"{t[s]} {s}" for s in STATUSES)


# a dot between two digits, which every version has: the literal dot first lets the search skip to the
# dots instead of trying a digit at every position, as `\d\.\d` would (bench/large_inputs.py)
_DOTTED_DIGITS = re.compile(r"\.(?<=\d\.)(?=\d)")
_DIGIT = re.compile(r"\d")
_PATH = re.compile(r"(?<![\w$}/.-])/opt(?:/[\w.@+*<>{}-]+)*")
# What a whole code span names, by its shape, the first alternative that fits deciding: an actor class, an
# actor FQN or module, a dotted path to a class, a variable (the group is its name), a lower-case name
# (an extra, if the words beside it say so).
_SPAN_KIND = re.compile(
    r"(?P<cls>[A-Z][A-Za-z0-9]*(?:Worker|WorkerV\d|Actor|Environment|Env|Collector|Buffer))$"
    r"|(?P<fqn>nemo_rl(?:\.\w+)+)$"
    r"|(?P<dotted>[a-z_][\w]*(?:\.[a-z_]\w*)*\.[A-Z]\w+)$"
    r"|\$?\{?(?P<variable>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})\}?(?:[=/:].*)?$"
    r"|(?P<lower>[a-z][a-z0-9_-]*)$")
_EXTRA_FLAG = re.compile(r"--extra[ =]([\w-]+)")
_EXTRA_WORD = re.compile(r"\bextras?\b", re.IGNORECASE)
# The word "extra" right before a span (and its list), right after it, or before the parenthesis that opens
# the span's list.
_EXTRA_BEFORE = re.compile(r"extras?\W*(\(|`|,|\s)*$")
_EXTRA_AFTER = re.compile(r"\W{0,2}extras?\b")
_EXTRA_LIST = re.compile(r"extras?[^.]*\($")


class _Facts:
    """What the lint compares against, computed once per run and only when a rule needs it."""

    def __init__(self, model: "ImageModel") -> None:
        self.model = model
        self._spans: dict[str, tuple | None] = {}

    def value(self, key: str) -> str | None:
        return known_value(key, self.model)

    @cached_property
    def names(self) -> KnownNames:
        return known_names(self.model)

    @cached_property
    def _packages(self) -> frozenset[str]:
        return frozenset({p.name for p in self.model.snapshot.packages.values()} | set(ALIASES.values()) | {"cuda"})

    def names_in(self, text: str) -> list[str]:
        """The package and tool names a version may stand next to, as `text` writes them: the lock's packages,
        their aliases, CUDA and the tools whose version is a build argument (the one package spotter)."""
        return [word for word, _ in package_words(text, self._packages, tools=True)]

    @cached_property
    def _version_keys(self) -> list[str]:
        return [k for k in VALUES if ".version" in k or "cuda_arch." in k]

    def keys_with(self, text: str) -> list[str]:
        return [k for k in self._version_keys if self.value(k) == text]

    @cached_property
    def path_roots(self) -> dict[str, str]:
        """The model's paths under the image's roots -> their value keys."""
        keys = [k for k in VALUES if "paths." in k and not k.endswith(".code")]
        return {value: k for k in keys if (value := self.value(k)) is not None}

    def span_verdict(self, span: str) -> tuple | None:
        """`_span_verdict` once per distinct span text: the pages repeat the same few names (and most span
        texts come once, so a miss is no exception)."""
        verdict = self._spans.get(span, self)   # the facts themselves stand for "not judged yet"
        if isinstance(verdict, _Facts):
            verdict = self._spans[span] = _span_verdict(span, self.names)
        return verdict


_COVERAGE = Memo()


def prose_findings(run) -> list[Finding]:
    return list(claims_coverage(run).findings)


def claims_coverage(run) -> Coverage:
    """The prose lint's findings and every claim-like span of the pages with its status, once per run (the
    findings and the coverage report come from this one scan)."""
    def compute() -> Coverage:
        facts = _Facts(run.model)
        findings: list[Finding] = []
        claims: list[Claim] = []
        for page in run.pages:
            findings += lint_document(page.doc, facts, claims)
        return Coverage(tuple(findings), tuple(claims))
    return _COVERAGE.answer(run, "claims", compute)


def lint_document(doc: "Document", facts: "_Facts | ImageModel", claims: list[Claim] | None = None) -> list[Finding]:
    """Sorts the lines into prose and code (the rest becomes blank), then runs each rule only
    where a cheap search says it can match: versions on the lines with a dot between two digits, paths
    where "/opt" stands, counts on the lines with a number. Code spans come from one scan of the prose, and
    each distinct span text is judged once per run. Every claim-like span found is added to `claims` with
    its status (rendered, checked, allowed or unowned)."""
    if not isinstance(facts, _Facts):
        facts = _Facts(facts)
    claims = [] if claims is None else claims
    prose_lines, code_lines, allowed_lines = _sort_lines(doc)
    path = doc.path
    out: list[Finding] = []
    claims += [Claim(path, b.line, "block", b.generator, RENDERED) for b in doc.blocks]
    claims += [Claim(path, v.line, "value", v.key, RENDERED) for v in doc.values]
    if any(allowed_lines):   # the same span finder, on the lines a reviewer allowed
        allowed = _counts(path, allowed_lines, facts) + _version_and_path(path, "\n".join(allowed_lines), facts)
        allowed += _uids(path, allowed_lines, facts)
        claims += [Claim(path, f.line or 0, _kind_of(f), f.message, ALLOWED) for f in allowed]
    prose = "\n".join(prose_lines)
    if prose.strip():
        by_hand = _counts(path, prose_lines, facts) + _version_and_path(path, prose, facts) + _uids(path, prose_lines, facts)
        claims += [Claim(path, f.line or 0, _kind_of(f), f.message, UNOWNED) for f in by_hand]
        out += by_hand
        for number, line in enumerate(prose_lines, 1) if "`" in prose else ():
            for start, end, inside in span_texts(line) if "`" in line else ():   # a span never crosses a line
                verdict = facts.span_verdict(inside)
                if verdict:
                    out += _span_facts(path, number, verdict, line, start, end, facts)
    code = "\n".join(code_lines)
    if code.strip():
        in_code = _version_and_path(path, code, facts)
        claims += [Claim(path, f.line or 0, _kind_of(f), f.message, UNOWNED) for f in in_code]
        out += in_code
        for flag in _EXTRA_FLAG.finditer(code) if "--extra" in code else ():
            extra = flag.group(1)
            if extra not in facts.names.extras and not extra.isupper():
                out.append(_unknown(path, line_at(code, flag.start()), f"--extra {extra}", "extra",
                                    facts.names.extras))
    out.sort(key=lambda f: f.line or 0)
    return out


def _sort_lines(doc: "Document") -> tuple[list[str], list[str], list[str]]:
    """The page's lines as prose, as code and as allowed prose, one entry per line (without its line ending)
    and blank where the line is not that kind. Code is what docgen/fences.py calls code (fenced or indented),
    but for console transcripts (the console runner executes them) and lines holding an allow marker.
    Generated regions, fence lines and the inside of an HTML comment over several lines are blank in all
    three (the part of a line before a comment opens or after it closes stays). Inline values (the block
    engine's, markers and text) become NUL, other comments (the page's regions) a space."""
    lines = [line.rstrip("\r\n") for line in doc.lines]
    prose_lines, code_lines, allowed_lines = [""] * len(lines), [""] * len(lines), [""] * len(lines)
    hidden = bytearray(len(lines))   # 1: a line of code, inside a comment or generated, never prose
    generated = bytearray(len(lines))
    for block in doc.blocks:
        generated[block.begin: block.end + 1] = b"\x01" * (block.end + 1 - block.begin)
    code: list[int] = []
    cuts: dict[int, list[tuple[int, int, str]]] = {}   # line -> (start, stop, what stands there instead)
    for region in doc.regions:
        start, stop = region.start, region.stop
        if region.kind != COMMENT:
            hidden[start:stop] = b"\x01" * (stop - start)
            if region.kind == INDENTED:
                code += range(start, stop)
            elif region.fence is not None and region.fence.language != "console":
                code += range(start + 1, stop - 1 if region.closed else stop)
        elif stop - start == 1:
            if region.closed:
                cuts.setdefault(start, []).append((region.first, region.last, " "))
        else:
            hidden[start + 1: stop - 1] = b"\x01" * (stop - start - 2)
            cuts.setdefault(start, []).append((region.first, len(lines[start]), ""))
            if region.closed:
                cuts.setdefault(stop - 1, []).append((0, region.last, " " * region.last))
            else:
                hidden[stop - 1] = 1
    for value in doc.values:   # its two markers and all between them
        marks = cuts[value.line_index]
        start = next(a for a, b, _ in marks if b == value.start)
        stop = next(b for a, b, _ in marks if a == value.stop)
        marks[:] = [c for c in marks if not start <= c[0] < stop] + [(start, stop, "\x00")]
    for index in code:
        if not generated[index] and CHECK not in allowed_rules(lines[index]):
            code_lines[index] = lines[index]
    for index, line in enumerate(lines):
        if hidden[index] or generated[index]:
            continue
        for start, stop, instead in sorted(cuts.get(index, ()), reverse=True):
            line = line[:start] + instead + line[stop:]
        if index in cuts and CHECK in allowed_rules(lines[index]):
            allowed_lines[index] = line
        else:
            prose_lines[index] = line
    return prose_lines, code_lines, allowed_lines


def _mask_spans(line: str) -> str:
    """The line with its code spans blanked: a number or name in code is not a count."""
    for start, end in code_spans(line) if "`" in line else ():
        line = line[:start] + " " * (end - start) + line[end:]
    return line


def _counts(path: str, prose_lines: list[str], facts: _Facts) -> list[Finding]:
    """Counts, found line by line on the lines with a number: a digit, or a number word standing between
    blanks, commas and parentheses (so "-nine" is none). A count may wrap onto the next line."""
    out = []
    for i, line in enumerate(prose_lines):
        # blanking the code spans only takes numbers away: a line without one needs no blanking
        if not line or not _has_number(line.lower()):
            continue
        line = _mask_spans(line)
        low = line.lower()
        if not _has_number(low):
            continue
        following = _mask_spans(prose_lines[i + 1]) if i + 1 < len(prose_lines) else None
        window = low + ("\n" + following.lower() if following is not None else "")
        original = line + ("\n" + following if following is not None else "")
        for m in COUNT.finditer(window):
            if m.start() < len(line):
                out.append(_count_finding(path, i + 1, m.group(1), singular(m.group(3)), facts,
                                          original[m.start(): m.end()]))
        for m in PRONOUN_COUNT.finditer(window):   # "eight of them": of what its paragraph named last
            if m.start() < len(line) and (noun := antecedent(_paragraph_before(prose_lines, i) + low[:m.start()])):
                out.append(_count_finding(path, i + 1, m.group(1), noun, facts, original[m.start(): m.end()]))
    return out


def _paragraph_before(prose_lines: list[str], i: int) -> str:
    """The lines of line i's paragraph above it, code spans blanked."""
    start = i
    while start > 0 and prose_lines[start - 1] and prose_lines[start - 1].strip():
        start -= 1
    return "\n".join(_mask_spans(line) for line in prose_lines[start:i]) + "\n"


def _has_number(low: str) -> bool:
    return bool(_DIGIT.search(low) or NUMBER_WORD.search(low))


def _count_finding(path: str, line_no: int, number: str, noun: str, facts: _Facts, said: str) -> Finding:
    number = number.lower()
    n = number_value(number) or 0
    word = not number.isdigit()
    keys = COUNT_NOUNS.get(noun, ())
    exact = [f"{k}.count{'.word' if word else ''}" for k in keys
             if facts.value(f"{k}.count") == str(n)]
    said = " ".join(said.split())
    if exact:
        hint = f"use <!-- docgen:value {exact[0]} -->"
    elif keys:
        model_says = ", ".join(f"{k} {said_by}" for k in keys if (said_by := facts.value(f"{k}.count")) is not None)
        hint = (f"the model counts {model_says}: if this is one of them use "
                f"<!-- docgen:value {keys[0]}.count{'.word' if word else ''} --> (or that count's key), else render "
                "it with a block or mark the line <!-- docgen:allow WHY -->")
    else:
        hint = "render it with a value or a block, or mark the line <!-- docgen:allow WHY -->"
    return Finding(path, line_no, CHECK, f"count {said!r} is written by hand; {hint}")


def _version_and_path(path: str, text: str, facts: _Facts) -> list[Finding]:
    out = []
    for start, end in _lines_with(_DOTTED_DIGITS, text):   # every version has one: the search skips to them
        for m in STATED_VERSION.finditer(text, start, end):
            before = text[max(start, m.start() - 40): m.start()]
            after = text[m.end(): min(m.end() + 12, end)]
            names = facts.names_in(before) + facts.names_in(after)
            if not names:
                continue
            version = m.group(1)
            keys = facts.keys_with(version)
            hint = (f"use <!-- docgen:value {keys[0]} -->" if keys else
                    "the model does not give this version here: render it with a value or a block "
                    "(docgen/render/values.py), or mark the line <!-- docgen:allow WHY -->")
            out.append(Finding(path, line_at(text, m.start()), CHECK,
                               f"version {version!r} next to {names[-1]!r} is written by hand; {hint}"))
    for m in _PATH.finditer(text) if "/opt" in text else ():
        roots = facts.path_roots
        found = m.group(0).rstrip(".,;:)")
        best = max((r for r in roots if found == r or found.startswith(r.rstrip("/") + "/")), key=len, default=None)
        hint = (f"use <!-- docgen:value {roots[best]}.code --> (or {roots[best]} outside code)" if best else
                "the model knows no such path in the image (" + ", ".join(sorted(roots)) + ")")
        out.append(Finding(path, line_at(text, m.start()), CHECK, f"path {found!r} is written by hand; {hint}"))
    return out


def _lines_with(pattern: re.Pattern, text: str):
    """(start, end) offsets of each line of `text` where `pattern` matches, in order."""
    m = pattern.search(text)
    while m:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        yield start, end
        m = pattern.search(text, end)


def _span_facts(path: str, line_no: int, verdict: tuple, text: str, at: int, end: int, facts: _Facts) -> list[Finding]:
    """The findings of one code span (its verdict), from offset `at` to `end` of the line `text`."""
    span, unknown, maybe_extra, flags = verdict
    out = [_unknown(path, line_no, *unknown)] if unknown else []
    if maybe_extra and _EXTRA_WORD.search(text[max(0, at - 40): end + 38]) and _looks_like_extra_context(text, at, end):
        out.append(_unknown(path, line_no, span, "extra", facts.names.extras))
    out += [_unknown(path, line_no, *flag) for flag in flags]
    return out


def _span_verdict(raw: str, names) -> tuple | None:
    """What a code span (`raw`, its text between the backticks) says on its own, whatever its line: the
    stripped name, the unknown name it states (name, kind, the names known), whether it is a lower-case
    name the model does not know as an extra (a finding if the words around it call it one), and its
    unknown `--extra` flags. None when there is nothing to report or to look at."""
    span = raw.strip()
    unknown: tuple[str | None, str, object] | None = None
    maybe_extra = False
    m = _SPAN_KIND.match(span)
    kind, variable = (m.lastgroup, m.group("variable")) if m else (None, None)
    if kind == "cls":
        if span not in names.classes:
            unknown = (span, "actor class", names.classes)
    elif kind == "fqn":
        if span not in names.fqns and span not in names.modules:
            unknown = (span, "actor FQN or module", ())
    elif kind == "dotted":
        if not any(f == span or f.endswith("." + span) for f in names.fqns):
            unknown = (span, "actor FQN", ())
    elif kind == "variable":
        if variable not in names.variables:
            unknown = (variable, "ARG, ENV or NeMo-RL variable", ())
    elif kind == "lower":
        maybe_extra = span not in names.extras
    flags = tuple((f"--extra {extra}", "extra", names.extras) for extra in _EXTRA_FLAG.findall(span)
                  if extra not in names.extras and not extra.isupper()) if "--extra" in span else ()
    return (span, unknown, maybe_extra, flags) if unknown or maybe_extra or flags else None


def _looks_like_extra_context(text: str, at: int, end: int) -> bool:
    """`fsdp` extra / extra `fsdp` / extras (`a`, `b`): the word "extra" right beside the span (from `at` to
    `end`) or its list."""
    before = text[max(0, at - 25): at].lower()
    after = text[end: end + 8].lower()
    return bool(_EXTRA_BEFORE.search(before) or _EXTRA_AFTER.match(after) or _EXTRA_LIST.search(before)
            or ("(`" in before and "extra" in text[max(0, at - 60): at].lower()))


def _unknown(path: str, line_no: int, name: str, kind: str, known: Iterable[str]) -> Finding:
    known = sorted(known)
    listing = f" (it knows {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})" if known else ""
    return Finding(path, line_no, CHECK, f"{kind} {name!r} is unknown to the model{listing}; fix the name, render it "
                                         "from the model, or mark the line <!-- docgen:allow WHY -->")


def _kind_of(finding: Finding) -> str:
    """The claim kind of a written-by-hand finding: its message's first word (count, version, path, uid)."""
    return finding.message.split(" ", 1)[0]


# ------------------------------------------------------------------------------------------------ user ids

_UID_KEYS = (("build.uid", "runtime.uid"), ("runtime.gid", "build.uid"))   # a user's id, a group's


def _uids(path: str, lines: list[str], facts: _Facts) -> list[Finding]:
    """A user or group id typed by hand ("(uid 2000)", as fact.stated_ids reads one): the Dockerfile's ARGs set
    it, a value renders it."""
    out = []
    for i, line in enumerate(lines):
        for _, number, word, written in stated_ids(_mask_spans(line)) if _DIGIT.search(line) else ():
            if not number.isdigit():   # "runs as root" names no number to render
                continue
            keys = _UID_KEYS["g" in word]
            if "runtime" in line.lower() and "build" not in line.lower():
                keys = keys[::-1]
            exact = [k for k in keys if facts.value(k) == number]
            hint = (f"use <!-- docgen:value {exact[0]} -->" if exact else
                    "the model gives " + ", ".join(f"{k} {facts.value(k)}" for k in keys) +
                    ": render the one meant with its value, or mark the line <!-- docgen:allow WHY -->")
            out.append(Finding(path, i + 1, CHECK, f"uid {written!r} is written by hand; {hint}"))
    return out
