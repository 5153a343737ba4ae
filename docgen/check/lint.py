"""Semantic checks: do the Dockerfile's own claims agree with what the registry and the lock make of it?

Each check is a small pure function of the model returning findings with a file and line. `docgen lint`
runs them alone; `docgen check` runs them with the drift check.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from docgen.errors import InputError
from docgen.model import class_name_of
from docgen.model.stages import build_arg_value, published
from docgen.model.claims import REASON_TEXT, build_claims, comment_agrees, reason_kind
from docgen.model.cross import (
    arch_comment_mismatches, arch_mismatches, bake_names, cuda_mismatches, hard_coded_paths, python_requirement,
    uv_requirement,
)
from docgen.names import COUNT_NOUNS, normalize, singular
from docgen.render.values import number_word

if TYPE_CHECKING:
    from collections.abc import Iterable
    from docgen.blocks import Document
    from docgen.model import ImageModel



class Finding(NamedTuple):
    path: str
    line: int | None
    check: str
    message: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: [{self.check}] {self.message}"


def _norm(text: str) -> str:
    return normalize(text)


# ------------------------------------------------------------------------------------------------ filters

def _prefetch_line(model: "ImageModel") -> int | None:
    return model.dockerfile.prefetch.line if model.dockerfile.prefetch is not None else None


def _anchor_line(model: "ImageModel") -> int | None:
    """Where a finding about something missing points: the prefetch call, else the Dockerfile's last line."""
    instructions = model.dockerfile.instructions
    return _prefetch_line(model) or (instructions[-1].end_line if instructions else None)


def check_prefetch_present(model: "ImageModel") -> list[Finding]:
    """An image of this kind prefetches actor venvs; without a `prefetch_venvs.py` call every uv actor builds
    its venv on the node at first use. Said once, so the docs' claims are read against that."""
    if model.dockerfile.prefetch_calls:
        return []
    return [Finding(model.dockerfile.path, _anchor_line(model), "prefetch-call",
                    "no RUN calls NeMo-RL's prefetch_venvs.py: the image prefetches no worker venvs")]


def check_reader_notes(model: "ImageModel") -> list[Finding]:
    """Conventions the reader found but could not read as written (a second loop, an odd list entry)."""
    return [Finding(model.dockerfile.path, n.line, n.check, n.message) for n in model.dockerfile.notes]


def check_mapping_comment(model: "ImageModel") -> list[Finding]:
    """`#   <filter>  -> <extra>  (why)` rows must name the extras the filter's venvs really run with."""
    found = []
    by_text: dict[str, set[tuple[str, ...]]] = {}
    for f in model.filters:
        by_text.setdefault(f.text, set()).add(tuple(_norm(e) for e in f.extras))
    for row in model.dockerfile.mapping:
        said = tuple(sorted(_norm(e) for e in re.split(r"[+,/]", row.extra) if e and e.lower() not in ("base", "(base)", "none")))
        truth = by_text.get(row.filter, set())
        if truth and said not in {tuple(sorted(t)) for t in truth}:
            actual = " or ".join("+".join(t) or "base" for t in sorted(truth))
            found.append(Finding(model.dockerfile.path, row.line, "mapping-comment",
                                 f"comment maps filter {row.filter!r} to {row.extra!r}; its venvs run with {actual}"))
    return found


def check_gym_arg_scope(model: "ImageModel") -> list[Finding]:
    """A build ARG reaches a RUN only when the RUN's stage (or a stage it is built FROM) declares it: a Gym
    prefetch driven by an ARG no such stage declares always sees it empty, whatever --build-arg says, and
    builds no venv."""
    return [Finding(model.dockerfile.path, g.line, "gym-prefetch",
                    f"NeMo-Gym's prefetch expands {g.arg}, but stage {g.stage!r} declares no `ARG {g.arg}`: it is "
                    f"always empty there, so --build-arg {g.arg}=... builds nothing; add `ARG {g.arg}` to the stage")
            for g in model.gym if g.arg is not None and not g.arg_in_scope]


def check_filters_match(model: "ImageModel") -> list[Finding]:
    """A filter that selects nothing is a typo or a renamed actor: the venv it meant is silently missing."""
    path = model.dockerfile.path
    return [Finding(path, f.line, "filter-unmatched",
                    f"prefetch filter {f.text!r} matches no actor that runs under uv")
            for f in model.filters if not f.actors]


def check_verify_list(model: "ImageModel") -> list[Finding]:
    """The `for actor in ...` loop must test exactly the venvs the filters build."""
    path, verify = model.dockerfile.path, model.dockerfile.verify
    expected = [v.actor for v in model.venvs]
    if verify is None:
        return [Finding(path, _anchor_line(model), "verify-list",
                        "no `for actor in ...` loop verifies the prefetched venvs")] if expected else []
    found = []
    missing = [a for a in expected if a not in verify.actors]
    extra = [a for a in verify.actors if a not in expected]
    if missing:
        found.append(Finding(path, verify.line, "verify-list",
                             "verification list misses prefetched venvs: " + ", ".join(missing)))
    if extra:
        found.append(Finding(path, verify.line, "verify-list",
                             "verification list names actors the filters do not prefetch: " + ", ".join(extra)))
    return found


def check_mixed_extras(model: "ImageModel") -> list[Finding]:
    """One filter selecting actors of different extras usually matches more than its author meant."""
    path = model.dockerfile.path
    declared: dict[str, int] = {}
    for text, line in model.dockerfile.mixed_extras:
        declared.setdefault(text, line)
    found = []
    for f in model.filters:
        kinds = sorted({model.actor(a).extras for a in f.actors})
        if len(kinds) > 1 and f.text not in declared:
            detail = "; ".join(f"{class_name_of(a)}: {'+'.join(model.actor(a).extras) or 'base'}" for a in f.actors)
            found.append(Finding(path, f.line, "mixed-extras",
                                 f"filter {f.text!r} matches actors of different extras ({detail}); "
                                 f"declare it with `# docgen: mixed-extras {f.text}` if intended"))
    known = {f.text for f in model.filters}
    found += [Finding(path, line, "mixed-extras", f"`# docgen: mixed-extras {text}` names no prefetch filter")
              for text, line in declared.items() if text not in known]
    return found


# ----------------------------------------------------------------------------------------- comment claims

def counted(model: "ImageModel") -> dict[str, int]:
    """What each noun of a Dockerfile count statement counts: the first count the prose's count noun may be
    (docgen/names.py), where the model counts it itself."""
    counts = model.counts
    return {noun: n for noun, keys in COUNT_NOUNS.items() if (n := counts.get(keys[0])) is not None}


def check_count_statements(model: "ImageModel") -> list[Finding]:
    """`# Eight filters -> nine venvs.` is a claim; it must stay true when the filters change."""
    truth = counted(model)
    found = []
    for statement in model.dockerfile.counts:
        wrong = [(n, noun, truth[singular(noun)]) for n, noun in statement.counts
                 if truth.get(singular(noun), n) != n]
        if wrong:
            says = ", ".join(f"{n} {noun}" for n, noun, _ in wrong)
            actual = ", ".join(f"{number_word(true)} ({true}) {noun}" for _, noun, true in wrong)
            found.append(Finding(model.dockerfile.path, statement.line, "count-statement",
                                 f"comment {statement.text!r} says {says}; the registry gives {actual}"))
    return found


def check_not_prefetched_list(model: "ImageModel") -> list[Finding]:
    """The `# Not prefetched` comment must list exactly the uv actors that get no venv. Written as prose, it
    is held to what prose can say: each such actor is mentioned (by class name, or a word of its module
    path like `sglang`), and a class name it spells out is not one that gets a venv."""
    path, listed = model.dockerfile.path, model.dockerfile.not_prefetched
    computed = [s.actor for s in model.not_prefetched]
    if listed is None:
        return [Finding(path, _anchor_line(model), "not-prefetched-list",
                        "no `# Not prefetched` comment; these uv actors get no venv: " + ", ".join(computed))
                ] if computed else []
    names = [fqn for fqn, _ in listed.actors]
    venvs = {v.actor for v in model.venvs}
    system = {a.fqn for a in model.system_actors}
    found = []
    prose_words = _words(listed.prose)
    extras = {s.actor: s.extras for s in model.not_prefetched}
    missing = [a for a in computed if a not in names and not (prose_words & (_fqn_words(a) | _words(" ".join(extras[a]))))]
    if missing:
        found.append(Finding(path, listed.line, "not-prefetched-list",
                             "the `# Not prefetched` list omits actors that get no venv: " + ", ".join(missing)))
    spelled = [a.fqn for a in model.actors if a.class_name.lower() in prose_words and a.fqn not in computed]
    for fqn in names + spelled:
        if fqn in computed:
            continue
        why = ("it is prefetched" if fqn in venvs else "it runs on the system interpreter" if fqn in system
               else "it is not in the actor registry")
        found.append(Finding(path, listed.line, "not-prefetched-list",
                             f"the `# Not prefetched` list names {fqn}, but {why}"))
    return found


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)}


def _fqn_words(fqn: str) -> set[str]:
    """`nemo_rl.algorithms.async_utils.ReplayBuffer` -> nemo, rl, algorithms, async, utils, replaybuffer,
    replay, buffer: the words prose may use to mean the actor."""
    module, _, name = fqn.rpartition(".")
    words = {w.lower() for w in re.split(r"[._]", module) if w}
    words.add(name.lower())
    words.update(w.lower() for w in re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name))
    return words - {"nemo", "rl", "models", "workers", "worker"}


# ------------------------------------------------------------------------------------------- provenance

def _repo_id(repo: str) -> str:
    """`https://github.com/Owner/RL.git`, `git@github.com:Owner/RL`, `Owner/RL` -> `owner/rl`."""
    text = repo.strip().rstrip("/").removesuffix(".git")
    text = re.sub(r"^[a-z+]+://(?:[^@/]*@)?[^/]+/", "", text)     # scheme and host
    text = re.sub(r"^[^@/]+@[^:/]+:", "", text)                   # scp-like git@host:
    return "/".join(text.split("/")[-2:]).lower()


def fix_provenance(model: "ImageModel") -> str:
    """The one command that re-records the snapshot where the Dockerfile points: `docgen bump` with the
    Dockerfile's NEMO_RL_REF (it fetches from NEMO_RL_REPO, verifies, re-renders and checks)."""
    ref, _ = build_arg_value(model.dockerfile, "NEMO_RL_REF")
    return f"docgen bump {ref}" if ref else "docgen bump REF"


def check_provenance(model: "ImageModel") -> list[Finding]:
    """NEMO_RL_REPO / NEMO_RL_REF defaults are what a build checks out; the snapshot records what the docs
    were generated from. When they differ, every rendered fact may describe another NeMo-RL. A snapshot
    recorded from a dirty tree (--allow-dirty) describes files no commit holds. Each finding ends with the
    command that fixes it."""
    provenance = model.snapshot.provenance or {}
    fix = fix_provenance(model)
    # a snapshot that does not say where it came from is a finding too: the pages would name no NeMo-RL
    missing = [what for what, present in (("repository", provenance.get("repo")),
                                          ("ref or commit", provenance.get("ref") or provenance.get("commit")))
               if not present]
    found = [Finding(model.snapshot.path, None, "provenance",
                     f"the snapshot records no {' and no '.join(missing)}, so the pages cannot say which NeMo-RL "
                     f"they describe; run `{fix}`")] if missing else []
    dirty = provenance.get("dirty")
    if dirty:
        names = ", ".join(map(str, dirty)) if isinstance(dirty, list) else str(dirty)
        found.append(Finding(model.snapshot.path, None, "provenance",
                             f"the snapshot was recorded from a dirty tree (--allow-dirty): {names} differed from "
                             f"commit {str(provenance.get('commit') or '?')[:12]}, so the pages describe files no "
                             f"commit holds; run `{fix}`"))
    for name, key, same in (("NEMO_RL_REPO", "repo", lambda a, b: _repo_id(a) == _repo_id(b)),
                            ("NEMO_RL_REF", "ref", lambda a, b: a.strip() == b.strip())):
        (value, arg), recorded = build_arg_value(model.dockerfile, name), provenance.get(key)
        if arg is None or not value or not recorded or same(value, str(recorded)):
            continue
        found.append(Finding(model.dockerfile.path, arg.line, "provenance",
                             f"the Dockerfile builds {name}={value} but the docs describe {key} "
                             f"{recorded} (the snapshot's provenance); run `{fix}`"))
    return found


def check_against(model: "ImageModel", rl_dir: str) -> list[Finding]:
    """`docgen check --against DIR`: the files the snapshot read, as the recorded commit holds them in the
    NeMo-RL repository at DIR (a clone or a mirror), blob for blob. DIR without the commit is bad input."""
    from docgen.snapshot.build import resolve_commit, tree_digests  # noqa: PLC0415  # only --against needs it

    provenance = model.snapshot.provenance or {}
    fix = fix_provenance(model)
    commit, files = provenance.get("commit"), provenance.get("files")
    where = model.snapshot.path
    if not commit:
        return [Finding(where, None, "provenance", f"--against {rl_dir}: the snapshot records no commit to hold its "
                                                   f"files to; run `{fix}`")]
    if not isinstance(files, dict) or not files:
        return [Finding(where, None, "provenance", f"--against {rl_dir}: the snapshot records no digests of the files "
                                                   f"it read (an older docgen made it); run `{fix}`")]
    if resolve_commit(Path(rl_dir), str(commit)) is None:
        raise InputError(rl_dir, None, f"--against: commit {commit} is not in this repository (not a NeMo-RL clone, "
                                       f"or not fetched); fetch it: `git -C {rl_dir} fetch origin "
                                       f"{provenance.get('ref') or commit}`")
    at_commit = tree_digests(rl_dir, str(commit), sorted(files))
    found = []
    for rel in sorted(files):
        if at_commit[rel] != files[rel]:
            held = f"blob {str(at_commit[rel])[:12]}" if at_commit[rel] else "no such file"
            found.append(Finding(where, None, "provenance",
                                 f"{rel}: the snapshot read blob {str(files[rel])[:12]}, but commit {str(commit)[:12]} "
                                 f"in {rl_dir} holds {held}: the pages describe files that commit does not hold; "
                                 f"run `{fix}`"))
    return found


# ------------------------------------------------------------------------------------- inputs vs inputs

def check_cross_inputs(model: "ImageModel") -> list[Finding]:
    """One fact two inputs state, held to both: Python against requires-python, the base
    image's CUDA against the wheels' CUDA builds, every arch list against the floor the docs state, a
    path a RUN spells out against the build ARG that holds it, UV_VERSION against uv's required version, the
    secrets and contexts a bake file passes against those the Dockerfile reads. Each names the other side's
    file:line."""
    path = model.dockerfile.path
    return [Finding(m.where or path, m.line, m.check, f"{m.message} ({m.other})")
            for m in (*python_requirement(model), *cuda_mismatches(model), *arch_mismatches(model),
                      *hard_coded_paths(model), *uv_requirement(model), *arch_comment_mismatches(model),
                      *bake_names(model))]


def check_unresolved_paths(model: "ImageModel") -> list[Finding]:
    """A directory the pages state must be a real path: a reference left in it (a name only the base
    image could set) would reach every page as a placeholder."""
    path = model.dockerfile.path
    found = []
    for what, key, value in (("the actor venv directory", "NEMO_RL_VENV_DIR", model.venv_dir),
                             *(("the Gym venv directory", "NEMO_GYM_VENV_DIR", g.venv_dir) for g in model.gym[:1])):
        if "$" in value:
            env = model.dockerfile.origin(key, published(model.dockerfile))
            found.append(Finding(path, env.line if env else None, "unresolved-variable",
                                 f"{what} {key}={value} names a variable no ARG or ENV of the Dockerfile sets "
                                 "in that stage: docgen cannot state the path"))
    return found


# ------------------------------------------------------------------------------------------- warm order

def check_warm_order(model: "ImageModel") -> list[Finding]:
    """Every prefetched venv's extras are warmed before the prefetch, and a shared source build is built
    by the first warm step that reaches it: comments saying 'builds' / 'reuses' must match that order."""
    path = model.dockerfile.path
    found = []
    warmed = {_norm(e) for e in model.warm_extras}
    prefetch_at = _prefetch_line(model)
    later = {_norm(e): s.line for s in model.dockerfile.warm_syncs
             if prefetch_at is not None and s.line > prefetch_at for e in s.extras}
    for venv in model.venvs:
        for extra in venv.extras:
            if _norm(extra) not in warmed:
                when = f" (only after it, line {later[_norm(extra)]})" if _norm(extra) in later else ""
                found.append(Finding(path, prefetch_at, "warm-order",
                                     f"{class_name_of(venv.actor)} runs with extra {extra!r}, which no `uv sync --extra` "
                                     f"warms before the prefetch{when}"))
    found += [Finding(path, c.line, "warm-order", c.problem) for c in build_claims(model) if c.problem]
    return found


def check_not_prefetched_reasons(model: "ImageModel") -> list[Finding]:
    """A `# Not prefetched` comment only adds colour: it must agree with the reason the model derives
    (an extra not warmed, a value worker, async bookkeeping, quantization, or simply not selected)."""
    listed = model.dockerfile.not_prefetched
    if listed is None:
        return []
    warmed = {_norm(e) for e in model.warm_extras}
    found = []
    for fqn, comment in listed.actors:
        try:
            actor = model.actor(fqn)
        except KeyError:
            continue  # check_not_prefetched_list names it
        missing = tuple(e for e in actor.extras if _norm(e) not in warmed)
        kind = reason_kind(fqn, missing)
        if not comment_agrees(kind, comment):
            truth = (f"{', '.join(missing)} not warmed" if missing else REASON_TEXT[kind])
            found.append(Finding(model.dockerfile.path, listed.line, "not-prefetched-reason",
                                 f"the `# Not prefetched` comment for {class_name_of(fqn)} says {comment!r}; "
                                 f"the model says: {truth}"))
    return found


# --------------------------------------------------------------------------------------------- coverage

def check_coverage(documents: Iterable["Document"], required: Iterable[str], where: str) -> list[Finding]:
    """Like helm-docs' strict mode: each required generator is rendered somewhere in the docs."""
    used = {b.generator for doc in documents for b in doc.blocks}
    return [Finding(where, None, "coverage", f"no page renders the required generator `{name}`")
            for name in required if name not in used]


# ------------------------------------------------------------------------------------- inline values

_VALUE_MARKER = "<!-- docgen:value"


def _block_prefix_only(prefix: str) -> bool:
    """True when `prefix` holds only what opens a line's block: indentation, `>` quote markers and list
    markers (`-`, `*`, `+`, `1.`, `1)`), so whatever follows it is the first thing of the block's text."""
    rest = prefix.strip()
    while rest:
        if rest[0] == ">":
            rest = rest[1:].lstrip()
            continue
        head, _, tail = rest.partition(" ")
        if head in ("-", "*", "+") or (head[:-1].isdigit() and head[-1:] in ".)" and len(head) <= 10):
            rest = tail.lstrip()
            continue
        return False
    return True


def check_value_line_start(documents: Iterable["Document"]) -> list[Finding]:
    """An inline value's opening comment must not be the first thing on its line. CommonMark (GitHub) and
    Python-Markdown (the site) both read a line that starts with `<!--` as the start of an HTML block, even in
    the middle of a paragraph, so the sentence would end there and its rest become a new paragraph."""
    found = []
    for doc in documents:
        for value in doc.values:
            line = doc.lines[value.line_index]
            at = line.rfind(_VALUE_MARKER, 0, value.start)
            if at >= 0 and _block_prefix_only(line[:at]):
                found.append(Finding(doc.path, value.line, "value-line-start",
                                     f"value {value.key} starts its line, which breaks the paragraph there on "
                                     "GitHub and on the site; move the word before it onto this line"))
    return found


def lint(model: "ImageModel") -> list[Finding]:
    return [
        *check_prefetch_present(model),
        *check_reader_notes(model),
        *check_provenance(model),
        *check_cross_inputs(model),
        *check_unresolved_paths(model),
        *check_mapping_comment(model),
        *check_gym_arg_scope(model),
        *check_filters_match(model),
        *check_verify_list(model),
        *check_mixed_extras(model),
        *check_count_statements(model),
        *check_warm_order(model),
        *check_not_prefetched_list(model),
        *check_not_prefetched_reasons(model),
    ]
