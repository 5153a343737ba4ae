"""The prose lint: facts about the image written by hand in the pages docgen owns.

Generated blocks and inline values are owned; console transcripts are proven by the console runner
against the built image. Everything else is prose, and a sentence there can go stale silently. This lint
finds the facts such a sentence states without owning them:

- a count next to an image noun ("nine venvs", "8 filters", "three actors ...");
- a version literal next to a package or tool name ("vLLM 0.25.1", "compute capability 9.0");
- a path under the image's roots (`/opt/...`);
- a code-spanned actor class, FQN, extra, ARG or environment variable the model does not know.

Each finding names file:line and the value or block to use instead. A line that must state such a fact
anyway (an example, another tool's version) carries `<!-- docgen:allow REASON -->`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from docgen.check.lint import Finding
from docgen.errors import InputError
from docgen.names import NUMBER_WORDS

if TYPE_CHECKING:
    from docgen.blocks import Document
    from docgen.model import ImageModel

CHECK = "prose"
# "one" is left out: "one venv per actor" states a rule, not a count.
_NUMBER = r"\d+|" + "|".join(NUMBER_WORDS[2:]) + "|zero"
_NOUNS = ("venvs?|filters?|extras?|actors?|workers?|stages?|warm[- ]steps?|steps?|syncs?|builds?|backends?|"
          "interpreters?|copies|wrappers?|executables?|consumers?|environments?")
_DOTTED_DIGITS = re.compile(r"\d\.\d")
_SEP = r"(?=\s)[ \t]*\n?[ \t]*"   # the words of a count may wrap onto the next line, not across a paragraph
# matched against the lower-cased text (re.I makes the scan several times slower); the finding quotes the original
_COUNT = re.compile(rf"\b({_NUMBER}){_SEP}((?:[a-z][\w-]*{_SEP}){{0,2}})({_NOUNS})\b")
_VERSION = re.compile(r"(?<![\w./@+-])v?(\d+\.\d+(?:\.\w+)*(?:\+[\w.]*\w)?)(?![\w/-])")
_PATH = re.compile(r"(?<![\w$}/.-])/opt(?:/[\w.@+*<>{}-]+)*")
_VALUE = re.compile(r"<!--\s*docgen:value\s+(\S+)\s*-->(.*?)<!--\s*docgen:end-value\s*-->")
_ALLOW = re.compile(r"<!--\s*docgen:allow\s+\S.*?-->")
_COMMENT = re.compile(r"<!--.*?-->")
# single-backtick spans only: the general form (any run of backticks) scanned ten times slower, and the
# pages use double backticks only to quote a backtick, never around a name
_CODE_SPAN = re.compile(r"(`)([^`\n]+)`")
_FENCE = re.compile(r"^[ \t]*(?:>[ \t]*)*(?P<run>`{3,}|~{3,})(?P<info>.*)$")
_CLASS = re.compile(r"^[A-Z][A-Za-z0-9]*(?:Worker|WorkerV\d|Actor|Environment|Env|Collector|Buffer)$")
_FQN = re.compile(r"^nemo_rl(?:\.\w+)+$")
_DOTTED_CLASS = re.compile(r"^[a-z_][\w]*(?:\.[a-z_]\w*)*\.[A-Z]\w+$")
_VARIABLE = re.compile(r"^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})\}?(?:[=/:].*)?$")
_EXTRA_FLAG = re.compile(r"--extra[ =]([\w-]+)")
_EXTRA_WORD = re.compile(r"\bextras?\b", re.I)
_LOWER_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_WORDS = re.compile(r"[A-Za-z][\w-]*[A-Za-z0-9]|[A-Za-z]")


def _singular(noun: str) -> str:
    noun = noun.lower().replace("-", " ")
    return "copy" if noun == "copies" else noun[:-1] if noun.endswith("s") else noun


# noun -> value keys (without ".word") whose count it may be
_COUNT_KEYS = {
    "venv": ("venvs", "vllm_copies"), "filter": ("filters",), "extra": ("warm_extras", "extras", "extras_not_warmed"),
    "actor": ("actors", "uv_actors", "system_actors", "not_prefetched"),
    "worker": ("actors", "uv_actors", "not_prefetched", "venvs"), "stage": ("stages",),
    "warm step": ("warm_steps",), "step": ("warm_steps",), "sync": ("warm_steps",),
    "build": ("shared_builds",), "copy": ("vllm_copies",), "executable": ("py_executables",),
    "wrapper": ("venvs",), "interpreter": ("venvs",), "environment": ("venvs",), "backend": ("warm_extras",),
    "consumer": ("te_consumers",),
}


class _Facts:
    """What the lint compares against, computed once per run and only when a rule needs it."""

    def __init__(self, model: "ImageModel") -> None:
        self.model = model
        self._names = None
        self._packages = None
        self._values: dict[str, str] | None = None

    @property
    def names(self):
        if self._names is None:
            from docgen.model.claims import known_names
            self._names = known_names(self.model)
        return self._names

    @property
    def values(self) -> "_LazyValues":
        if self._values is None:
            self._values = _LazyValues(self.model)
        return self._values

    @property
    def package_names(self) -> frozenset[str]:
        """Package and tool names (lower case) a version may stand next to: the lock's packages, the
        aliases the docs use for them, and the tools whose version is a build argument."""
        if self._packages is None:
            from docgen.model.claims import ALIASES, ARG_ALIASES
            names = {p.name for p in self.model.snapshot.packages.values()} | set(ALIASES) | set(ARG_ALIASES)
            self._packages = frozenset(names | {"cuda", "python"})
        return self._packages

    def names_in(self, text: str) -> list[str]:
        """The package or tool names among the words of `text` (a set lookup per word: a regex of every
        package name took longer to compile than the whole lint to run)."""
        found = [w for w in _WORDS.findall(text) if w.lower() in self.package_names]
        if "compute capability" in text.lower():
            found.append("compute capability")
        return found

    def keys_with(self, text: str) -> list[str]:
        return [k for k in self.values.keys_like(".version", "cuda_arch.") if self.values.get(k) == text]

    def path_roots(self) -> dict[str, str]:
        keys = [k for k in self.values.keys_like("paths.") if not k.endswith(".code")]
        return {self.values[k]: k for k in keys if k in self.values}


class _LazyValues:
    """The model's values, each rendered on first use: most pages need none or a few of them."""

    def __init__(self, model: "ImageModel") -> None:
        from docgen.render.values import VALUES
        self._model, self._fns, self._done = model, VALUES, {}

    def get(self, key: str) -> str | None:
        if key not in self._done:
            try:
                self._done[key] = self._fns[key](self._model) if key in self._fns else None
            except (InputError, KeyError, ValueError):  # a value the model cannot give (no such ARG): the
                self._done[key] = None                      # pipeline reports it where a page uses the value
        return self._done[key]

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __getitem__(self, key: str) -> str:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def keys_like(self, *parts: str) -> list[str]:
        return [k for k in self._fns if any(p in k for p in parts)]


def prose_findings(run) -> list[Finding]:
    facts = _Facts(run.model)
    out: list[Finding] = []
    for page in run.pages:
        out += lint_document(page.doc, facts)
    return out


def lint_document(doc: "Document", facts: "_Facts | ImageModel") -> list[Finding]:
    """One pass over the lines sorts them into prose and plain-fence code (the rest, generated regions,
    console transcripts and allowed lines, becomes blank); then each rule runs once over the whole text,
    which is several times cheaper than running every pattern on every line."""
    if not isinstance(facts, _Facts):
        facts = _Facts(facts)
    skip = set()
    for block in doc.blocks:
        skip.update(range(block.begin, block.end + 1))
    prose_lines: list[str] = []
    code_lines: list[str] = []
    fence: str | None = None
    fence_runs = False
    for index, raw in enumerate(doc.lines):
        line = raw.rstrip("\r\n")
        prose_line = code_line = ""
        m = _FENCE.match(line) if ("```" in line or "~~~" in line) else None
        if index in skip:
            pass
        elif fence is not None:
            if m and m.group("run")[0] == fence[0] and len(m.group("run")) >= len(fence) and not m.group("info").strip():
                fence = None
            elif not fence_runs and not ("<!--" in line and _ALLOW.search(line)):
                code_line = line
        elif m and not (m.group("run")[0] == "`" and "`" in m.group("info")):
            fence = m.group("run")
            fence_runs = m.group("info").strip().split(" ")[0] == "console"  # the console runner executes it
        elif "<!--" in line:
            if not _ALLOW.search(line):
                prose_line = _COMMENT.sub(" ", _VALUE.sub("\x00", line))
        else:
            prose_line = line
        prose_lines.append(prose_line)
        code_lines.append(code_line)
    path = doc.path
    out: list[Finding] = []
    prose = "\n".join(prose_lines)
    if prose.strip():
        where = _Lines(prose_lines)
        spans = list(_CODE_SPAN.finditer(prose)) if "`" in prose else []
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), prose) if spans else prose
        out += _counts(path, masked, where, facts)
        out += _version_and_path(path, where, prose, facts)
        for span in spans:
            context = where.text_of(span.start())
            out += _span_facts(path, where.line(span.start()), span.group(2).strip(), context,
                               span.start() - where.start_of(span.start()), facts)
    code = "\n".join(code_lines)
    if code.strip():
        where = _Lines(code_lines)
        out += _version_and_path(path, where, code, facts)
        for m in _EXTRA_FLAG.finditer(code):
            if m.group(1) not in facts.names.extras and not m.group(1).isupper():
                out.append(_unknown(path, where.line(m.start()), f"--extra {m.group(1)}", "extra", facts.names.extras))
    out.sort(key=lambda f: f.line or 0)
    return out


class _Lines:
    """Offsets of the lines joined into one text: position -> 1-based line number."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.starts = []
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1

    def index(self, pos: int) -> int:
        from bisect import bisect_right
        return bisect_right(self.starts, pos) - 1

    def line(self, pos: int) -> int:
        return self.index(pos) + 1

    def start_of(self, pos: int) -> int:
        return self.starts[self.index(pos)]

    def text_of(self, pos: int) -> str:
        return self.lines[self.index(pos)]


_NUMBER_SET = frozenset([*NUMBER_WORDS[2:], "zero"])
_DIGIT = re.compile(r"\d")


def _counts(path: str, masked: str, where: "_Lines", facts: _Facts) -> list[Finding]:
    """Counts, found line by line: a set test on the line's words (and a digit search) rejects almost
    every line before the count pattern runs; a count may wrap onto the next line."""
    lines = masked.split("\n")
    out = []
    for i, line in enumerate(lines):
        if not line:
            continue
        low = line.lower()
        if _NUMBER_SET.isdisjoint(low.replace(",", " ").replace("(", " ").split()) and not _DIGIT.search(low):
            continue
        window = low + ("\n" + lines[i + 1].lower() if i + 1 < len(lines) else "")
        original = line + ("\n" + lines[i + 1] if i + 1 < len(lines) else "")
        for m in _COUNT.finditer(window):
            if m.start() < len(line):
                out.append(_count_finding(path, i + 1, m, facts, original[m.start(): m.end()]))
    return out


def _count_finding(path: str, line_no: int, m: re.Match, facts: _Facts, said: str) -> Finding:
    number, noun = m.group(1).lower(), _singular(m.group(3))
    n = int(number) if number.isdigit() else (NUMBER_WORDS.index(number) if number in NUMBER_WORDS else 0)
    word = not number.isdigit()
    keys = _COUNT_KEYS.get(noun, ())
    exact = [f"{k}.count{'.word' if word else ''}" for k in keys
             if facts.values.get(f"{k}.count") == str(n)]
    said = " ".join(said.split())
    if exact:
        hint = f"use <!-- docgen:value {exact[0]} -->"
    elif keys:
        model_says = ", ".join(f"{k} {facts.values[f'{k}.count']}" for k in keys if f"{k}.count" in facts.values)
        hint = (f"the model counts {model_says}: if this is one of them use "
                f"<!-- docgen:value {keys[0]}.count{'.word' if word else ''} --> (or that count's key), else render "
                "it with a block or mark the line <!-- docgen:allow WHY -->")
    else:
        hint = "render it with a value or a block, or mark the line <!-- docgen:allow WHY -->"
    return Finding(path, line_no, CHECK, f"count {said!r} is written by hand; {hint}")


def _version_and_path(path: str, where: "_Lines", text: str, facts: _Facts) -> list[Finding]:
    out = []
    for m in _VERSION.finditer(text) if _DOTTED_DIGITS.search(text) else ():
        line_start = where.start_of(m.start())
        line_end = text.find("\n", m.end())
        before = text[max(line_start, m.start() - 40): m.start()]
        after = text[m.end(): min(m.end() + 12, line_end if line_end >= 0 else len(text))]
        names = facts.names_in(before) + facts.names_in(after)
        if not names:
            continue
        version = m.group(1)
        keys = facts.keys_with(version)
        hint = (f"use <!-- docgen:value {keys[0]} -->" if keys else
                "the model does not give this version here: render it with a value or a block "
                "(docgen/render/values.py), or mark the line <!-- docgen:allow WHY -->")
        out.append(Finding(path, where.line(m.start()), CHECK,
                           f"version {version!r} next to {names[-1]!r} is written by hand; {hint}"))
    if "/opt" in text:
        roots = facts.path_roots()
        for m in _PATH.finditer(text):
            found = m.group(0).rstrip(".,;:)")
            best = max((r for r in roots if found == r or found.startswith(r.rstrip("/") + "/")), key=len, default=None)
            hint = (f"use <!-- docgen:value {roots[best]}.code --> (or {roots[best]} outside code)" if best else
                    "the model knows no such path in the image (" + ", ".join(sorted(roots)) + ")")
            out.append(Finding(path, where.line(m.start()), CHECK, f"path {found!r} is written by hand; {hint}"))
    return out


def _span_facts(path: str, line_no: int, span: str, text: str, at: int, facts: _Facts) -> list[Finding]:
    names = facts.names
    out = []
    if _CLASS.match(span):
        if span not in names.classes:
            out.append(_unknown(path, line_no, span, "actor class", names.classes))
    elif _FQN.match(span):
        if span not in names.fqns and span not in names.modules:
            out.append(_unknown(path, line_no, span, "actor FQN or module", ()))
    elif _DOTTED_CLASS.match(span):
        if not any(f == span or f.endswith("." + span) for f in names.fqns):
            out.append(_unknown(path, line_no, span, "actor FQN", ()))
    else:
        m = _VARIABLE.match(span)
        if m and m.group(1) not in names.variables:
            out.append(_unknown(path, line_no, m.group(1), "ARG, ENV or NeMo-RL variable", ()))
        elif _LOWER_NAME.match(span) and _EXTRA_WORD.search(text[max(0, at - 40): at + len(span) + 40]) \
                and span not in names.extras and _looks_like_extra_context(text, at, span):
            out.append(_unknown(path, line_no, span, "extra", names.extras))
    for m in _EXTRA_FLAG.finditer(span):
        if m.group(1) not in names.extras and not m.group(1).isupper():
            out.append(_unknown(path, line_no, f"--extra {m.group(1)}", "extra", names.extras))
    return out


def _looks_like_extra_context(text: str, at: int, span: str) -> bool:
    """`fsdp` extra / extra `fsdp` / extras (`a`, `b`): the word "extra" right beside the span or its list."""
    before = text[max(0, at - 25): at].lower()
    after = text[at + len(span) + 2: at + len(span) + 10].lower()
    return bool(re.search(r"extras?\W*(\(|`|,|\s)*$", before) or re.match(r"\W{0,2}extras?\b", after)
                or re.search(r"extras?[^.]*\($", before) or ("(`" in before and "extra" in text[max(0, at - 60): at].lower()))


def _unknown(path: str, line_no: int, name: str, kind: str, known: Iterable[str]) -> Finding:
    known = sorted(known)
    listing = f" (it knows {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})" if known else ""
    return Finding(path, line_no, CHECK, f"{kind} {name!r} is unknown to the model{listing}; fix the name, render it "
                                         "from the model, or mark the line <!-- docgen:allow WHY -->")
