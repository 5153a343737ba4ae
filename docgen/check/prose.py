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
from itertools import takewhile
from operator import attrgetter   # loaded already: collections imports it
from typing import TYPE_CHECKING

from docgen.check.lint import Finding
from docgen.errors import InputError
from docgen.names import NUMBER_WORDS

if TYPE_CHECKING:
    from collections.abc import Iterable
    from docgen.blocks import Document
    from docgen.model import ImageModel

CHECK = "prose"


class _Pattern:
    """A regular expression compiled on first use. Compiling all of them cost more than the rest of the
    lint's import, and a run compiles only those its pages reach: no path under /opt, no path pattern; no
    line that can hold a count, no count pattern."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str):   # match, search, finditer, sub: bound once, then found directly
        method = getattr(re.compile(self.pattern, self.flags), name)
        setattr(self, name, method)
        return method


# "one" is left out: "one venv per actor" states a rule, not a count.
_NUMBER = r"\d+|" + "|".join(NUMBER_WORDS[2:]) + "|zero"
_NOUNS = ("venvs?|filters?|extras?|actors?|workers?|stages?|warm[- ]steps?|steps?|syncs?|builds?|backends?|"
          "interpreters?|copies|wrappers?|executables?|consumers?|environments?")
# a dot between two digits, which every version has: the literal dot first lets the search skip to the
# dots instead of trying a digit at every position (a tenth of the time of `\d\.\d`)
_DOTTED_DIGITS = _Pattern(r"\.(?<=\d\.)(?=\d)")
_SEP = r"(?=\s)[ \t]*\n?[ \t]*"   # the words of a count may wrap onto the next line, not across a paragraph
# matched against the lower-cased text (re.I makes the scan several times slower); the finding quotes the original
_COUNT = _Pattern(rf"\b({_NUMBER}){_SEP}((?:[a-z][\w-]*{_SEP}){{0,2}})({_NOUNS})\b")
_VERSION = _Pattern(r"(?<![\w./@+-])v?(\d+\.\d+(?:\.\w+)*(?:\+[\w.]*\w)?)(?![\w/-])")
_PATH = _Pattern(r"(?<![\w$}/.-])/opt(?:/[\w.@+*<>{}-]+)*")
# Read with str methods by _strip_values, _allowed and _strip_comments (the patterns are their definitions,
# compiled only by the tests that compare the two): compiling the three cost more than reading every page.
_VALUE = _Pattern(r"<!--\s*docgen:value\s+(\S+)\s*-->(.*?)<!--\s*docgen:end-value\s*-->")
_ALLOW = _Pattern(r"<!--\s*docgen:allow\s+\S.*?-->")
_COMMENT = _Pattern(r"<!--.*?-->")
# single-backtick spans only: the general form (any run of backticks) scanned ten times slower, and the
# pages use double backticks only to quote a backtick, never around a name
_CODE_SPAN = _Pattern(r"(`)([^`\n]+)`")
_FENCE = _Pattern(r"^[ \t]*(?:>[ \t]*)*(?P<run>`{3,}|~{3,})(?P<info>.*)$")
# What a whole code span names, by its shape, the first alternative that fits deciding: an actor class, an
# actor FQN or module, a dotted path to a class, a variable (the group is its name), a lower-case name
# (an extra, if the words beside it say so). `_span_kind` reads it with str methods (the pattern alone took
# longer to compile than the lint takes to judge every span of the repository); the tests compare the two.
_SPAN_KIND = _Pattern(
    r"(?P<cls>[A-Z][A-Za-z0-9]*(?:Worker|WorkerV\d|Actor|Environment|Env|Collector|Buffer))$"
    r"|(?P<fqn>nemo_rl(?:\.\w+)+)$"
    r"|(?P<dotted>[a-z_][\w]*(?:\.[a-z_]\w*)*\.[A-Z]\w+)$"
    r"|\$?\{?(?P<variable>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})\}?(?:[=/:].*)?$"
    r"|(?P<lower>[a-z][a-z0-9_-]*)$")
_EXTRA_FLAG = _Pattern(r"--extra[ =]([\w-]+)")   # read by _extra_flags
# The word "extra", as claims.says reads it (a str scan on ASCII text; compiled only for other text).
_EXTRA_WORD = r"\bextras?\b"
# Compiled only for text that is not ASCII: _words reads ASCII text.
_WORDS = _Pattern(r"[A-Za-z][\w-]*[A-Za-z0-9]|[A-Za-z]")
# What _looks_like_extra_context reads with str methods: the word "extra" right before a span (and its
# list), right after it, or before the parenthesis that opens the span's list.
_EXTRA_BEFORE = _Pattern(r"extras?\W*(\(|`|,|\s)*$")
_EXTRA_AFTER = _Pattern(r"\W{0,2}extras?\b")
_EXTRA_LIST = _Pattern(r"extras?[^.]*\($")


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
        self._version_keys: list[str] | None = None
        self._path_roots: dict[str, str] | None = None
        self._spans: dict[str, tuple] = {}

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
            names = set(map(attrgetter("name"), self.model.snapshot.packages.values())) | set(ALIASES) | set(ARG_ALIASES)
            self._packages = frozenset(names | {"cuda", "python"})
        return self._packages

    def names_in(self, text: str) -> list[str]:
        """The package or tool names among the words of `text` (a set lookup per word: a regex of every
        package name took longer to compile than the whole lint to run)."""
        found = [w for w in _words(text) if w.lower() in self.package_names]
        if "compute capability" in text.lower():
            found.append("compute capability")
        return found

    def keys_with(self, text: str) -> list[str]:
        if self._version_keys is None:
            self._version_keys = self.values.keys_like(".version", "cuda_arch.")
        return [k for k in self._version_keys if self.values.get(k) == text]

    @property
    def path_roots(self) -> dict[str, str]:
        """The model's paths under the image's roots -> their value keys."""
        if self._path_roots is None:
            keys = [k for k in self.values.keys_like("paths.") if not k.endswith(".code")]
            self._path_roots = {self.values[k]: k for k in keys if k in self.values}
        return self._path_roots

    def span_verdict(self, span: str) -> tuple | None:
        """`_span_verdict` once per distinct span text: the pages repeat the same few names (and most span
        texts come once, so a miss is no exception)."""
        verdict = self._spans.get(span, self)   # the facts themselves stand for "not judged yet"
        if verdict is self:
            verdict = self._spans[span] = _span_verdict(span, self.names)
        return verdict


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
    """Sorts the lines into prose and plain-fence code (the rest becomes blank), then runs each rule only
    where a cheap search says it can match: versions on the lines with a dot between two digits, paths
    where "/opt" can start one, counts on the lines with a number. Code spans come from one scan of the
    prose, and each distinct span text is judged once per run."""
    if not isinstance(facts, _Facts):
        facts = _Facts(facts)
    prose_lines, code_lines = _sort_lines(doc)
    path = doc.path
    out: list[Finding] = []
    prose = "\n".join(prose_lines)
    if prose.strip():
        spans = list(_CODE_SPAN.finditer(prose)) if "`" in prose else []   # a span never crosses a line
        out += _counts(path, prose, prose_lines, facts)
        out += _version_and_path(path, prose, facts)
        line_no = 1
        line_start = 0
        for span in spans:
            verdict = facts.span_verdict(span.group(2))
            if verdict:   # most spans name nothing the model could contradict: no need to know their line
                line_no += prose.count("\n", line_start, span.start())
                line_start = prose.rfind("\n", 0, span.start()) + 1
                out += _span_facts(path, line_no, verdict, prose_lines[line_no - 1], span.start() - line_start, facts)
    code = "\n".join(code_lines)
    if code.strip():
        out += _version_and_path(path, code, facts)
        for at, extra in _extra_flags(code):
            if extra not in facts.names.extras and not extra.isupper():
                out.append(_unknown(path, code.count("\n", 0, at) + 1, f"--extra {extra}", "extra", facts.names.extras))
    out.sort(key=lambda f: f.line or 0)
    return out


def _sort_lines(doc: "Document") -> tuple[list[str], list[str]]:
    """The page's lines as prose and as plain-fence code, one entry per line (without its line ending) and
    blank where the line is not that kind: generated regions, console transcripts (the console runner
    executes them) and allowed lines are blank in both. Inline values become NUL, other comments a space."""
    lines = doc.lines
    prose_lines = [""] * len(lines)
    code_lines = [""] * len(lines)
    fence: str | None = None
    fence_runs = False
    for start, stop in _outside_blocks(doc):
        for index in range(start, stop):
            line = lines[index].rstrip("\r\n")
            m = _FENCE.match(line) if ("```" in line or "~~~" in line) else None
            if fence is not None:
                if m and m.group("run")[0] == fence[0] and len(m.group("run")) >= len(fence) and not m.group("info").strip():
                    fence = None
                elif not fence_runs and not ("<!--" in line and _allowed(line)):
                    code_lines[index] = line
            elif m and not (m.group("run")[0] == "`" and "`" in m.group("info")):
                fence = m.group("run")
                fence_runs = m.group("info").strip().split(" ")[0] == "console"  # the console runner executes it
            elif "<!--" in line:
                if not _allowed(line):
                    prose_lines[index] = _strip_comments(_strip_values(line))
            else:
                prose_lines[index] = line
    return prose_lines, code_lines


def _outside_blocks(doc: "Document") -> list[tuple[int, int]]:
    """The runs of line indexes [start, stop) outside every generated region (markers included)."""
    runs, start = [], 0
    for block in sorted(doc.blocks, key=lambda b: b.begin):
        if block.begin > start:
            runs.append((start, block.begin))
        start = max(start, block.end + 1)
    runs.append((start, len(doc.lines)))
    return runs


_NUMBER_SET = frozenset([*NUMBER_WORDS[2:], "zero"])
_DIGIT = _Pattern(r"\d")


def _mask_spans(line: str) -> str:
    """The line with its code spans blanked: a number or name in code is not a count."""
    return _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line) if "`" in line else line


def _counts(path: str, prose: str, prose_lines: list[str], facts: _Facts) -> list[Finding]:
    """Counts, found line by line: a set test on the line's words (and a digit search) rejects the lines
    without a number before the count pattern runs; a count may wrap onto the next line. Only the lines
    `_count_lines` finds are tested (every line where the pattern can begin a match is among them), and
    the pattern runs only on a window `_may_count` lets through."""
    out = []
    for i in _count_lines(prose, prose_lines):
        line = _mask_spans(prose_lines[i])
        low = line.lower()
        if _NUMBER_SET.isdisjoint(low.replace(",", " ").replace("(", " ").split()) and not _has_digit(low):
            continue
        following = _mask_spans(prose_lines[i + 1]) if i + 1 < len(prose_lines) else None
        window = low + ("\n" + following.lower() if following is not None else "")
        original = line + ("\n" + following if following is not None else "")
        for m in _COUNT.finditer(window) if _may_count(window) else ():
            if m.start() < len(line):
                out.append(_count_finding(path, i + 1, m, facts, original[m.start(): m.end()]))
    return out


# The count view of an ASCII prose: lower case, every digit a "0", and every other character that is not a
# letter or "_" a space. One character for one, so an offset in the view is the same offset in the prose. A
# number the count pattern begins with stands alone in it: \\b before it, white space after it.
# the ASCII characters that are not \\w: all but 0-9 (48-57), A-Z (65-90), "_" (95) and a-z (97-122)
_NOT_WORD = "".join(map(chr, (*range(48), *range(58, 65), *range(91, 95), 96, *range(123, 128))))
_COUNT_VIEW = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ123456789" + _NOT_WORD,
                            "abcdefghijklmnopqrstuvwxyz000000000" + " " * len(_NOT_WORD))


def _count_lines(prose: str, prose_lines: list[str]) -> list[int]:
    """The indexes of the lines of `prose` where the count pattern can begin a match, and more; in order.
    In an ASCII prose these are found from the numbers that stand alone in the count view (digits with
    str.find, number words with one split of the view and str.find): a line is kept when one of them is
    followed by white space or a backtick in the prose and, within the next three words of its window
    (code spans blanked as `_counts` blanks them), by a word that begins with a noun. Other prose goes to
    `_number_lines`."""
    if not prose.isascii():
        return _number_lines(prose)
    view = prose.translate(_COUNT_VIEW)
    ends = []   # offsets right after a number that stands alone in the view
    at = view.find("0 ")
    while at >= 0:
        start = at
        while start and view[start - 1] == "0":
            start -= 1
        if not start or view[start - 1] == " ":
            ends.append(at + 1)
        at = view.find("0 ", at + 2)
    present = _NUMBER_SET.intersection(view.split())
    if present:
        padded = f" {view} "
        for word in present:
            needle = f" {word} "
            at = padded.find(needle)   # at: the word's offset in the view (the pad shifts it by one)
            while at >= 0:
                ends.append(at + len(word))
                at = padded.find(needle, at + len(word) + 1)
    found = []
    line = start = 0   # the line of the last end looked at, and the offset where it starts
    for end in sorted(ends):
        if end == len(prose) or not (prose[end].isspace() or prose[end] == "`"):
            continue
        skipped = prose.count("\n", start, end)
        if skipped:
            line += skipped
            start = prose.rfind("\n", start, end) + 1
        if found and found[-1] == line:
            continue
        window = prose_lines[line] if line + 1 == len(prose_lines) else f"{prose_lines[line]}\n{prose_lines[line + 1]}"
        if "`" in window:
            window = _mask_spans(window)
        if any(word.startswith(_NOUN_STARTS) for word in window[end - start:].lower().split(None, 3)[:3]):
            found.append(line)
    return found


def _has_digit(text: str) -> bool:
    """Whether _DIGIT matches in `text` (in ASCII text, \\d is 0-9)."""
    if text.isascii():
        return any(digit in text for digit in "0123456789")
    return _DIGIT.search(text) is not None


def _number_lines(text: str) -> list[int]:
    """The indexes of the lines of `text` with a digit or a number word, found over the whole text at once.
    A word counts as in the test above, standing between spaces, commas and parentheses, or a backtick:
    blanking a code span leaves spaces beside the words next to it."""
    found = set(_digit_lines(text))
    low = text.lower().replace(",", " ").replace("(", " ").replace("`", " ")
    for word in _NUMBER_SET.intersection(low.split()):
        at = low.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or low[at - 1].isspace()) and (end == len(low) or low[end].isspace()):
                found.add(low.count("\n", 0, at))
            at = low.find(word, end)
    return sorted(found)


# In an ASCII text \d means 0-9, and str.find skips to a "0" several times faster than the pattern scans.
_DIGITS_AS_ZERO = str.maketrans("123456789", "0" * 9)


def _digit_lines(text: str):
    """The indexes of the lines of `text` with a decimal digit, in order."""
    if text.isascii():
        zeros = text.translate(_DIGITS_AS_ZERO)
        next_digit = lambda pos: zeros.find("0", pos)  # noqa: E731
    else:
        def next_digit(pos: int) -> int:
            m = _DIGIT.search(text, pos)
            return m.start() if m else -1
    line = line_start = 0
    at = next_digit(0)
    while at >= 0:
        line += text.count("\n", line_start, at)
        yield line
        line_start = text.find("\n", at) + 1
        if not line_start:
            return
        line += 1
        at = next_digit(line_start)


# The words a noun of _NOUNS begins with ("warm" for "warm step").
_NOUN_STARTS = tuple("".join(takewhile(str.isalpha, noun.removesuffix("s?"))) for noun in _NOUNS.split("|"))


def _may_count(window: str) -> bool:
    """False when the count pattern cannot match in `window` (lower case), found without compiling it: a
    count is a word that ends in a number (digits or a number word, with no word character right before
    it), then at most two words, then a word that begins with a noun, all split by white space. On pages
    whose counts are owned no window gets that far, and the pattern is never compiled."""
    words = window.split()
    for k, word in enumerate(words):
        if word.startswith(_NOUN_STARTS) and any(_ends_in_number(w) for w in words[max(0, k - 3):k]):
            return True
    return False


def _ends_in_number(word: str) -> bool:
    """Whether `word` ends in a number the count pattern can begin at: decimal digits or a number word,
    with no letter, digit or underscore right before it."""
    start = len(word)
    while start and word[start - 1].isdecimal():
        start -= 1
    starts = [start] if start < len(word) else [len(word) - len(n) for n in _NUMBER_SET if word.endswith(n)]
    return any(not at or not (word[at - 1].isalnum() or word[at - 1] == "_") for at in starts)


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


def _version_and_path(path: str, text: str, facts: _Facts) -> list[Finding]:
    out = []
    for start, end in _dotted_lines(text):   # every version has one: the search skips to them
        for m in _VERSION.finditer(text, start, end):
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
            out.append(Finding(path, text.count("\n", 0, m.start()) + 1, CHECK,
                               f"version {version!r} next to {names[-1]!r} is written by hand; {hint}"))
    if _may_have_path(text):
        roots = facts.path_roots
        for m in _PATH.finditer(text):
            found = m.group(0).rstrip(".,;:)")
            best = max((r for r in roots if found == r or found.startswith(r.rstrip("/") + "/")), key=len, default=None)
            hint = (f"use <!-- docgen:value {roots[best]}.code --> (or {roots[best]} outside code)" if best else
                    "the model knows no such path in the image (" + ", ".join(sorted(roots)) + ")")
            out.append(Finding(path, text.count("\n", 0, m.start()) + 1, CHECK, f"path {found!r} is written by hand; {hint}"))
    return out


def _may_have_path(text: str) -> bool:
    """Whether "/opt" starts a path somewhere in `text`: not right after a word or path character (the
    path pattern's look-behind), as in "building/options.md"."""
    at = text.find("/opt")
    while at >= 0:
        if not at or not (text[at - 1].isalnum() or text[at - 1] in "_$}/.-"):
            return True
        at = text.find("/opt", at + 1)
    return False


def _dotted_lines(text: str):
    """(start, end) offsets of each line of `text` with a dot between two digits (_DOTTED_DIGITS), in order:
    in ASCII text found with str.find over a copy whose digits are all "0"."""
    if not text.isascii():
        yield from _lines_with(_DOTTED_DIGITS, text)
        return
    zeros = text.translate(_DIGITS_AS_ZERO)
    at = zeros.find("0.0")
    while at >= 0:
        start = text.rfind("\n", 0, at + 1) + 1
        end = text.find("\n", at + 2)
        end = len(text) if end < 0 else end
        yield start, end
        at = zeros.find("0.0", end)


def _lines_with(pattern: "_Pattern", text: str):
    """(start, end) offsets of each line of `text` where `pattern` matches, in order."""
    m = pattern.search(text)
    while m:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        yield start, end
        m = pattern.search(text, end)


def _span_facts(path: str, line_no: int, verdict: tuple, text: str, at: int, facts: _Facts) -> list[Finding]:
    """The findings of one code span (its verdict) at offset `at` of the line `text`."""
    span, unknown, maybe_extra, flags = verdict
    out = [_unknown(path, line_no, *unknown)] if unknown else []
    if maybe_extra and _has_extra_word(text[max(0, at - 40): at + len(span) + 40]) \
            and _looks_like_extra_context(text, at, span):
        out.append(_unknown(path, line_no, span, "extra", facts.names.extras))
    out += [_unknown(path, line_no, *flag) for flag in flags]
    return out


def _span_verdict(raw: str, names) -> tuple | None:
    """What a code span (`raw`, its text between the backticks) says on its own, whatever its line: the
    stripped name, the unknown name it states (name, kind, the names known), whether it is a lower-case
    name the model does not know as an extra (a finding if the words around it call it one), and its
    unknown `--extra` flags. None when there is nothing to report or to look at."""
    span = raw.strip()
    unknown = None
    maybe_extra = False
    kind, variable = _span_kind(span)
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
    flags = tuple((f"--extra {extra}", "extra", names.extras) for _, extra in _extra_flags(span)
                  if extra not in names.extras and not extra.isupper()) if "--extra" in span else ()
    return (span, unknown, maybe_extra, flags) if unknown or maybe_extra or flags else None


def _looks_like_extra_context(text: str, at: int, span: str) -> bool:
    """`fsdp` extra / extra `fsdp` / extras (`a`, `b`): the word "extra" right beside the span or its list."""
    before = text[max(0, at - 25): at].lower()
    after = text[at + len(span) + 2: at + len(span) + 10].lower()
    return (_extra_before(before) or _extra_after(after) or _extra_list(before)
            or ("(`" in before and "extra" in text[max(0, at - 60): at].lower()))


def _unknown(path: str, line_no: int, name: str, kind: str, known: Iterable[str]) -> Finding:
    known = sorted(known)
    listing = f" (it knows {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})" if known else ""
    return Finding(path, line_no, CHECK, f"{kind} {name!r} is unknown to the model{listing}; fix the name, render it "
                                         "from the model, or mark the line <!-- docgen:allow WHY -->")


# ---------------------------------------------------------------------------- patterns read with str methods
# Each reader below does exactly what the pattern it names does, for any text (tests/unit/test_prose.py
# compares the two on edge cases and generated text). Compiling these patterns cost more than reading every
# page with them. re's \w is a character for which str.isalnum() is true, or "_"; its \s is str.isspace();
# its \d is str.isdecimal().

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_CLASS_ENDS = ("Worker", "Actor", "Environment", "Env", "Collector", "Buffer")
_VARIABLE_CHARS = _UPPER + "0123456789_"
_LOWER_OR_UNDERSCORE = _LOWER + "_"
_LOWER_NAME_CHARS = _LOWER + "0123456789_-"


def _is_word(text: str) -> bool:
    """`text` is one or more \\w."""
    return text.replace("_", "a").isalnum()


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _span_kind(span: str) -> tuple[str | None, str | None]:
    """_SPAN_KIND.match(span): the name of the alternative that matches the whole of `span` (None if none
    does) and, for a variable, the variable's name. Only some alternatives can begin with `span`'s first
    character; they are tried in the pattern's order."""
    if "\n" in span:   # `$` could match before a last line break: never in a span, which is one line
        m = _SPAN_KIND.match(span)
        return (m.lastgroup, m.group("variable")) if m else (None, None)
    first = span[:1]
    if first and first in _UPPER:   # cls: [A-Z][A-Za-z0-9]* then one of the class endings
        if span.isascii() and span.isalnum() and any(len(span) > len(end) and span.endswith(end) for end in _CLASS_ENDS):
            return "cls", None
        if len(span) > 8 and span[-1].isdecimal() and span.endswith("WorkerV", 0, -1):   # WorkerV\d
            head = span[:-8]
            if head.isascii() and head.isalnum():
                return "cls", None
        return _variable_kind(span, 0)
    if first and first in _LOWER_OR_UNDERSCORE:
        if span.startswith("nemo_rl.") and all(_is_word(part) for part in span[8:].split(".")):
            return "fqn", None
        if "." in span:   # dotted: lower-case parts, then a part that begins with a capital
            *heads, last = span.split(".")
            if len(last) > 1 and last[0] in _UPPER and _is_word(last[1:]) and all(
                    head[:1] and head[0] in _LOWER_OR_UNDERSCORE and (len(head) == 1 or _is_word(head[1:])) for head in heads):
                return "dotted", None
        if first != "_" and not span.strip(_LOWER_NAME_CHARS):
            return "lower", None
        return None, None
    if first == "$":
        return _variable_kind(span, 2 if span.startswith("${") else 1)
    if first == "{":
        return _variable_kind(span, 1)
    return None, None


def _variable_kind(span: str, at: int) -> tuple[str | None, str | None]:
    """The variable alternative of _SPAN_KIND, its name beginning at offset `at` (after `$` and `{`): the
    name is the whole run of [A-Z0-9_] there (nothing the pattern allows after a name is in the run)."""
    rest = span[at:]
    name = rest[: len(rest) - len(rest.lstrip(_VARIABLE_CHARS))]
    if name and name[0] in _UPPER:
        parts = name.split("_")
        rest = rest[len(name):]
        if ((len(parts) > 1 and all(parts)) or (len(name) >= 4 and name.isalpha())) and (
                not rest or rest[0] in "=/:" or (rest[0] == "}" and (len(rest) == 1 or rest[1] in "=/:"))):
            return "variable", name
    return None, None


def _extra_flags(text: str):
    """(offset, value) of each match of _EXTRA_FLAG in `text`, in order."""
    at = text.find("--extra")
    while at >= 0:
        end = start = at + 8
        if text[at + 7: at + 8] in (" ", "="):
            while end < len(text) and (_word_char(text[end]) or text[end] == "-"):
                end += 1
        if end > start:
            yield at, text[start:end]
            at = text.find("--extra", end)
        else:
            at = text.find("--extra", at + 1)


def _has_extra_word(text: str) -> bool:
    """Whether _EXTRA_WORD (case-insensitive) matches in `text`."""
    from docgen.model.claims import says
    return says(text, _EXTRA_WORD, ("extra", "extras"))


def _extra_before(text: str) -> bool:
    """_EXTRA_BEFORE.search(text): "extra" or "extras", then only non-word characters to the end (the
    pattern's group only names some of them)."""
    end = len(text)
    while end and not _word_char(text[end - 1]):
        end -= 1
    return text.endswith("extra", 0, end) or text.endswith("extras", 0, end)


def _extra_after(text: str) -> bool:
    """_EXTRA_AFTER.match(text): at most two non-word characters, then "extra" or "extras" as a word end."""
    skip = 0
    while skip < 3 and skip < len(text) and not _word_char(text[skip]):
        skip += 1
    if skip > 2 or not text.startswith("extra", skip):
        return False
    end = skip + 5
    if text[end: end + 1] == "s":
        end += 1
    return end == len(text) or not _word_char(text[end])


def _extra_list(text: str) -> bool:
    """_EXTRA_LIST.search(text): "extra", then no dot up to a "(" at the end (or before a last line break)."""
    for paren in (len(text) - 1, len(text) - 2):
        if text.endswith("(" if paren == len(text) - 1 else "(\n"):
            at = text.rfind("extra", 0, paren)
            if at >= 0 and "." not in text[at + 5: paren]:
                return True
    return False


# the ASCII characters that are neither \w nor "-" (they end a run of _WORDS' characters)
_WORD_RUNS = str.maketrans(_NOT_WORD.replace("-", ""), " " * (len(_NOT_WORD) - 1))


def _words(text: str) -> list[str]:
    """_WORDS.findall(text). In ASCII text each run of [\\w-] gives one word at most: from its first letter
    to its last letter or digit after that."""
    if not text.isascii():
        return _WORDS.findall(text)
    found = []
    for run in text.translate(_WORD_RUNS).split():
        word = run.lstrip("0123456789_-").rstrip("_-")
        if word:
            found.append(word)
    return found


def _allowed(line: str) -> bool:
    """Whether _ALLOW matches in `line`: an allow marker with a reason."""
    at = line.find("<!--")
    while at >= 0:
        name = _skip_space(line, at + 4)
        if line.startswith("docgen:allow", name):
            reason = _skip_space(line, name + 12)
            if reason > name + 12 and reason < len(line):   # \s+ then \S (the run of space ends at it)
                end = line.find("-->", reason + 1)
                if end >= 0 and "\n" not in line[reason + 1: end]:
                    return True
        at = line.find("<!--", at + 1)
    return False


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _strip_comments(line: str) -> str:
    """_COMMENT.sub(" ", line)."""
    at = line.find("<!--")
    if at < 0:
        return line
    pieces, done = [], 0
    while at >= 0:
        end = line.find("-->", at + 4)
        if end < 0:
            break
        if "\n" in line[at + 4: end]:
            at = line.find("<!--", at + 1)
            continue
        pieces += (line[done:at], " ")
        done = end + 3
        at = line.find("<!--", done)
    pieces.append(line[done:])
    return "".join(pieces)


def _strip_values(line: str) -> str:
    """_VALUE.sub("\\x00", line): each inline value, markers included, becomes one NUL."""
    at = line.find("<!--")
    if at < 0:
        return line
    pieces, done = [], 0
    while at >= 0:
        end = _value_at(line, at)
        if end < 0:
            at = line.find("<!--", at + 1)
            continue
        pieces += (line[done:at], "\x00")
        done = end
        at = line.find("<!--", done)
    pieces.append(line[done:])
    return "".join(pieces)


def _value_at(line: str, at: int) -> int:
    """The end of the match of _VALUE at offset `at` of `line` (-1 when it does not match there), trying
    what the pattern tries in its order: the key (\\S+) as long as it can be, then shorter, and for each
    the first end marker after the opening one (the value, .*?, holds no line break)."""
    name = _skip_space(line, at + 4)
    if not line.startswith("docgen:value", name):
        return -1
    key = _skip_space(line, name + 12)
    if key == name + 12 or key == len(line):
        return -1
    key_end = key + len(line[key:].split(None, 1)[0])
    closes = []   # where the opening marker ends, for each length of the key, longest first
    after = _skip_space(line, key_end)
    if line.startswith("-->", after):
        closes.append(after + 3)
    end = line.rfind("-->", key + 1, key_end)
    while end >= 0:
        closes.append(end + 3)
        end = line.rfind("-->", key + 1, end + 2)
    for close in closes:
        end = line.find("<!--", close)
        while end >= 0 and line.find("\n", close, end) < 0:
            name = _skip_space(line, end + 4)
            if line.startswith("docgen:end-value", name) and line.startswith("-->", _skip_space(line, name + 16)):
                return _skip_space(line, name + 16) + 3
            end = line.find("<!--", end + 1)
    return -1
