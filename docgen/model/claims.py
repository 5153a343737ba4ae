"""Model facts the pages state in their prose and blocks, kept apart from `ImageModel`'s
fields so the core model stays small: each is a pure function of the model.

- `vllm_copies`: whether the published stage gives venvs private copies of `vllm/`, and which;
- `py_executables`: NeMo-RL's `PY_EXECUTABLES` members, their commands and who uses them;
- `skip_reason`: why a uv actor has no prebuilt venv, derived from the model (a Dockerfile comment may
  only add colour to it);
- `build_claims`: what each warm comment says it builds or reuses, against the lock's shared builds;
- `known_names`: every name a page may put in a code span (actor classes, FQNs, extras, ARGs, ENVs).
"""

from __future__ import annotations

import re
import stat
from fnmatch import fnmatch
from typing import TYPE_CHECKING, NamedTuple

from docgen.errors import InputError
from docgen.fact import ALIASES, ARG_ALIASES
from docgen.inputs.quoted import assignments
from docgen.model import REASON_NOT_SELECTED, class_name_of, reason_backend_not_built
from docgen.model.stages import base_venv, image_value, published_stage, role_of
from docgen.names import normalize
from docgen.records import Memo
from docgen.snapshot.load import NOTABLE_PACKAGES, combo_key
from docgen.snapshot.registry import extras_of
from docgen.text import clauses

if TYPE_CHECKING:
    from collections.abc import Collection
    from docgen.model import ImageModel
    from docgen.snapshot.load import SnapshotPackage



# Environment variables NeMo-RL itself reads that the image deliberately leaves unset; the model knows
# their effect (ImageModel.actors_system) although no Dockerfile line names them.
NEMO_RL_KNOBS = ("NEMO_RL_PY_EXECUTABLES_SYSTEM", "PY_EXECUTABLES", "ACTOR_ENVIRONMENT_REGISTRY")
DOCKERFILE_KEYWORDS = ("FROM", "RUN", "COPY", "ADD", "ARG", "ENV", "USER", "WORKDIR", "SHELL", "CMD",
                       "ENTRYPOINT", "LABEL", "EXPOSE", "VOLUME")

# The package spotter: a word is an ASCII letter, then word characters, `.`, `+` or `-`, ending in a word
# character; names written with a blank are found as phrases.
_WORD = re.compile(r"[A-Za-z][\w.+-]*[\w]|[A-Za-z]")
_PHRASES = {"transformer engine": "transformer-engine"}   # a package's name as prose also writes it


def package_words(text: str, candidates: "Collection[str]", tools: bool = False) -> list[tuple[str, str]]:
    """(the words as written, the package) for each name of one of `candidates` (normalised package names)
    in `text`, in order, directly or through an alias (ALIASES), then the phrases. With `tools`, the tools
    whose version is a build argument (ARG_ALIASES: "Python", "compute capability") count too, as themselves.
    A set lookup per word: a regex of every package name took longer to compile than a whole lint to run."""
    found = []
    for word in _WORD.findall(text):
        low = word.lower().rstrip(".")
        if low in ALIASES and ALIASES[low] in candidates:
            found.append((word, ALIASES[low]))
        elif (name := normalize(low)) in candidates or (tools and low in ARG_ALIASES):
            found.append((word, name))
    phrases = [*_PHRASES.items(), *((p, p) for p in ARG_ALIASES if " " in p and tools)]
    low = text.lower()
    return found + [(p, name) for p, name in phrases if p in low and (name in candidates or p in ARG_ALIASES)]


def package_mentions(text: str, candidates: "Collection[str]") -> set[str]:
    """Packages (normalised names) a comment or sentence names, directly or through an alias."""
    return {name for _, name in package_words(text, candidates)}


# ------------------------------------------------------------------------------------ private vLLM copies

class VllmCopies(NamedTuple):
    line: int                      # the RUN step of the published stage that makes them
    globs: tuple[str, ...]         # the venv roots it walks (`/opt/ray_venvs/*`, ...)
    venvs: tuple[str, ...]         # prefetched venv paths those globs reach that hold vLLM


_VLLM_GLOB = re.compile(r"(/\S+?)/lib/python3\*/site-packages/vllm\b")


def vllm_copies(model: "ImageModel") -> VllmCopies | None:
    """The published stage's step that replaces each venv's symlinked `vllm/` with a real copy
    (`cp --dereference` over `.../site-packages/vllm` globs), or None when the stage has none."""
    by_stage = {s.name: s for s in model.dockerfile.stages}
    stage = by_stage.get(published_stage(model))
    if stage is None:
        return None
    for ins in stage.instructions:
        if ins.keyword != "RUN":
            continue
        body = "".join(h.body for h in ins.heredocs) or ins.args
        if "--dereference" not in body and "-L" not in body.split():
            continue
        globs = tuple(dict.fromkeys(m.group(1) for m in _VLLM_GLOB.finditer(body)))
        if not globs:
            continue
        with_vllm = [v for v in model.venvs if package_in(model, "vllm", v.extras)]
        reached = tuple(v.path for v in with_vllm if any(fnmatch(v.path, g) for g in globs))
        return VllmCopies(ins.start_line, globs, reached)
    return None


# ----------------------------------------------------------------------------------------- PY_EXECUTABLES

class Executable(NamedTuple):
    member: str
    command: str                   # with {git_root} replaced by the image's checkout
    extras: tuple[str, ...]
    actors: tuple[str, ...]        # FQNs using it with the image's default (system flag unset)


def py_executables(model: "ImageModel") -> tuple[Executable, ...]:
    checkout = checkout_dir(model)
    out = []
    for member, command in sorted(model.snapshot.registry.executables.items()):
        users = tuple(a.fqn for a in model.actors if a.member == member)
        out.append(Executable(member, command.replace("{git_root}", checkout),
                              extras_of(command), users))
    return tuple(out)


def checkout_dir(model: "ImageModel") -> str:
    """Where the image keeps NeMo-RL: the published stage's WORKDIR (the driver venv's parent by default)."""
    workdir, line = model.dockerfile.workdir(published_stage(model))
    return (workdir if line is not None and isinstance(workdir, str) else "/opt/nemo-rl").rstrip("/")


# Where the image keeps things, each with the words prose names it by: the `paths.*` values render these, and a
# sentence that names one and states an absolute path is held to it (check/mentions.py).
LOCATIONS: dict[str, tuple[str, ...]] = {
    "venv_dir": ("worker venvs", "prefetched venvs", "venv directory"),
    "base_venv": ("base venv", "driver venv"),
    "checkout": ("nemo-rl tree",),
    "uv_cache": ("uv cache",),
    "gym_venv_dir": ("gym venvs", "gym environment venvs"),
    "python_install": ("managed python", "python install"),
}
# the locations an environment variable of the image holds
LOCATION_ENVS = {"uv_cache": "UV_CACHE_DIR", "gym_venv_dir": "NEMO_GYM_VENV_DIR",
                 "python_install": "UV_PYTHON_INSTALL_DIR"}


def location(model: "ImageModel", key: str) -> str | None:
    """The path of one of LOCATIONS; None when the image sets no such variable."""
    if key == "venv_dir":
        return model.venv_dir
    if key == "base_venv":
        return base_venv(model)
    if key == "checkout":
        return checkout_dir(model)
    found, _ = image_value(model.dockerfile, LOCATION_ENVS[key])
    return found if isinstance(found, str) else None


# --------------------------------------------------------------------------------- not-prefetched reasons

NOT_WARMED, VALUE, ASYNC, QUANT, NOT_SELECTED = "not-warmed", "value", "async", "quantization", "not-selected"
# What a comment must say to agree with each derived reason (and must not say for another), in any case.
_REASON_WORDS = {
    NOT_WARMED: re.compile(r"\bnot (?:built|warmed)\b", re.IGNORECASE),
    VALUE: re.compile(r"\bvalue\b|\bcritic\b", re.IGNORECASE),
    ASYNC: re.compile(r"\basync\b|\bbookkeeping\b", re.IGNORECASE),
    QUANT: re.compile(r"\bquantiz", re.IGNORECASE),
}
REASON_TEXT = {
    VALUE: "value worker (PPO's critic); the image's jobs are critic-free",
    ASYNC: "async bookkeeping actor",
    QUANT: "quantization worker, builds on first use",
    NOT_SELECTED: REASON_NOT_SELECTED,   # the model's own wording: one rendering of each reason
}


def reason_kind(fqn: str, missing_extras: tuple[str, ...]) -> str:
    if missing_extras:
        return NOT_WARMED
    module = fqn.rsplit(".", 1)[0]
    if ".modelopt." in f".{module}." or "Quant" in class_name_of(fqn):
        return QUANT
    if role_of(fqn) == "value":
        return VALUE
    if module.endswith(".async_utils"):
        return ASYNC
    return NOT_SELECTED


def comment_agrees(kind: str, comment: str) -> bool:
    """A comment adds colour only: it must name the derived reason's kind and no other."""
    if not comment:
        return True
    named = {k for k, pattern in _REASON_WORDS.items() if pattern.search(comment)}
    if kind == NOT_SELECTED:
        return not named
    return named == {kind}


def skip_reason(fqn: str, missing_extras: tuple[str, ...], comment: str | None) -> str:
    """The reason the docs give: derived from the model; the Dockerfile's comment is shown instead of the
    stock wording only when it agrees with the derived kind (it adds colour, never the fact)."""
    kind = reason_kind(fqn, missing_extras)
    if kind == NOT_WARMED:
        return reason_backend_not_built(missing_extras)
    if comment and comment_agrees(kind, comment):
        return comment
    return REASON_TEXT[kind]


# ---------------------------------------------------------------------------------- build / reuse claims

# What a warm step's comment says it does with a package, in any case.
_REUSE = re.compile(r"\breus(?:e|es|ed|ing)\b", re.IGNORECASE)
_BUILD = re.compile(r"\bbuild(?:s|ing)?\b|\bcompiles?\b", re.IGNORECASE)


class BuildClaim(NamedTuple):
    step_label: str
    line: int
    package: str
    claim: str          # "builds" | "reuses" | "wheel"
    problem: str | None  # None when the lock agrees


def build_claims(model: "ImageModel") -> list[BuildClaim]:
    """Each warm step whose comment says it builds or reuses a source-built package (by name or alias):
    does the step reach that package, and is it the first warm step that does? A package the comment says
    it builds (in the clause with the verb) that the step installs as a prebuilt wheel is a claim too, and so
    is a package it calls a wheel that the lock builds from source."""
    source_built = {p.name for p in model.snapshot.packages.values() if p.source_built and not p.editable}
    out = []
    for step in model.warm_steps:
        out += _wheel_claims(model, step, source_built)
        comment = step.comment
        if not comment or not (_REUSE.search(comment) or _BUILD.search(comment)):
            continue
        out += _prebuilt_claims(model, step, source_built)
        for package in sorted(package_mentions(comment, source_built)):
            claim = "reuses" if _REUSE.search(comment) else "builds"
            reaching = [s for s in model.warm_steps if _reaches(model, s, package)]
            problem = None
            if step not in reaching:
                problem = (f"`uv sync {step.label}` does not install {package} at all "
                           "(the lock gives it to " + (", ".join(s.label for s in reaching) or "no warmed extra") + ")")
            elif claim == "builds" and reaching[0] != step:
                problem = (f"`uv sync {step.label}` says it builds {package}, but `uv sync {reaching[0].label}` "
                           f"(line {reaching[0].line}) reaches it first")
            elif claim == "reuses" and reaching[0] == step:
                problem = (f"`uv sync {step.label}` says it reuses {package}, but it is the first warm step "
                           "that reaches it: nothing built it before")
            elif claim == "reuses":
                named = [s for s in reaching if s.label != step.label and _mentions(comment, s.label)]
                others = [s.label for s in model.warm_steps if s.label != step.label
                          and _mentions(comment, s.label, ("'s", "'", "s", ""))]
                if others and not named:
                    problem = (f"`uv sync {step.label}` says it reuses {', '.join(others)}'s {package}, but "
                               f"{', '.join(others)} does not install it (first built by `uv sync {reaching[0].label}`)")
            out.append(BuildClaim(step.label, step.line, package, claim, problem))
    return out


# "vllm wheel", "the flash-attn wheels": the word before names a package the comment says comes prebuilt
_WHEEL = re.compile(r"([\w.-]+)(?:'s)?\s+(?:prebuilt\s+)?wheels?\b", re.IGNORECASE)


def _wheel_claims(model: "ImageModel", step, source_built: set[str]) -> list[BuildClaim]:
    """The packages the step's comment calls a wheel that the lock builds from source for the step (not in a
    clause that reuses one: "reuses automodel's TE wheel" is the wheel a build left in the cache)."""
    if not step.comment or not _WHEEL.search(step.comment):
        return []
    try:
        reached = installed(model, step.extras)
    except InputError:   # an extra combination the snapshot lacks: reported where the model needs it
        return []
    out = []
    for m in (m for clause in clauses(step.comment) if not _REUSE.search(clause) for m in _WHEEL.finditer(clause)):
        for name in sorted(package_mentions(m.group(1), source_built & set(reached))):
            pkg = reached[name]
            out.append(BuildClaim(step.label, step.line, name, "wheel",
                                  f"`uv sync {step.label}` says {name} comes as a wheel, but the lock builds "
                                  f"{name} {pkg.version or ''} from source ({pkg.source_kind}: {pkg.source})"))
    return out


def _prebuilt_claims(model: "ImageModel", step, source_built: set[str]) -> list[BuildClaim]:
    """The packages a clause of the step's comment says the step builds, that the lock gives the step as a
    prebuilt distribution (not built from source): nothing builds them, so the comment is stale."""
    try:
        reached = installed(model, step.extras)
    except InputError:   # an extra combination the snapshot lacks: reported where the model needs it
        return []
    out = []
    for clause in clauses(step.comment):   # a build verb claims only the packages of its own clause
        if not _BUILD.search(clause) or _REUSE.search(clause):
            continue
        for name in sorted(package_mentions(clause, set(reached) - source_built)):
            pkg = reached[name]
            out.append(BuildClaim(step.label, step.line, name, "builds",
                                  f"`uv sync {step.label}` says it builds {name}, but the lock gives it "
                                  f"{name} {pkg.version or ''} as a prebuilt distribution ({pkg.source_kind}: "
                                  f"{pkg.source}): nothing builds it"))
    return out


# ------------------------------------------------------------------------- source builds (name, version, source)

class SourceBuild(NamedTuple):
    """One distribution the warm-up builds from source: two versions (or two sources) of a package are two
    builds, never one row under the package's name."""
    name: str
    version: str | None
    source_kind: str
    source: str
    extras: tuple[str, ...]        # the warm steps' extras whose install set holds this build, in warm order

    @property
    def key(self) -> tuple[str, str | None, str]:
        return self.name, self.version, self.source


_SOURCE_BUILDS = Memo()


def source_builds(model: "ImageModel") -> tuple[SourceBuild, ...]:
    """Every source build the warm steps install, by (name, version, source), sorted by that key."""
    return _SOURCE_BUILDS.answer(model, "source builds", lambda: _compute_source_builds(model))


def _compute_source_builds(model: "ImageModel") -> tuple[SourceBuild, ...]:
    found: dict[tuple, tuple[SnapshotPackage, list[str]]] = {}
    for step in model.warm_steps:
        try:
            packages = installed(model, step.extras).values()
        except InputError:
            continue
        for pkg in packages:
            if pkg.source_built and not pkg.editable:
                entry = found.setdefault((pkg.name, pkg.version or "", pkg.source), (pkg, []))
                entry[1].extend(e for e in step.extras if e not in entry[1])
    return tuple(SourceBuild(p.name, p.version, p.source_kind, p.source, tuple(extras))
                 for _, (p, extras) in sorted(found.items()))


def builds_of(model: "ImageModel", name: str) -> tuple[SourceBuild, ...]:
    """The source builds of one package (normalised name): more than one when versions or sources differ."""
    wanted = normalize(name)
    return tuple(b for b in source_builds(model) if b.name == wanted)


_SPOKEN = Memo()


def spoken_packages(model: "ImageModel") -> frozenset[str]:
    """The packages prose calls by name: the source builds, the packages with a short name (ALIASES) and the
    lock's notable packages (a lock also holds packages called `build` or `wheel`). The fact base names them
    in prose, and a sentence's build claims are judged of them."""
    return _SPOKEN.answer(model, "spoken", lambda: frozenset(
        {b.name for b in source_builds(model)} | set(ALIASES.values()) | set(NOTABLE_PACKAGES)))


def build_claim_problems(model: "ImageModel", package: str, *, from_source: bool, shared: bool, once: bool,
                         unique: bool) -> list[str | None]:
    """What a sentence says of a package's builds, against the source builds (by name, version and source)
    and the warm steps' install sets: per claim made (built from source; shared between warmed extras; built
    once; exactly one version), None when the model bears it out, else what the model gives instead."""
    builds = builds_of(model, package)
    shared_builds = {s.package for s in model.shared_builds}
    problems: list[str | None] = []
    if from_source:
        problems.append(None if builds else f"no warm step builds {package} from source (the lock gives a prebuilt "
                                            "distribution, or no warmed extra installs it)")
    if shared:
        problems.append(None if package in shared_builds else f"{package} is no source build shared between warmed "
                                                              f"extras (shared: {', '.join(sorted(shared_builds)) or 'none'})")
        if once and len(builds) > 1:
            problems.append(_several(package, _pairs(builds)))
    if unique:
        versions = _pairs(builds) or _versions(model, package)
        problems.append(None if len(versions) == 1 else _several(package, versions))
    return problems


def extras_installing(model: "ImageModel", package: str) -> list[str]:
    """The extras NeMo-RL defines whose own install set holds `package`, in their order."""
    return _BY_PACKAGE.answer(model, "extras", lambda: _extras_by_package(model)).get(normalize(package), [])


_BY_PACKAGE = Memo()


def _extras_by_package(model: "ImageModel") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for extra in model.extras_defined:
        try:
            names = installed(model, (extra,))
        except InputError:   # an extra the snapshot holds no install set of: it says nothing here
            continue
        for name in names:
            out.setdefault(name, []).append(extra)
    return out


def only_in_problem(model: "ImageModel", package: str, named: "Collection[str]") -> str | None:
    """What is false of "`package` is installed (built) only by the extras `named`", against the install set of
    each extra NeMo-RL defines; None when the lock bears it out."""
    installing = extras_installing(model, package)
    if not installing:
        return f"no extra installs {package}"
    others = [e for e in installing if e not in named]
    if others or not set(named) & set(installing):
        return f"the lock installs {package} with the extras {', '.join(installing)}"
    return None


def _pairs(builds: tuple[SourceBuild, ...]) -> list[tuple]:
    return [(b.version or b.name, b.source or b.version) for b in builds]


def _versions(model: "ImageModel", package: str) -> list[tuple]:
    """The distinct (version, source) of a prebuilt package across the warm steps' install sets."""
    seen = set()
    for step in model.warm_steps:
        try:
            pkg = package_in(model, package, step.extras)
        except InputError:
            continue
        if pkg is not None:
            seen.add((pkg.version, pkg.source))
    return sorted(seen, key=str)


def _several(package: str, builds: list[tuple]) -> str:
    listed = ", ".join(f"{version} ({source})" for version, source in builds)
    return f"the warm steps install {len(builds)} distinct {package} builds: {listed}"


def _mentions(text: str, label: str, suffixes: tuple[str, ...] = ("",)) -> bool:
    """Whether `text` names `label` as a word: a word boundary (as regex `\\b`) before it, and after it one of
    `suffixes` (the possessive forms "vllm's", "vllm'") and another boundary. A str scan, not a regex per
    label: each one compiled cost more than the search."""
    at = text.find(label)
    while at >= 0:
        end = at + len(label)
        if _boundary(text, at) and any(text.startswith(s, end) and _boundary(text, end + len(s)) for s in suffixes):
            return True
        at = text.find(label, at + 1)
    return False


def _boundary(text: str, at: int) -> bool:
    """Regex `\\b` at `at`: a word character (letter, digit or `_`) on exactly one side."""
    return (at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")) != \
        (at < len(text) and (text[at].isalnum() or text[at] == "_"))


def _reaches(model: "ImageModel", step, package: str) -> bool:
    """Whether the step's install set has the package (the base set for the base and all-groups syncs,
    as the warm-steps table counts them)."""
    try:
        return package_in(model, package, step.extras) is not None
    except InputError:  # an extra combination the snapshot lacks: reported where the model needs it
        return False


# ------------------------------------------------------------------------------------ names pages may use

class KnownNames(NamedTuple):
    classes: frozenset[str]
    fqns: frozenset[str]
    modules: frozenset[str]
    extras: frozenset[str]
    variables: frozenset[str]


def known_names(model: "ImageModel") -> KnownNames:
    fqns = {a.fqn for a in model.actors}
    modules: set[str] = set()
    for fqn in fqns:
        parts = fqn.split(".")
        modules.update(".".join(parts[:i]) for i in range(1, len(parts)))
    variables = {a.name for a in model.dockerfile.args} | {e.key for e in model.dockerfile.envs}
    variables |= set(model.snapshot.registry.executables) | set(NEMO_RL_KNOBS) | set(DOCKERFILE_KEYWORDS)
    variables |= {name for run in model.dockerfile.runs for name in run.variables}
    variables |= {name for q in model.quoted for name, _, _ in assignments(q.text, q.path)}   # a bake variable
    return KnownNames(frozenset(a.class_name for a in model.actors), frozenset(fqns), frozenset(modules),
                      frozenset(model.extras_defined), frozenset(variables))


# ---------------------------------------------------------------------------------------- runtime identity



def runtime_user(model: "ImageModel") -> tuple[str, str]:
    """(uid, gid) the published image runs as: its USER as BuildKit expands it (root, "0", when no USER of
    the Dockerfile sets one; the group defaults to the uid's own number)."""
    return _numeric(model.dockerfile.user(published_stage(model))[0], model.dockerfile.path)


# ------------------------------------------------------------------------------------------------ lookup

_INSTALLED = Memo()   # per snapshot: the install set of each set of extras, by package name


def installed(model: "ImageModel", extras) -> dict:
    """The install set of `extras` by package name, built once per snapshot and set of extras."""
    snap = model.snapshot
    return _INSTALLED.answer(snap, combo_key(extras), lambda: {p.name: p for p in snap.install_set(extras)})


def package_in(model: "ImageModel", name: str, extras) -> "SnapshotPackage | None":
    """`model.snapshot.package(name, extras)` through the per-model index: the prose blocks and values ask
    it for every venv, and walking an install set of ~500 packages each time cost more than their rendering."""
    return installed(model, extras).get(normalize(name))


# ----------------------------------------------------------------------------------- venv directory mode

_CHMOD = re.compile(r"^\s*chmod\s+([0-7]{3,4})\s+(.+?)\s*$", re.M)
_CHGRP = re.compile(r"^\s*chgrp\s+(\S+)\s+(.+?)\s*$", re.M)
_INSTALL_DIR = re.compile(r"^\s*install\s+-d\s+(.+?)\s*$", re.M)


def build_user(model: "ImageModel") -> tuple[str, str]:
    """(uid, gid) that creates the heavy artifacts: the USER in force where the actor prefetch runs
    ("0", "0": root, when the Dockerfile switches to no other user before it)."""
    calls = model.dockerfile.prefetch_calls
    if not calls:
        return "0", "0"
    return _numeric(model.dockerfile.user(calls[0].line)[0], model.dockerfile.path)


def _numeric(user: "str | object", path: str) -> tuple[str, str]:
    """`uid[:gid]` as stat prints it; root is the one name every image resolves the same way. Where no USER of
    the Dockerfile (`path`) sets one, the facts say UNKNOWN (the base image's config may name a user); the
    pages state Docker's default, root, as they always have."""
    if not isinstance(user, str):
        user = "root"
    uid, _, gid = user.replace('"', "").partition(":")
    uid, gid = ("0" if uid == "root" else uid), ("0" if gid == "root" else gid)
    return uid, gid or uid


def venv_dir_access(model: "ImageModel") -> tuple[str, str, str]:
    """(owner, group, mode string) of the venv directory as the build leaves it: the last `install -d`,
    plain `chmod NNNN` or `chgrp G` in any RUN naming it (root's and 0755 when none does)."""
    owner, group, mode = "0", "0", 0o755
    for ins in model.dockerfile.instructions:
        if ins.keyword != "RUN":
            continue
        body = model.dockerfile.expand("".join(h.body for h in ins.heredocs) or ins.args, ins, shell=True)
        body = body.replace('"', "")
        for m in _INSTALL_DIR.finditer(body):
            words = m.group(1).split()
            paths = [w for i, w in enumerate(words) if not w.startswith("-") and (i == 0 or words[i - 1] not in
                                                                                   ("-o", "-g", "-m"))]
            if model.venv_dir not in paths:
                continue
            for flag, value in zip(words, words[1:]):
                if flag == "-o":
                    owner = value
                elif flag == "-g":
                    group = value
                elif flag == "-m" and len(value) in (3, 4) and not value.strip("01234567"):  # an octal mode
                    mode = int(value, 8)
        for m in _CHMOD.finditer(body):
            if model.venv_dir in m.group(2).split():
                mode = int(m.group(1), 8)
        for m in _CHGRP.finditer(body):
            if model.venv_dir in m.group(2).split():
                group = m.group(1)
    return owner, group, stat.filemode(stat.S_IFDIR | mode)
