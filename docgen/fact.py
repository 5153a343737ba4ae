"""Facts: the kinds of fact the inputs state, and the `Fact` record every reader and the model give.

A fact is what a hand-written sentence may name and what `docgen check` holds it to. Each *kind* is declared
once here (`KINDS`): the words that name its subject in prose ("uid", "runs as") and what a stated value of it
looks like (a version, a count, a path, an id). Each input owns the facts it states: `DockerfileFacts.facts`,
`Snapshot.facts`, `QuotedFile.facts`; `docgen.model.facts.fact_base(model)` adds what the model derives from
them and is the fact base every check asks. `ALIASES` and `ARG_ALIASES` are the one place that says which
short names prose and Dockerfile comments use for a package or a build argument ("TE" is transformer-engine).
Nothing here knows a page, a sentence or one particular value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.names import normalize

if TYPE_CHECKING:
    from collections.abc import Iterable

# What a stated value of a kind looks like in a sentence. `version` also takes a range's bounds.
VERSION = "version"
COUNT = "count"
PATH = "path"
ID = "id"
TEXT = "text"          # a value compared only when the sentence spells it (a base image, a list)
PARTS = "parts"        # a value of parts, each of some thing ("name source; ..."): a sentence is tied to those it states


class FactKind(NamedTuple):
    id: str
    summary: str
    shape: str                    # how a stated value of this kind looks (VERSION, COUNT, PATH, ID, TEXT)
    words: tuple[str, ...] = ()   # words that name the kind's subject in prose (lower case, whole words)


KINDS: dict[str, FactKind] = {k.id: k for k in (
    FactKind("arg", "a build argument's value where the image uses it (Dockerfile ARG)", TEXT),
    FactKind("env", "an environment variable the image sets (Dockerfile ENV)", TEXT),
    FactKind("stage", "a build stage and the image it starts from", TEXT, ("stage",)),
    FactKind("user", "the user the published image runs as, and the user that builds it", ID,
             ("user", "uid", "gid", "runs as", "run as", "root")),
    FactKind("cuda-arch", "the CUDA architectures the image compiles for", VERSION,
             ("arch", "architecture", "architectures", "compute capability", "hopper", "blackwell", "ampere",
              "ada", "sm_")),
    FactKind("extra", "a NeMo-RL extra: defined, warmed in the uv cache or not", TEXT, ("extra", "extras")),
    FactKind("requires", "what an extra requires in NeMo-RL's pyproject.toml (each required package and where it "
             "comes from: a git ref, a URL, a range), named by the extra beside the kind's words", PARTS, ("extra", "extras", "requires", "requirement", "requirements")),
    FactKind("package", "a package the image installs, with its version (the lock, per warmed extra)", VERSION,
             ("version", "versions", "pinned", "pin", "release")),
    FactKind("installs", "the extras whose install sets hold a package (named as the package is)", TEXT),
    FactKind("source-build", "a package built from source in a warm step: (name, version, source)", VERSION,
             ("built", "build", "builds", "compiled", "compiles", "from source", "shared")),
    FactKind("actor", "a NeMo-RL Ray actor: its executable, its extras and its venv (or why it has none)", TEXT),
    FactKind("filter", "a prefetch filter and the actors it selects", TEXT, ("filter", "filters")),
    FactKind("count", "a count the docs state (venvs, filters, extras, actors, stages, ...)", COUNT),
    FactKind("group", "a dependency group of NeMo-RL, and whether uv installs it by default", TEXT,
             ("group", "groups", "default group", "default groups")),
    FactKind("conflicts", "the sets of extras NeMo-RL declares as conflicting", TEXT, ("conflict", "conflicts",
                                                                                       "conflicting")),
    FactKind("python", "the Python NeMo-RL requires (requires-python), as a range", VERSION,
             ("requires-python",)),
    FactKind("uv", "the uv version NeMo-RL requires ([tool.uv] required-version), as a range", VERSION,
             ("required-version",)),
    FactKind("venv", "what the driver's venv holds after the build (the last warm sync's selection)", TEXT),
    FactKind("path", "a path in the image (venvs, caches, the checkout)", PATH),
    FactKind("location", "where the image keeps a thing (the uv cache, the worker venvs, the NeMo-RL tree), "
             "named by the words prose uses for it", PATH),
    FactKind("script", "a script a build step runs", TEXT, ("script",)),
    FactKind("runs", "a program a stage's build steps run, with each command line they run it with, named by the "
             "program as code (`chmod`)", TEXT),
    FactKind("removed", "a path a build step removes (`rm` in a RUN), with the stage and all that stage removes", TEXT,
             ("removes", "removed", "remove", "removing", "deletes", "deleted", "delete")),
    FactKind("copy", "a path a COPY takes from its source, or leaves out (`--exclude`), named only beside the "
             "kind's words (`pyproject.toml` is named everywhere)", TEXT,
             ("copy", "copies", "copied", "copying", "exclude", "excludes", "excluded", "left out", "leaves out")),
    FactKind("lock-versions", "a package NeMo-RL's lock holds at more than one version (extras that pin "
             "different ones); named by no word of its own, read by what a sentence says of the package", TEXT),
    FactKind("owner", "who owns a path of the image (the last `COPY --chown` to it or `chown` of it), named by the "
             "path and, for a place the image keeps things, by the words prose names it by", TEXT),
    FactKind("source-file", "a file of NeMo-RL the snapshot is read from (the actor registry's module)", TEXT),
    FactKind("run-var", "a variable a build step sets for its own commands (`export NAME=value` in a RUN)", TEXT),
    FactKind("quoted", "a value assigned in another file of the repository the configuration names (a shell "
             "variable, a bake variable's default, a literal attribute of a bake target)", TEXT),
    FactKind("target", "a bake target and the names of the attributes it sets itself, or a group and the targets "
             "it builds: a sentence naming it speaks of what it does, so it is tied to them", TEXT, ("target", "targets")),
    FactKind("option", "a long option a script passes to a program (the value), named only in a sentence that "
             "names that program", TEXT),
    FactKind("exit", "the exit statuses a script ends with (its `exit N` commands), named by the script's name "
             "only beside the kind's words", TEXT, ("exit", "exits", "exited", "exit code", "exit codes", "exit status",
                                                     "exit statuses")),
    FactKind("comment", "a sentence of such a file's comments, named by a sentence that repeats six words of it "
             "in a row (a page copying what a script says of itself)", TEXT),
)}


# Short names -> the package (normalised) they stand for. Lower-case keys; matched as whole words.
ALIASES: dict[str, str] = {
    "te": "transformer-engine",
    "transformer-engine": "transformer-engine",
    "transformerengine": "transformer-engine",
    "vllm": "vllm",
    "deep_ep": "deep-ep",
    "deepep": "deep-ep",
    "deep_gemm": "deep-gemm",
    "modelopt": "nvidia-modelopt",
    "flashinfer": "flashinfer-python",
    "megatron-core": "megatron-core",
    "nvrx": "nvidia-resiliency-ext",
}

# Names that stand for a build argument's value in prose ("Python 3.13.14", "uv 0.11.33").
ARG_ALIASES: dict[str, str] = {
    "python": "PYTHON_VERSION",
    "uv": "UV_VERSION",
    "cmake": "CMAKE_VERSION",
    "compute capability": "TORCH_CUDA_ARCH_LIST",
}


# A user or group id as a sentence states it: a number (or "root", id 0) right after a word that names a user
# ("uid 2000", "user id: 1000", "runs as root"; a colon, "=" or "(" may stand between, never a sentence's or a
# list's punctuation), "root" after "as" or "is", or "root" before "user".
_STATED_ID = re.compile(r"\b(?P<word>uid|gid|user id|group id|user|runs as|run as)[ \t]*[:=(]?[ \t]*\b(?P<id>\d{1,7}|root)\b"
                        r"|\b(?:as|is)\s+(?P<as>root)\b|\b(?P<before>root)(?= user\b)", re.IGNORECASE)


def stated_ids(text: str) -> list[tuple[int, str, str, str]]:
    """(offset of the id, the id as written (digits, or "root": id 0), the word naming it, lower case ("" for
    "as root"), the words as written) of each user or group id `text` states: the one reading of a stated id
    for the prose lint (a uid typed by hand) and the mentions (a uid the user facts do not have). A number
    with a leading zero is a mode (umask 022), not an id."""
    out = []
    for m in _STATED_ID.finditer(text):
        group = "id" if m["id"] else "as" if m["as"] else "before"
        said = m[group].lower()
        if len(said) > 1 and said.startswith("0"):
            continue
        out.append((m.start(group), said, (m["word"] or "").lower(), m[0]))
    return out


class Fact(NamedTuple):
    kind: str
    subject: str                  # what the fact is about ("UV_VERSION", "vllm", an actor's FQN)
    value: str                    # its value as text (compared and recorded)
    origin: str                   # file:line where an input states it
    names: tuple[str, ...] = ()   # the strings that name it as written (code, identifiers); "`x`": in code only
    prose: tuple[str, ...] = ()   # words or phrases that name it in prose, in any case ("uv", "base image")

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.subject}"


class FactBase(NamedTuple):
    facts: tuple[Fact, ...]

    def by_key(self) -> dict[str, Fact]:
        return {f.key: f for f in self.facts}


def dedupe(facts: "Iterable[Fact]") -> FactBase:
    """One fact per key: a subject stated twice (an ARG declared in two stages) keeps every distinct value."""
    out: dict[str, Fact] = {}
    for f in facts:
        old = out.get(f.key)
        if old is None:
            out[f.key] = f
        elif f.value not in old.value.split(" | "):
            out[f.key] = old._replace(value=f"{old.value} | {f.value}", names=tuple(dict.fromkeys(old.names + f.names)),
                                      prose=tuple(dict.fromkeys(old.prose + f.prose)))
    return FactBase(tuple(out.values()))


SHINGLE = 6   # words in a row that a sentence and a comment share when one copies the other


def shingle_words(text: str) -> list[str]:
    """The words of a text as shingles read them: lower-cased, punctuation and markup dropped."""
    return re.findall(r"[a-z0-9]+", text.lower())


def shingles(text: str) -> set[tuple[str, ...]]:
    """Every run of `SHINGLE` words of a text (`shingle_words`)."""
    words = shingle_words(text)
    return {tuple(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def spoken(name: str) -> str:
    """How prose says a variable's name: `BASE_IMAGE` is "base image", `UV_VERSION` "uv version". A name of one
    word (`PATH`, `SNAPSHOT`) is not said in prose: "path" and "snapshot" are everyday words there."""
    return name.lower().replace("_", " ") if "_" in name.strip("_") else ""


def version_allowed(stated: str, spec: str) -> bool | None:
    """Whether the version `stated` is allowed by the PEP 440 specifier set `spec` (`>=3.13.14,<3.14`), as
    `packaging` reads both; None when either cannot be read. A bare major.minor ("3.13") names a release
    series: it is allowed when one of its releases is."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # noqa: PLC0415  # only a stated version asks
    from packaging.version import InvalidVersion, Version  # noqa: PLC0415  # (the line above)
    try:
        allowed, version = SpecifierSet(spec), Version(stated)
    except (InvalidSpecifier, InvalidVersion):
        return None
    if allowed.contains(version, prereleases=True):
        return True
    series = len(version.release) <= 2 and version.public == version.base_version
    return series and any(allowed.contains(Version(f"{version.public}.{patch}"), prereleases=True)
                          for patch in range(100))


def normalized_subject(kind: str, subject: str) -> str:
    return normalize(subject) if kind in ("package", "source-build", "extra", "group") else subject
