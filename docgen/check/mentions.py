"""Mentions: every hand-written sentence of an owned page, scanned for the facts it names.

A sentence names a fact by its subject (an ARG name, an extra, a package, an actor class, a path), by the
fact's current value where that value is distinctive (a version, a base image), or by the few words its kind
declares for its subject ("uid", "runs as"; `docgen/fact.py`). Two things follow from a mention:

- **Compared.** Where the sentence also states a value of the fact's shape (a version, a user id, a state such
  as "not warmed"), the value is held to the fact. A stated value the fact does not have is a finding.
- **Reviewed.** The facts record keeps, for each sentence that names facts, the values those facts had when
  the sentence was last written or confirmed. When one changes, `check` fails at the sentence until it is
  edited or confirmed with `docgen review FILE:LINE`; `docgen write` never clears that.

Nothing here names a page, a sentence or one particular value: what names a fact comes from the fact base.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.check.lint import Finding
from docgen.fences import allowed_rules, span_texts
from docgen.check.prose import (ALLOWED, COMPARED, RENDERED, REVIEWED, UNOWNED, Claim, Coverage, _sort_lines,
                                claims_coverage)
from docgen.fact import KINDS, PARTS, TEXT, VERSION, Fact, shingles, stated_ids, version_allowed
from docgen.model.claims import build_claim_problems, only_in_problem, package_mentions, spoken_packages
from docgen.model.facts import fact_base
from docgen.names import COUNT, COUNT_NOUNS, SHARE, normalize, singular
from docgen.records import Memo
from docgen.render.values import known_value
from docgen.text import STATED_VERSION, clauses, sentences_with_lines, split_lines

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from docgen.blocks import Document
    from docgen.model import ImageModel
    from docgen.fact import FactBase

REVIEW, STATED, UNRECORDED = "review", "stated-value", "unrecorded-sentence"

_SM = re.compile(r"\bsm_?(\d)(\d+)\b", re.I)
_TOKEN = re.compile(r"(?<![\w-])--[a-z][\w-]*[a-z0-9]|[A-Za-z_][\w.+/:-]*[\w+]|[A-Za-z_]|/[\w./-]*\w|(?<![\w.])\d[\w.+:-]*\w")
# how many versions of a package a sentence says the lock holds
_MANY_VERSIONS = re.compile(r"\b(different|differing|conflicting|incompatible|several|multiple|same)\s+"
                            r"(?:[\w`.-]+\s+){0,2}?(?:versions?|releases?|pins?)\b")   # "the same `torch` release"
# what may stand beside a whole shell word in a line of code (`site/` is the folder `site`)
_BEFORE_WORD = ("", " ", "=", '"', "'", "(", "`", "|", "&", ";", "<", ">")
_AFTER_WORD = ("", " ", '"', "'", ")", "`", "|", "&", ";", "<", ">", "/")
# Words that deny what follows them ("not", "never", "doesn't"): the one list of both negation rules below
_DENIAL = r"\b(?:not|never)\b|n['\u2019]t\b"
# before a stated value, "no", "without" and "un-" deny it too
_NEGATION = re.compile(_DENIAL + r"|\b(?:no|without|un)\b", re.I)
# A state a sentence can state of a fact whose value is a state (an extra warmed or not, a group by default).
_STATES = {
    "extra": ("warmed", re.compile(r"\bwarm(?:ed|s|ing)?\b|\bin the (?:uv )?cache\b", re.I)),
    "group": ("default", re.compile(r"\bby default\b|\bdefault\b", re.I)),
}


class Mention(NamedTuple):
    path: str
    line: int
    text: str                      # the sentence, blanks collapsed
    facts: tuple[tuple[str, str, str], ...]   # (fact key, the value it is tied to, status); () names none
    findings: tuple[Finding, ...]
    digest: str                    # sentence_digest(text), made once: the record, the review and the coverage ask
    allowed: frozenset[str] = frozenset()     # the rules an allow marker on its line names
    compared: tuple[Claim, ...] = ()          # what it says of an actor's extras or a package's builds, judged
    named_at: tuple[tuple[str, int], ...] = ()   # (fact key, the line of the words that name it)

    def line_of(self, key: str) -> int:
        """Where the sentence names the fact of `key` (a record's key: `#part` ignored); its first line if not today."""
        base = key.partition("#")[0]
        return next((n for k, n in self.named_at if k == base), self.line)

    def reported_at(self, line: int) -> bool:
        """Whether a finding about this sentence may stand at `line`: its first line, or one that names a fact."""
        return line == self.line or any(n == line for _, n in self.named_at)


def sentence_digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


class _Index(NamedTuple):
    exact: dict[str, list[Fact]]         # a code-like name, case as written
    code: dict[str, list[Fact]]          # a name that counts only inside a code span
    folded: dict[str, list[Fact]]        # a word or phrase prose may write in any case (packages, aliases)
    phrases: "re.Pattern | None"          # all of `folded`, as one search
    words: dict[str, list[Fact]]         # a plain word that names a subject only beside its kind's words
    values: dict[str, list[Fact]]        # a distinctive current value
    code_values: dict[str, list[Fact]]   # any other current value of a setting: it names it only as code
    by_kind: dict[str, list[Fact]]
    counted: dict[str, list[Fact]]       # a word of a variable's name -> the variables holding a plain number
    any_kind_word: "re.Pattern"          # every kind's words, as one search (lower-cased text)
    word_kinds: dict[str, set[str]]      # a kind's word -> the kinds it names
    copied: dict[tuple[str, ...], list[Fact]]   # a run of words of a comment block -> the block
    globs: tuple[tuple[str, Fact], ...]          # a removed glob's last part (`python-*`): it names what it matches
    series: dict[str, list[Fact]]        # a release series of a setting's version ("28", "28.5" of 28.5.0), a whole number
    spelled: dict[str, "_Spelled | None"]        # `_spelled`'s answer for each token asked about so far


_INDEX = Memo()


# Words of variable names that say nothing of what the number counts (`NVTE_BUILD_MAX_JOBS`: "jobs" does).
_GENERIC_NAME_WORDS = frozenset("max min num per the build nemo nvte cuda version source image mode size dir path "
                                "default enabled enable mib gib kib kb mb gb bytes sec secs second seconds minute "
                                "minutes hour hours".split())
_WORD = re.compile(r"[a-z]+")


def _code_like(name: str) -> bool:
    return bool(re.search(r"[_./:\d-]|[a-z][A-Z]|^[A-Z][A-Z0-9_]{2,}$", name))


def _index(facts: "FactBase") -> _Index:
    exact: dict[str, list[Fact]] = {}
    code: dict[str, list[Fact]] = {}
    folded: dict[str, list[Fact]] = {}
    words: dict[str, list[Fact]] = {}
    values: dict[str, list[Fact]] = {}
    code_values: dict[str, list[Fact]] = {}
    index_series: dict[str, list[Fact]] = {}
    by_kind: dict[str, list[Fact]] = {}
    for f in facts.facts:
        by_kind.setdefault(f.kind, []).append(f)
        kind = KINDS[f.kind]
        for name in f.names:
            if name.startswith("`"):
                code.setdefault(name.strip("`"), []).append(f)
            elif _code_like(name) and len(name) > 2:
                exact.setdefault(name, []).append(f)
            elif name:
                words.setdefault(name.lower(), []).append(f)
        parts = f.subject.split(".") if f.kind == "actor" else []
        # an actor by any tail of its FQN, and by its module's path (`vllm.vllm_worker_async`: a tail of two
        # parts or more, or one part with a `_`)
        module = [".".join(parts[i:-1]) for i in range(len(parts) - 2)] + [p for p in parts[-2:-1] if "_" in p]
        for tail in [*(".".join(parts[i:]) for i in range(1, len(parts))), *module]:
            if f not in exact.get(tail, ()):
                exact.setdefault(tail, []).append(f)
        for name in f.prose:
            if len(name) > 1:   # "" : a name prose does not say
                folded.setdefault(name.lower(), []).append(f)
        for v in f.value.split(" | ") if f.kind in _NAMED_BY_VALUE else ():
            for series in _series_of(v, f.kind):
                index_series.setdefault(series, []).append(f)
            if _distinctive(v):
                values.setdefault(v, []).append(f)
            elif len(v) >= 2 and " " not in v:   # `managed`, `--frozen`, `64`: a setting's value shown as code
                code_values.setdefault(v, []).append(f)
            # `mode=max` of "type=registry,ref=,mode=max": each `key=value` of a list of them, shown as code
            for part in v.split(",") if "," in v and " " not in v else ():
                if _KEY_VALUE.fullmatch(part):
                    code_values.setdefault(part, []).append(f)
    counted: dict[str, list[Fact]] = {}
    for f in facts.facts:
        if f.kind in ("arg", "env", "run-var", "quoted") and f.value.isdigit():
            head = singular(re.split(r"[_:/.\s-]+", f.subject.lower())[-1])   # what the number counts
            if len(head) >= 3 and head not in _GENERIC_NAME_WORDS:
                counted.setdefault(head, []).append(f)
    word_kinds: dict[str, set[str]] = {}
    for kind in KINDS.values():
        for w in kind.words:
            word_kinds.setdefault(w, set()).add(kind.id)
    every_word = "|".join(re.escape(w) for w in sorted(word_kinds, key=len, reverse=True))
    any_kind_word = re.compile(rf"(?<![\w-])(?:{every_word})(?![\w-])")   # on lower-cased text
    phrases = None
    if folded:
        alternatives = "|".join(re.escape(p) for p in sorted(folded, key=len, reverse=True))
        phrases = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")   # on lower-cased text
    copied: dict[tuple[str, ...], list[Fact]] = {}
    for f in by_kind.get("comment", ()):
        for run in shingles(f.value):
            copied.setdefault(run, []).append(f)
    # a glob an `rm` removes names each path it matches (`python-<ClassName>` of `/usr/local/bin/python-*`), when it
    # has three letters of its own
    globs = tuple((last, f) for f in by_kind.get("removed", ()) if _GLOB.search(last := f.subject.rstrip("/").rpartition("/")[2])
                  and len(_GLOB.sub("", last)) >= 3)
    return _Index(exact, code, folded, phrases, words, values, code_values, by_kind, counted, any_kind_word, word_kinds,
                  copied, globs, index_series, {})


def _series_of(value: str, kind: str) -> "Iterable[str]":
    """The release series a setting's value is in: each leading part of each of its versions ("28", "28.5" of
    28.5.0), and a whole number itself (`WANT_SERVER_MAJOR=28`)."""
    if value.isdigit():
        yield value
    for version in _versions_in(value, kind):
        parts = re.split(r"[.+]", version)
        yield from (".".join(parts[:n]) for n in range(1, len(parts)) if parts[n - 1].isdigit())


def _series_named(token: str, floor: bool, index: _Index) -> "Iterable[Fact]":
    """The settings a version written shorter than theirs names: a release series ("28.5", "v0.25") or a floor
    ("28+"). A whole number names a release only with its `+`: "28 pages" is no engine."""
    number = token.removeprefix("v")
    return index.series.get(number, ()) if "." in number or (floor and number.isdigit()) else ()


# The facts one token of a sentence may name, by how it names them: as written (also without a sentence's
# closing dot), only as a code span's whole text, as a plain word beside its kind's words, by its value, by a
# value only code shows.
_Spelled = tuple[tuple[Fact, ...], tuple[Fact, ...], tuple[Fact, ...], tuple[Fact, ...], tuple[Fact, ...]]


def _spelled(token: str, index: _Index) -> "_Spelled | None":
    """What `token` may name (`_Spelled`), None when it names nothing. Kept in the index per distinct token:
    the pages repeat their words, and most of them name nothing."""
    if token not in index.spelled:
        folder = token.rstrip("/") if len(token) > 1 else token   # `site/`, `/opt/ray_venvs/`: the path itself
        exact = {f.key: f for name in dict.fromkeys((token, token.rstrip("."), folder)) for f in index.exact.get(name, ())}
        last = folder.rpartition("/")[2]
        exact.update((f.key, f) for glob, f in index.globs if fnmatch.fnmatchcase(last, glob))
        found = (tuple(exact.values()), tuple(index.code.get(token, ())),
                 tuple(index.words.get(token.lower(), ())), tuple(index.values.get(folder, ())),
                 tuple(index.code_values.get(folder, ())))
        index.spelled[token] = found if any(found) else None
    return index.spelled[token]


# kinds whose names are everyday file names (a COPY's `pyproject.toml`, a script's path): a sentence names one of
# their facts only when it also holds the kind's words ("the `COPY`s already placed `3rdparty/`", "exits 2")
_ONLY_WITH_WORDS = frozenset({"copy", "exit"})
# kinds a line of code names by a plain name as a whole shell word (a bake target after `bake`); a package's
# or a stage's plain name there is the command (`docker`, `uv`)
_SHELL_WORD_KINDS = frozenset({"target"})
_GLOB = re.compile(r"[*?\[]")
# `docker buildx bake` run with no target (options only, their values joined by `=`), not said of a target's kind
_BARE_BAKE = re.compile(r"\bdocker\s+(?:buildx\s+)?bake((?:\s+-[\w-]+(?:=\S+)?)*)(?=\s*(?:$|[`;&|)#]))"
                        r"(?!`?(?:'s)?\s+(?:targets?|files?|groups?)\b)")
# words of a sentence that say a command runs with no target ("a bare `docker buildx bake`")
_NO_TARGET = re.compile(r"\b(?:bare|plain|alone|by itself|no target|without a target)\b")
_KEY_VALUE = re.compile(r"[a-z][\w-]*=[\w.-]+")
# The kinds a distinctive value names wherever it is written: the image's own settings. A package's version is
# not one of them: among hundreds of packages, "0.7.2" is some package's version by chance.
_NAMED_BY_VALUE = frozenset({"arg", "env", "stage", "run-var", "quoted", "cuda-arch", "user"})


def _distinctive(value: str) -> bool:
    """A value that names its fact wherever it is written: it has digits and dots, or it is a reference
    (an image, a URL, a path below a top directory), and it is not a small number or a common word."""
    return len(value) >= 4 and " " not in value and bool(re.search(r"\d\.\d|[:@]|\w/", value))


def _versions_in(value: str, kind: str = "") -> set[str]:
    """The versions a value holds: dotted numbers anywhere in it ("cuda-dl-base:26.07-cuda13.3" holds 26.07
    and 13.3), and in a list of bare CUDA architectures ("90;100") each one as a compute capability."""
    out = set(re.findall(r"(?<![\d.])\d+(?:\.\d+)+(?:\.?(?:post|dev|rc|a|b)\d+)*(?:\+[\w.]*\w)?", value))
    if kind == "cuda-arch" and re.fullmatch(r"[\d;, ]+", value.strip()):
        out |= {f"{n[:-1]}.{n[-1]}" for n in re.split(r"[;, ]+", value.strip()) if len(n) >= 2}
    return out


def _version_agrees(stated: str, fact: Fact) -> bool:
    stated = stated.lstrip("v")
    if fact.kind in ("python", "uv"):   # a range: "Python 3.13" agrees when a release of it is in range
        return version_allowed(stated, fact.value) is not False
    for v in fact.value.split(" | "):
        for known in _versions_in(v, fact.kind) | {v.strip()}:
            if known == stated or known.startswith(stated + ".") or known.startswith(stated + "+"):
                return True
    return False


def scan(model: "ImageModel", docs: "Iterable[Document]", extra_texts: "Iterable[CommentText]" = ()
         ) -> list[Mention]:
    """Every sentence of the pages' hand-written text (and of `extra_texts`, the Dockerfile comments the pages
    copy) and every line of their hand-written code that names a fact, with the facts it names and what it
    states."""
    facts = fact_base(model)
    index = _INDEX.answer(facts, "index", lambda: _index(facts))
    keyed = facts.by_key()
    out: list[Mention] = []
    for doc in docs:
        prose, code, allowed = _sort_lines(doc)
        # a command or a file shown by hand quotes values as a sentence does: each line is tied to the facts it
        # names, but what it states is the code's own grammar, not compared
        for number, shown_code in enumerate(code, 1):
            if shown_code.strip():
                out.append(_mention(doc.path, number, shown_code, index, allowed_rules(doc.lines[number - 1]), [],
                                    (number,) * len(shown_code.split()), code=True))
        values_by_line: dict[int, list[str]] = {}
        for v in doc.values:
            values_by_line.setdefault(v.line, []).append(v.key)
        # a line allowed for the prose lint is still a sentence here; which rules its marker names decides
        merged = [p or a for p, a in zip(prose, allowed)]
        for line, sentence, word_lines in sentences_with_lines(merged):
            # the values rendered on any line of the sentence
            shown = [known_value(k, model) for n in dict.fromkeys(word_lines) for k in values_by_line.get(n, ())]
            out.append(_mention(doc.path, line, sentence, index, allowed_rules(doc.lines[line - 1]),
                                [s for s in shown if s], word_lines, model))
    for comment in extra_texts:
        about = tuple(keyed[k] for k in comment.about if k in keyed)
        for line, sentence, word_lines in sentences_with_lines(split_lines(comment.text)):
            out.append(_mention(comment.path, comment.first + line - 1, sentence, index, frozenset(), [],
                                tuple(comment.first + n - 1 for n in word_lines), about=about))
    return out


def _mention(path: str, line: int, sentence: str, index: _Index, allow: frozenset[str],
             shown: list[str], word_lines: tuple[int, ...] = (), model: "ImageModel | None" = None,
             code: bool = False, about: tuple[Fact, ...] = ()) -> Mention:
    """What one sentence names and states. `code`: a line of hand-written code, which names facts only by their
    code-like names (`UV_VERSION`, a path) and distinctive values; `about`: the facts a comment is attached to,
    which each of its sentences names."""
    text = " ".join(sentence.replace("\x00", "…").split())
    allowed = STATED in allow   # stated values on this line are a reviewer's call, not a finding

    def line_of(at: int) -> int:
        """The line of the word at offset `at` of the sentence: a stated value is reported where it stands."""
        word = len(text[:at].split()) - (0 if at == 0 or text[at - 1].isspace() else 1)
        return word_lines[word] if 0 <= word < len(word_lines) else line

    named: dict[str, tuple[Fact, int]] = {f.key: (f, 0) for f in about}   # fact key -> (fact, where it is named)
    spans = [] if code else [(text.index(inside, start), inside) for start, _end, inside in span_texts(text)]
    low = text.lower()
    kinds_here = set() if code else _kinds_named(low, index)
    by_value: set[str] = set()
    # a whole code span, then every word: a name that counts only as code must be a span's whole text
    tokens = [(at, span, True) for at, span in spans]
    tokens += [(m.start(), m.group(0), False) for m in _TOKEN.finditer(text)]
    for at, raw, in_span in tokens:
        token = raw.strip("`'\",;()")
        for f in _series_named(token, text[at + len(raw):at + len(raw) + 1] == "+", index) if not code else ():
            # a dotted series ("3.13") is a stated version, compared below; a whole number's floor ("28+") is
            # compared with nothing, so a new version of the setting asks its review
            if "." not in token:
                by_value.add(f.key)
            named.setdefault(f.key, (f, at))
        spelled = index.spelled[token] if token in index.spelled else _spelled(token, index)
        if spelled is None:
            continue
        exact, as_code, words, values, code_values = spelled
        for f in exact:
            named.setdefault(f.key, (f, at))
        for f in as_code if in_span else ():   # in a code line, every word is no span: `docker` the command
            named.setdefault(f.key, (f, at))
        # a plain word ("base", "docs") names a subject only right beside its kind's words ("the docs group",
        # "extra `vllm`"), not anywhere in a sentence that also uses the kind's word (nor in one without them)
        for f in words if kinds_here else ():
            if f.kind in kinds_here and _beside_kind_word(text, at, at + len(token), f.kind, index):
                named.setdefault(f.key, (f, at))
        # a code line's word shows a setting's plain value only as a whole shell word (`.[site]` is no `site`),
        # its comment included: a terse `# mode managed` is how code says it
        shell_word = in_span or (code and text[at - 1:at] in _BEFORE_WORD
                                 and text[at + len(raw):at + len(raw) + 1] in _AFTER_WORD)
        for f in (*values, *(code_values if shell_word else ())):
            by_value.add(f.key)   # named by its value: the sentence states that value
            named.setdefault(f.key, (f, at))
        for f in words if code and shell_word else ():   # `docker buildx bake production`: the target
            if f.kind in _SHELL_WORD_KINDS:
                named.setdefault(f.key, (f, at))
    for m in _BARE_BAKE.finditer(text):   # what bake builds with no target named: its `default` group
        if not (code or m.group(1) or _NO_TARGET.search(low)):   # prose may name the command as a noun
            continue
        for f in index.by_kind.get("target", ()):
            if f.subject.rpartition(":")[2] == "default":
                named.setdefault(f.key, (f, m.start()))
    for key in [k for k, (f, _) in named.items() if f.kind in _ONLY_WITH_WORDS and f.kind not in kinds_here
                or f.kind == "option" and not re.search(rf"(?<![\w-]){re.escape(f.value)}(?![\w-])", low)]:
        del named[key]   # an option names its fact beside the program it is passed to (`mkdocs ... --strict`)
    if code:
        return Mention(path, line, text, _tied(text, named, by_value, set(), {}, allow, shown), (),
                       sentence_digest(text), allow, (), tuple((k, line) for k in named))
    for m in index.phrases.finditer(low) if index.phrases else ():
        for f in index.folded.get(m.group(0).lower(), ()):
            named.setdefault(f.key, (f, m.start()))
    if index.copied:   # a sentence repeating a comment block's words: it states what the block says
        for f in {f.key: f for run in shingles(text) for f in index.copied.get(run, ())
                  if not f.origin.startswith(path + ":")}.values():   # not a comment's own file
            by_value.add(f.key)
            named.setdefault(f.key, (f, 0))
    by_kind_words: set[str] = set()
    for kind in kinds_here & {"user", "cuda-arch", "conflicts"}:   # kinds with few subjects: the words name them
        for f in index.by_kind.get(kind, ()):
            by_kind_words.add(f.key)
            named.setdefault(f.key, (f, low.find(next(w for w in KINDS[kind].words if w in low) if any(
                w in low for w in KINDS[kind].words) else "")))
    # the one grammar of counts (docgen/names.py); a share of a set ("most of the actors") states no number, but
    # what it says holds of the set's size: it is tied to the count's value, as the words of a small kind are
    for m, share in [*((m, False) for m in COUNT.finditer(low)), *((m, True) for m in SHARE.finditer(low))]:
        for key in COUNT_NOUNS.get(singular(m.group(3)), ()):
            for f in index.by_kind.get("count", ()):
                if f.subject == key:
                    named.setdefault(f.key, (f, m.start()))
                    if share:
                        by_kind_words.add(f.key)
    findings: list[Finding] = []
    compared: list[Claim] = []
    if model is not None and _CLAIM_WORDS.search(low):
        _roles(path, line, text, named, model, allowed, findings, compared)
    if not named:   # kept all the same: the record may know this sentence by facts that are gone
        return Mention(path, line, text, (), tuple(findings), sentence_digest(text), allow, tuple(compared))
    statuses: dict[str, str] = {}
    # stated versions, each held to the nearest named fact that has versions
    versioned = [(f, at) for f, at in named.values() if KINDS[f.kind].shape == VERSION or _versions_in(f.value, f.kind)]
    versioned = [(f, at) for f, at in versioned if f.kind != "count"]
    stated_versions = [(m.start(), m.group(1)) for m in STATED_VERSION.finditer(text)]
    stated_versions += [(m.start(), f"{m.group(1)}.{m.group(2)}") for m in _SM.finditer(text)]
    shown_versions = {v for s in shown for v in _versions_in(s)}
    for at, version in stated_versions:
        if version in shown_versions:
            continue
        # a version speaks of a fact named just before it ("vLLM 0.9.1", "`UV_VERSION` is 0.6.0", "the base
        # image is cuda-dl-base 25.01") or right after it ("0.9.1 of vLLM"); further off, it is another thing's
        near = [(f, p) for f, p in versioned if p != at and (
            (p < at and _words_between(text, p, at) <= 5) or (p > at and _words_between(text, at, p) <= 2))]
        if not near:
            continue
        fact, _ = min(near, key=lambda fa: abs(fa[1] - at))
        # the first fact the sentence names that has this version (the nearest, or another): asked in order, so
        # a range is read with `packaging` only when no named fact before it agrees
        agrees = next((f for f, _ in versioned if _version_agrees(version, f)), None)
        if agrees is not None:
            statuses.setdefault(agrees.key, COMPARED)
            continue
        if not allowed:
            findings.append(Finding(path, line_of(at), STATED, f"the sentence states {version} for {_name(fact)}, but "
                                    f"{_name(fact)} is {fact.value} ({fact.origin}); render the value or correct "
                                    "the sentence"))
        statuses[fact.key] = "false"
    # stated absolute paths, each held to a location the sentence names right beside it ("the uv cache at
    # `/opt/uv_cache`"): it agrees when it is that place or inside it; a path that is another fact's is that fact's
    places = [(f, p) for f, p in named.values() if f.kind == "location"]
    for m in _ABSOLUTE_PATH.finditer(text) if places and not _OVERRIDE.search(low) else ():
        stated = m.group(0).rstrip("/.")
        near = [(f, p) for f, p in places if (p < m.start() and _words_between(text, p, m.start()) <= 5)
                or (p > m.start() and _words_between(text, m.start(), p) <= 2)]
        if not near or stated in index.exact or stated in index.values:
            continue
        fact, _ = min(near, key=lambda fa: abs(fa[1] - m.start()))
        if any(stated == f.value or stated.startswith(f.value.rstrip("/") + "/") for f, _ in near):
            statuses.setdefault(fact.key, COMPARED)
        elif not allowed:
            findings.append(Finding(path, line_of(m.start()), STATED, f"the sentence states {stated} for the "
                                    f"{fact.subject}, but it is {fact.value}; render the value (paths.* values) or "
                                    "correct the sentence"))
            statuses[fact.key] = "false"
    # a plain number beside a word of a variable's name ("8 parallel jobs": NVTE_BUILD_MAX_JOBS) names that
    # variable, whatever number it is, and is held to it
    for m in re.finditer(r"(?<![\w.$-])([1-9]\d*|0)(?![\w.%-])", low):   # not a mode (022)
        around = _WORD.findall(low[m.end(): m.end() + 32])[:3] + _WORD.findall(low[max(0, m.start() - 16): m.start()])[-1:]
        held = {f.key: f for w in around for f in index.counted.get(singular(w), ())}
        for fact in held.values():
            named.setdefault(fact.key, (fact, m.start()))
        agreeing = [f for f in held.values() if m.group(1) == f.value or m.group(1) in shown]
        for fact in agreeing:
            statuses.setdefault(fact.key, COMPARED)
        if held and not agreeing and not allowed:
            fact = next(iter(held.values()))
            findings.append(Finding(path, line_of(m.start()), STATED, f"the sentence states {m.group(1)} beside a word of "
                                    f"{' or '.join(_name(f) for f in held.values())}, but "
                                    f"{', '.join(f'{_name(f)} is {f.value} ({f.origin})' for f in held.values())}; "
                                    "render the value or correct the sentence"))
            for f in held.values():
                statuses[f.key] = "false"
    # stated user ids
    users = [f for f, _ in named.values() if f.kind == "user"]
    # "root" alone names the kind ("as root" on a host), a stated id is held to the image's user only where the
    # sentence speaks of a user
    if users and re.search(r"\b(?:user|uid|gid|runs as|run as)\b", low):
        for at, written, _, _ in stated_ids(low):
            if _NEGATION.search(low[max(0, at - 16): at]):
                continue   # "never as root", "not uid 0": denied, it states no user
            said = "0" if written == "root" else written
            if any(said in f.value.split(":") for f in users):
                for f in users:
                    statuses.setdefault(f.key, COMPARED)
            elif not allowed and not any(said in s.split(":") or said == s for s in shown):
                target = next((f for f in users if f.subject == ("build" if "build" in low else "runtime")), users[0])
                findings.append(Finding(path, line_of(at), STATED, f"the sentence states user {written}, but the "
                                        f"{target.subject} user is {target.value} (uid:gid, {target.origin}); render "
                                        "it (runtime.uid, build.uid) or correct the sentence"))
                statuses[target.key] = "false"
    # "X is `Y`": a code span stated as the value of a named fact whose value is one word (a stage, a mode)
    for fact, at in list(named.values()):
        if KINDS[fact.kind].shape != TEXT or " " in fact.value or not fact.value:
            continue
        after = _IS_SPAN.match(text, _end_of_name(text, at))
        if after is None:
            continue
        said = after.group(1)
        if said in fact.value.split(" | ") or said in index.exact or said in index.code or any(said == s for s in shown):
            statuses.setdefault(fact.key, COMPARED)   # the value, or another fact's name ("... is `builder`")
        elif not allowed:
            findings.append(Finding(path, line_of(after.start(1)), STATED, f"the sentence says {_name(fact)} is `{said}`, but it is "
                                    f"`{fact.value}` ({fact.origin})"))
            statuses[fact.key] = "false"
    # `X=Y` in a code span, said of what the image does ("the syncs use `UV_LINK_MODE=symlink`"): held to every
    # value an input gives X (a bake target's args too); an override the reader may make ("set", "for example",
    # "if") states nothing of the image
    for at, inside in spans if not _OVERRIDE.search(low) else ():
        assigned = _ASSIGNED.fullmatch(inside)
        if assigned is None:
            continue
        variables = [v for v in index.exact.get(assigned.group(1), ()) if v.kind in _VARIABLES]
        if any(assigned.group(2) in v.value.split(" | ") for v in variables):
            for v in variables:
                statuses.setdefault(v.key, COMPARED)
        elif variables and not allowed:
            findings.append(Finding(path, line_of(at), STATED, f"the sentence states `{inside}`, but "
                                    + ", ".join(f"{_name(v)} is {v.value!r} ({v.origin})" for v in variables)
                                    + "; render the value or correct the sentence"))
            for v in variables:
                statuses[v.key] = "false"
    # "X is unset / empty": held to a variable's value
    for fact, at in list(named.values()):
        if fact.kind not in ("arg", "env", "run-var") or REVIEW in allow:
            continue
        unset = _UNSET.match(text, _end_of_name(text, at))
        if unset:
            # the same variable as another file sets it (a bake target's args) may be the one meant
            same = [f for f, _ in named.values() if f.subject.rpartition(":")[2] == fact.subject]
            if any(not f.value for f in same):
                statuses.setdefault(fact.key, COMPARED)
            elif not allowed:
                findings.append(Finding(path, line_of(unset.end() - 1), STATED, f"the sentence says {_name(fact)} is unset or empty, "
                                        f"but the image sets it to {fact.value!r} ({fact.origin})"))
                statuses[fact.key] = "false"
    # stated states (warmed / not warmed, default / not default)
    for kind, (state, pattern) in _STATES.items():
        subjects = [(f, at) for f, at in named.values() if f.kind == kind]
        for m in pattern.finditer(text):
            if not subjects:
                break
            fact, _ = min(subjects, key=lambda fa: abs(fa[1] - m.start()))
            negated = bool(_NEGATION.search(text[max(0, m.start() - 16): m.start()]))
            says = f"not {state}" if negated else state
            if says == fact.value:
                statuses.setdefault(fact.key, COMPARED)
            elif not allowed:
                findings.append(Finding(path, line_of(m.start()), STATED, f"the sentence says {_name(fact)} is {says}, but it is "
                                        f"{fact.value} ({fact.origin})"))
                statuses[fact.key] = "false"
    # "vLLM and SGLang pin different versions of the same packages (transformers, flashinfer)": the extras the
    # sentence names (else all of NeMo-RL's) hold each package named after the words (else before them) at more
    # than one version; "the same version" states one (not in a case the sentence supposes: "when `automodel`
    # and `mcore` pin different versions")
    claims = list(_MANY_VERSIONS.finditer(low)) if not _OVERRIDE.search(low) else []
    words_here = set(_VALUE_WORD.findall(low)) if claims else set()
    in_lock = {f.subject: dict(p.split("=", 1) for p in f.value.split("; "))
               for f in index.by_kind.get("lock-versions", ())} if claims else {}
    for m in claims:
        packages = [(f, at) for f, at in named.values() if f.kind == "package"]
        packages = [fa for fa in packages if fa[1] > m.start()] or [fa for fa in packages if fa[1] < m.start()]
        many = (m.group(1) != "same") != bool(_NEGATION.search(low[max(0, m.start() - 16):m.start()]))
        for fact, _ in packages:
            by_extra = in_lock.get(fact.subject, {})
            of_named = [v for k, v in by_extra.items() if k in words_here]
            versions = sorted(set(of_named if len(of_named) > 1 else by_extra.values() or fact.value.split(" / ")))
            if (len(versions) > 1) == many:
                statuses.setdefault(fact.key, COMPARED)
            elif not allowed:
                findings.append(Finding(path, line_of(m.start()), STATED, f"the sentence says {_name(fact)} comes in "
                                        f"{'different versions' if many else 'one version'}, but the lock has "
                                        f"{' and '.join(versions)} ({fact.origin})"))
                statuses[fact.key] = "false"
    return Mention(path, line, text, _tied(text, named, by_value, by_kind_words, statuses, allow, shown),
                   tuple(findings), sentence_digest(text), allow, tuple(compared),
                   tuple((k, line_of(at)) for k, (_, at) in named.items()))


def _tied(text: str, named: dict[str, tuple[Fact, int]], by_value: set[str], by_kind_words: set[str],
          statuses: dict[str, str], allow: frozenset[str], shown: list[str]) -> tuple[tuple[str, str, str], ...]:
    """Each fact a sentence names, tied to the value (or the part of it) it states, or only to its being there:
    (key, value, status) rows of its mention."""
    allowed = STATED in allow
    tied = []
    sentence_words = {w.lower() for w in _VALUE_WORD.findall(text)}
    for key, (fact, _) in sorted(named.items()):
        status = statuses.get(key)
        if REVIEW in allow or (allowed and status == "false"):
            status = ALLOWED
        elif status is None and any(s and s in fact.value.split(" | ") for s in shown):
            status = RENDERED
        if status == RENDERED or (status == COMPARED and key not in by_value):
            # its value re-renders, or is judged on every run where the sentence names it: a new value asks no
            # review, only the thing going away does (one named by its value alone is named no more when it moves)
            tied.append((f"{key}#named", "yes", status))
            continue
        shape = KINDS[fact.kind].shape
        versioned_fact = shape == VERSION or (shape != PARTS and bool(_versions_in(fact.value, fact.kind)))
        # a version the sentence states beside the fact was compared above (the fact has a status); any other
        # version in the sentence is another thing's
        if status is None and key not in by_kind_words and key not in by_value and fact.kind not in _DEFINITIONS and (
                versioned_fact or not _states_part_of(fact, sentence_words)):
            # named, but nothing of its value stated ("uv syncs the extras", "`NEMO_RL_REF` names the ref"): a
            # new value cannot make the sentence false, only the thing going away can
            tied.append((f"{key}#named", "yes", REVIEWED))
            continue
        parts = value_parts(fact.value)
        if status is None and len(parts) > 1 and key not in by_kind_words and key not in by_value:
            # a value of several parts (an actor's extras; its venv): the sentence is tied to the parts it states
            stated = [aspect for aspect, part in parts.items() if _states_part_of(fact._replace(value=part),
                                                                               sentence_words)]
            tied += [(f"{key}#{aspect}", parts[aspect], REVIEWED) for aspect in stated]
            continue
        tied.append((key, fact.value, status or REVIEWED))
    return tuple(tied)


# ------------------------------------------------------------------- an actor's extras, a package's builds
# A sentence that names an actor beside an extra, a venv or the system interpreter, or a package beside "built
# from source", "shared", "built once", "exactly one" or "the only", states a value the model holds: the
# actor's extras, the package's source builds. It is held to the model (STATED) and counted as compared.

_VENV_WORDS = re.compile(r"\b(?:extras?|venvs?|virtual environments?)\b")
_SYSTEM_WORDS = re.compile(r"\bsystem (?:interpreter|python)\b")
_FROM_SOURCE = re.compile(r"\b(?:built|builds?|compiled|compiles?)\b[^.,;]{0,40}?\bfrom source\b|\bsource[- ]built\b|"
                          r"\bsource builds?\b")
_SHARED = re.compile(r"\bshared\b|\bbuilt once\b")
_UNIQUE = re.compile(r"\bexactly one\b|\bthe only\b|\bthe single\b")
# "stops being shared", "is not built from source": a clause that denies the fact claims nothing to check
_NEGATED = re.compile(_DENIAL + r"|\b(?:no longer|stops? being|unless|when|if)\b")
# the words that make a sentence such a claim: one search of a sentence before the patterns above
_CLAIM_WORDS = re.compile(r"extras?\b|venvs?\b|virtual environments?|system (?:interpreter|python)|from source|"
                          r"source[- ]built|source builds?|shared|built once|exactly one|the only|the single")
_EXTRA_AFTER = re.compile(r"\s+(?:extras?|venvs?)\b")
_ONLY_WORD = re.compile(r"\bonly\b")
# "only" and what may stand between it and a list of extras: "only for the", "only by", "only"
_ONLY = re.compile(r"\bonly\s+(?:(?:for|in|by|with|under|inside)\s+)?(?:the\s+)?", re.I)
_LIST_WORD = re.compile(r"\s*(`[^`\s]+`|[\w-]+|,)")
_LIST_GLUE = frozenset({",", "and", "or", "the", "extra", "extras"})
_CLAUSE_BREAK = re.compile(r"[;:()]|,\s*(?:but|not|unlike|while|whereas)\b|\b(?:but|while|whereas)\b")
_NAME = re.compile(r"[\w.]*\w")
_URL = re.compile(r"\S+://\S+|\[[^\]]*\]\([^)]*\)")   # a link's target (a Markdown link keeps its text)


def _roles(path: str, line: int, text: str, named: dict[str, tuple[Fact, int]], model: "ImageModel",
           allowed: bool, findings: list[Finding], compared: list[Claim]) -> None:
    """Each actor the sentence names (the facts named above), judged against the nearest extra (a name in a code
    span, or followed by "extra" or "venv") or "system interpreter" it names; each package a clause names
    (package_words) beside a build claim, judged by model.claims.build_claim_problems."""
    low = text.lower()

    def judged(kind: str, claim: str, problems: list[str]) -> None:
        compared.append(Claim(path, line, kind, claim, ALLOWED if allowed else COMPARED))
        findings.extend(Finding(path, line, STATED, p) for p in problems if not allowed)

    if _VENV_WORDS.search(low) or _SYSTEM_WORDS.search(low):
        extras = set(model.extras_defined)
        said = [(m.start(), "extra", m[0]) for m in _TOKEN.finditer(text) if m[0] in extras and (
            text[m.start() - 1: m.start()] == "`" == text[m.end(): m.end() + 1] or _EXTRA_AFTER.match(text, m.end()))]
        said += [(m.start(), "system", m[0]) for m in _SYSTEM_WORDS.finditer(low)]
        by_place: dict[int, list[str]] = {}
        for fact, at in named.values() if said else ():
            if fact.kind == "actor":
                by_place.setdefault(at, []).append(fact.subject)
        for at, fqns in sorted(by_place.items()):
            actors = [a for a in model.actors if a.fqn in fqns]
            name = m[0] if (m := _NAME.match(text, at)) else ""
            # the nearest extra said in the actor's own part of the sentence: a semicolon starts another ("the
            # policy trains in the `automodel` venv; ... streamed to the vLLM workers")
            near = [s for s in said if text.count(";", 0, s[0]) == text.count(";", 0, at)]
            if not near:
                continue
            _, kind, what = min(near, key=lambda s: abs(s[0] - at))
            if kind == "extra":
                ok = any(what in a.extras for a in actors)
                truth = "; ".join(f"{a.class_name}: " + (", ".join(a.extras) or "the system interpreter") for a in actors)
                claim = f"{name} runs with extra {what!r}"
            else:
                ok = any(a.is_system for a in actors)
                truth = "; ".join(f"{a.class_name}: extras {', '.join(a.extras) or '(none)'}" for a in actors)
                claim = f"{name} runs on the {what}"
            judged("actor", claim, [] if ok else [f"the sentence says {claim}, but the model gives {truth}; render it "
                                                  "from the model or fix the sentence"])
    for clause in clauses(_URL.sub(lambda m: m[0].split("](")[0] if "](" in m[0] else " ", text)):
        low = clause.lower()
        if not (_FROM_SOURCE.search(low) or _SHARED.search(low) or _UNIQUE.search(low)) or _NEGATED.search(low):
            continue
        from_source = bool(_FROM_SOURCE.search(low))
        for package in sorted(package_mentions(clause, spoken_packages(model))):
            problems = build_claim_problems(model, package, from_source=from_source, once="built once" in low,
                                            shared=bool(_SHARED.search(low)) and not from_source or "built once" in low,
                                            unique=bool(_UNIQUE.search(low)))
            if problems:
                judged("package", f"{package}: {' '.join(clause.split())[:80]}",
                       [f"the sentence about {package} is false: {p}; render it from the model or fix the sentence"
                        for p in problems if p])
    # "DeepEP is built only for the `mcore` extra", "only the `vllm` and `sglang` extras install it": the extras
    # listed right after "only" are all the extras whose install sets hold each package the clause names
    defined = {normalize(e): e for e in model.extras_defined}
    for m in _ONLY.finditer(text) if _ONLY_WORD.search(text.lower()) else ():
        listed, end = [], m.end()
        for word in _LIST_WORD.finditer(text, m.end()):
            if word.start() != end:
                break
            bare = word[1].strip("`").lower()
            if normalize(bare) in defined:
                listed.append(defined[normalize(bare)])
            elif bare not in _LIST_GLUE:
                break
            end = word.end()
        start = max((c.end() for c in _CLAUSE_BREAK.finditer(text, 0, m.start())), default=0)
        stop = next((c.start() for c in _CLAUSE_BREAK.finditer(text, end)), len(text))
        rest = text[start:m.start()] + " " + text[end:stop]
        if not listed or _NEGATED.search(rest.lower() + " " + text[max(0, m.start() - 12):m.start()].lower()):
            continue
        for package in sorted(package_mentions(rest, spoken_packages(model))):
            problem = only_in_problem(model, package, listed)
            judged("package", f"{package} only with {', '.join(listed)}",
                   [f"the sentence says {package} comes only with {', '.join(listed)}, but {problem}; render it "
                    "from the model or fix the sentence"] if problem else [])


def value_parts(value: str) -> dict[str, str]:
    """A value of several parts ("extras vllm; venv /opt/...") by each part's first word; one part: {}-like."""
    parts = [p.strip() for p in value.split("; ") if p.strip()]
    return {p.split()[0]: p for p in parts} if len(parts) > 1 else {"": value}


_ABSOLUTE_PATH = re.compile(r"(?<![\w.~$:/-])/[\w.@+-]+(?:/[\w.@+*-]*)*")   # not a URL's, not a relative one's
_ASSIGNED = re.compile(r"([A-Z][A-Z0-9_]*)=(\S*)")
_VARIABLES = frozenset({"arg", "env", "run-var", "quoted"})
# words that make a stated `X=Y` an override or an example, not what the image does
_OVERRIDE = re.compile(r"\b(?:set|sets|setting|pass|passes|passing|overrides?|overriding|points?|pointing|instead|"
                       r"if|when|unless|for example|e\.g\.|such as|try)\b")
_IS_SPAN = re.compile(r"`?\s*(?:is|=|:|defaults to|is set to)\s+`([^`\s]+)`", re.I)
_UNSET = re.compile(r"`?(?:\s+[^\s:]+){0,4}?\s*(?::\s*|\s(?:is|are|stays|remains)\s+)(?:unset|not set|empty)\b",
                    re.I)


def _end_of_name(text: str, at: int) -> int:
    """Where the name that starts at `at` ends: a code span's closing backtick, else the end of its word(s)."""
    if text.startswith("`", at - 1):
        close = text.find("`", at)
        return close if close >= 0 else at
    m = re.compile(r"[\w.+/:-]+(?:\s+(?:stage|image|user))?").match(text, at)
    return m.end() if m else at


_VALUE_WORD = re.compile(r"[\w.+-]*\w")


def _states_part_of(fact: Fact, sentence_words: set[str]) -> bool:
    """Whether a sentence says something of a fact's value beside its name: a word of the value ("vllm" of an
    actor's "extras vllm; venv ...") that is not one of the fact's own names."""
    own = {n.lower() for n in (*fact.names, *fact.prose, fact.subject)}
    value_words = {w.lower() for w in _VALUE_WORD.findall(fact.value)} - own - _FILLER
    return bool(value_words & sentence_words)


# Facts whose value is what they are made of (a bake target: the attributes it sets; a removal: all its stage
# removes; a path: its owner; a program: how the build runs it): a sentence naming one speaks of that, whatever words it uses ("the hermetic
# targets never export a cache", "the published stage only removes CMake", "the runtime user cannot change
# the NeMo-RL tree"), so it is tied to the value.
_DEFINITIONS = frozenset({"target", "removed", "owner", "runs"})
# Words a fact's value is written with that say nothing of it (an actor's "extras ...; venv ...").
_FILLER = frozenset("extras extra venv no prebuilt from in a the of to and or yes not worker workers actor actors".split())


_NEAR_WORD = re.compile(r"[\w-]+")


def _beside_kind_word(text: str, start: int, stop: int, kind: str, index: _Index) -> bool:
    near = " ".join(_NEAR_WORD.findall(text[:start])[-2:] + _NEAR_WORD.findall(text[stop:])[:2])
    return kind in _kinds_named(near.lower(), index)


def _kinds_named(low: str, index: _Index) -> set[str]:
    """The kinds whose own words a lower-cased text holds (one search for every kind's words)."""
    return {k for w in index.any_kind_word.findall(low) for k in index.word_kinds[w]}


def _words_between(text: str, start: int, stop: int) -> int:
    return len(text[start:stop].split())


def _name(fact: Fact) -> str:
    return f"`{fact.subject}`" if fact.kind != "count" else f"the {fact.subject.replace('_', ' ')} count"


# ---------------------------------------------------------------------------------------------- the record

def record_of(mentions: list[Mention], old: dict | None, facts: dict[str, Fact],
              confirm: "frozenset[tuple[str, int]]" = frozenset()) -> dict:
    """The mentions part of the facts record as `write` (or `review`) leaves it: which facts each sentence
    names, today's value of each of them, and, for a sentence whose named facts changed since it was written
    or confirmed, the values it was written against (a pending review, which `write` keeps and only an edit
    of the sentence or `docgen review` ends). `confirm` holds (path, line) of the sentences a reviewer
    confirmed."""
    old = old or {}
    old_values: dict = old.get("values", {})
    old_pending: dict = old.get("pending", {})
    values: dict[str, str] = {}
    sentences: dict[str, dict[str, str]] = {}
    pending: dict[str, dict[str, dict[str, str]]] = {}
    unnamed: dict[str, set[str]] = {}
    held = _held(old)
    for m in mentions:
        today = {k: v for k, v, s in m.facts if s != ALLOWED}
        recorded = held(m)
        confirmed = any(p == m.path and m.reported_at(n) for p, n in confirm)
        now = today if recorded is None or confirmed else _as_recorded(today, _keys(recorded), facts)
        keys = set(now)
        if not keys:
            unnamed.setdefault(m.path, set()).add(m.digest)
            continue
        known = _keys(recorded)
        # a fact's value is one for every sentence; one this sentence no longer names is its pending review's
        values.update((k, v) for k, v in now.items() if v != NO_LONGER_NAMED)
        sentences.setdefault(m.path, {})[m.digest] = ", ".join(sorted(keys))
        if recorded is None or confirmed:
            continue
        was = old_pending.get(m.path, {}).get(m.digest, {})
        for k in sorted(keys & known):
            before = was.get(k, old_values.get(k))
            if before is not None and before != now[k]:
                pending.setdefault(m.path, {}).setdefault(m.digest, {})[k] = before
        for k in sorted(_newly_named(now, known)):   # a fact it names since an input changed: reviewed too
            pending.setdefault(m.path, {}).setdefault(m.digest, {})[k] = was.get(k, NOT_NAMED)
    return {"values": dict(sorted(values.items())),
            "sentences": {p: dict(sorted(s.items())) for p, s in sorted(sentences.items())},
            "pending": {p: dict(sorted(s.items())) for p, s in sorted(pending.items())},
            # the sentences that named nothing, by digest: one that names a fact later did not change, an input did
            "unnamed": {p: " ".join(sorted(s)) for p, s in sorted(unnamed.items())}}


def _held(record: dict) -> "Callable[[Mention], str | None]":
    """What the record holds of a sentence: the keys of the facts it named, "" when it named nothing (so every
    fact it names now is new to it: an input changed under it), None when the record has not seen it."""
    sentences = record.get("sentences", {})
    part = record.get("unnamed")
    unnamed = {p: set(d.split()) for p, d in part.items() if isinstance(d, str)} if isinstance(part, dict) else {}

    def held(m: Mention) -> str | None:
        keys = sentences.get(m.path, {}).get(m.digest)
        return "" if keys is None and m.digest in unnamed.get(m.path, ()) else keys
    return held


def _as_recorded(today: dict[str, str], known: set[str], facts: dict[str, Fact]) -> dict[str, str]:
    """Today's values of a recorded sentence's facts, keyed as the record keys them: a fact is judged in the
    way the sentence was written against (by its value, or by its being there) even when the sentence names
    it another way today (its value moved, so the sentence no longer states it); a recorded fact or part the
    sentence no longer names (the value it named moved away, the part is gone) is judged too."""
    recorded_as: dict[str, list[str]] = {}
    for k in known:
        recorded_as.setdefault(k.partition("#")[0], []).append(k)
    out: dict[str, str] = {}
    for k, v in today.items():
        base = k.partition("#")[0]
        if base in recorded_as and k not in recorded_as[base]:
            for rk in recorded_as[base]:
                out[rk] = current_value(rk, facts)
        else:
            out[k] = v
    for k in known:   # a recorded fact, or part of one, the sentence no longer names as it did: its value moved
        if k not in out:   # away, or the part is gone (an extra's requirement dropped, the fact's other parts kept)
            # one named only by being there, still there, that the unchanged sentence names no more: what named it
            # moved ("28.5+" of an engine minimum now 28.6.0)
            gone = k.endswith("#named") and k.partition("#")[0] in facts
            out[k] = NO_LONGER_NAMED if gone else current_value(k, facts)
    return out


NOT_NAMED = "(not named)"   # what a sentence held of a fact it did not name when it was written
NO_LONGER_NAMED = "(no longer named)"   # a fact the sentence named when it was written and no longer names


def _newly_named(now: dict[str, str], known: set[str]) -> set[str]:
    """The facts a recorded sentence names today that it named in no way when it was written or confirmed: the
    sentence is unchanged, so an input changed under it (a fact added, or a value moved onto what it states).
    Not a package the image installs now: a warm step or a lock brings dozens, and their names are everyday
    code words (`build`, `six`) a sentence uses for other things."""
    bases = {k.partition("#")[0] for k in known}
    return {k for k in now if k.partition("#")[0] not in bases and k.partition(":")[0] not in _INSTALLED}


_INSTALLED = frozenset({"package", "installs", "source-build"})


def _keys(recorded: object) -> set[str]:
    return set(recorded.split(", ")) - {""} if isinstance(recorded, str) else set()


def current_value(key: str, facts: dict[str, Fact]) -> str:
    """What a recorded key holds today: the fact's value (or the part of it the key names: `#extras` of an
    actor), "yes" for a named-only key whose fact is there, and "(gone)" when no input states it any more."""
    base, _, aspect = key.partition("#")
    fact = facts.get(base)
    if fact is None:
        return "(gone)"
    if aspect == "named":
        return "yes"
    return value_parts(fact.value).get(aspect, "(gone)") if aspect else fact.value


def review_findings(mentions: list[Mention], record: dict | None, facts: dict[str, Fact]) -> list[Finding]:
    """A sentence whose named facts changed since it was written or confirmed (also when the sentence no
    longer names them because the value it named moved), and a sentence the record has not seen (written
    since the last `docgen write`)."""
    record = record or {}
    values, pending = record.get("values", {}), record.get("pending", {})
    held = _held(record)
    out: list[Finding] = []
    for m in mentions:
        keys = [(k, v) for k, v, s in m.facts if s != ALLOWED]
        known = held(m)
        if not keys and known is None:
            continue
        if known is None:   # at each line whose words name one of its facts
            by_line: dict[int, list[str]] = {}
            for k, _ in keys:
                by_line.setdefault(m.line_of(k), []).append(k)
            out += [Finding(m.path, n, UNRECORDED, f"this sentence names {', '.join(ks[:3])}{' ...' if len(ks) > 3 else ''}"
                            f"{' here' if len(by_line) > 1 else ''} and the facts record has not seen it: run "
                            "`docgen write` to record it") for n, ks in sorted(by_line.items())]
            continue
        was = pending.get(m.path, {}).get(m.digest, {})
        today = {k: v for k, v in keys} if REVIEW not in m.allowed else {}
        now = _as_recorded(today, _keys(known), facts)
        new = _newly_named(now, _keys(known))
        for k, v in sorted(now.items()):
            before = was.get(k, NOT_NAMED if k in new else values.get(k))
            at = m.line_of(k)   # where its words stand (the first line for one it names no more)
            if before == NOT_NAMED:
                # the fact stood as it stands today when the sentence was written: what changed is the reading
                why = ("docgen reads the sentence differently now (its rules changed), the fact is as it was"
                       if values.get(k) == v else "an input changed under it, or docgen reads more of the inputs now")
                out.append(Finding(m.path, at, REVIEW, f"mentions {k} ({v!r}), which it did not name when it was "
                                   f"written: {why}; edit it, or confirm it with `docgen review {m.path}:{at}`"))
            elif v == NO_LONGER_NAMED and before is not None:
                out.append(Finding(m.path, m.line, REVIEW, f"no longer names {k.partition('#')[0]}, which it named when "
                                   "it was written: what named it moved (a value, a name); edit it, or confirm it "
                                   f"with `docgen review {m.path}:{m.line}`"))
            elif before is not None and before != v:
                out.append(Finding(m.path, at, REVIEW, f"mentions {k}, which changed from {before!r} to {v!r} "
                                   f"since this sentence was written; edit it, or confirm it with "
                                   f"`docgen review {m.path}:{at}`"))
    return out


class CommentText(NamedTuple):
    """Hand-written text outside the pages that the pages copy: where it starts, and the facts it is about."""
    path: str
    first: int
    text: str
    about: tuple[str, ...] = ()   # fact keys


def dockerfile_comments(model: "ImageModel") -> list[CommentText]:
    """The Dockerfile comments the pages copy (each build argument's comment block, which the build-options
    page shows), scanned as hand-written text of their own; each is about its build argument, which every
    sentence of it names (a value it states, such as the default it explains, is tied to the argument)."""
    return [CommentText(model.dockerfile.path, max(1, arg.line - len(split_lines(arg.comment))), arg.comment,
                        (f"arg:{arg.name}",))
            for arg in model.dockerfile.args if arg.comment.strip()]


def coverage(run) -> Coverage:
    """The claims coverage of a run: the prose lint's claims (blocks and values rendered, spans it compared or
    found unowned) and every fact each hand-written sentence names, with its status. A sentence's fact is
    under review when the record holds the sentence with that fact's value unchanged; a sentence the record
    has not seen, a fact changed since, or a value judged false is unowned."""
    base = claims_coverage(run)
    part = run.recorded_facts.get("mentions") if isinstance(run.recorded_facts, dict) else None
    record = part if isinstance(part, dict) else {}
    values, sentences, pending = record.get("values", {}), record.get("sentences", {}), record.get("pending", {})
    claims = list(base.claims)
    facts = fact_base(run.model).by_key()
    for m in run.mentions:
        recorded = _keys(sentences.get(m.path, {}).get(m.digest))
        was = pending.get(m.path, {}).get(m.digest, {})
        # judged as `review_findings` judges it: each fact in the way the record holds the sentence
        today = _as_recorded({k: v for k, v, s in m.facts if s == REVIEWED}, recorded, facts) if recorded else {}
        for key, value, status in m.facts:
            if status == REVIEWED:
                held = [k for k in today if k.partition("#")[0] == key.partition("#")[0]]
                if not held or any(was.get(k, values.get(k)) != today[k] for k in held):
                    status = UNOWNED
            elif status == "false":
                status = UNOWNED
            claims.append(Claim(m.path, m.line, key.partition(":")[0], f"{key}: {m.text[:80]}", status))
        claims += m.compared
    return Coverage(base.findings, tuple(claims))
