"""The fact base: every fact the inputs state, once, each with a subject, a value and its origin.

A fact is what a hand-written sentence may name and what `docgen check` holds it to. Each *kind* of fact is
declared once below (`KINDS`): how prose names its subjects, which words name the kind itself ("uid", "runs
as"), and what a stated value of it looks like (a version, a count, a path, an id). Nothing here knows a page,
a sentence or one particular value: the facts come from the model (the Dockerfile as BuildKit evaluates it, the
snapshot of NeMo-RL) and from the other files of the repository the configuration names as quoted (`quoted` in
`[tool.docgen]`), read as assignments.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.model.claims import ALIASES, ARG_ALIASES, build_user, runtime_user, source_builds
from docgen.model.stages import published_stage
from docgen.names import normalize
from docgen.records import Memo
from docgen.snapshot.load import NOTABLE_PACKAGES

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from docgen.model import ImageModel

# What a stated value of a kind looks like in a sentence. `version` also takes a range's bounds.
VERSION = "version"
COUNT = "count"
PATH = "path"
ID = "id"
TEXT = "text"          # a value compared only when the sentence spells it (a base image, a list)


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
    FactKind("package", "a package the image installs, with its version (the lock, per warmed extra)", VERSION,
             ("version", "versions", "pinned", "pin", "release")),
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
    FactKind("path", "a path in the image (venvs, caches, the checkout)", PATH),
    FactKind("script", "a script a build step runs", TEXT, ("script",)),
    FactKind("run-var", "a variable a build step sets for its own commands (`export NAME=value` in a RUN)", TEXT),
    FactKind("quoted", "a value assigned in another file of the repository the configuration names (a shell "
             "variable, a bake variable's default, a bake target)", TEXT),
)}


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


_BASE = Memo()


def fact_base(model: "ImageModel", quoted: "Mapping[str, str] | None" = None) -> FactBase:
    """Every fact of the model (and of the quoted files), once per model."""
    quoted = dict(quoted or {})
    key = "facts:" + "\0".join(f"{k}\0{v}" for k, v in sorted(quoted.items()))
    return _BASE.answer(model, key, lambda: FactBase(tuple(_dedupe(_facts(model, quoted)))))


def _dedupe(facts: "Iterable[Fact]") -> list[Fact]:
    """One fact per key: a subject stated twice (an ARG declared in two stages) keeps every distinct value."""
    out: dict[str, Fact] = {}
    for f in facts:
        old = out.get(f.key)
        if old is None:
            out[f.key] = f
        elif f.value not in old.value.split(" | "):
            out[f.key] = old._replace(value=f"{old.value} | {f.value}", names=tuple(dict.fromkeys(old.names + f.names)),
                                      prose=tuple(dict.fromkeys(old.prose + f.prose)))
    return list(out.values())


def _facts(model: "ImageModel", quoted: dict[str, str]) -> "Iterable[Fact]":
    df = model.dockerfile
    path = df.path
    arg_aliases: dict[str, list[str]] = {}
    for alias, name in ARG_ALIASES.items():
        arg_aliases.setdefault(name, []).append(alias)
    for arg in df.args:
        if arg.default is not None:
            yield Fact("arg", arg.name, arg.default, f"{path}:{arg.line}", (arg.name,),
                       (_spoken(arg.name), *arg_aliases.get(arg.name, ())))
    for env in df.envs:
        yield Fact("env", env.key, env.value, f"{path}:{env.line}", (env.key,), (_spoken(env.key),))
    for stage in df.stages:
        if stage.name:
            yield Fact("stage", stage.name, stage.base, f"{path}:{stage.line}", (stage.name,))
    published = published_stage(model)
    yield Fact("stage", "(published)", published, path, (), ("published stage", "final stage", "published image"))
    uid, gid = runtime_user(model)
    yield Fact("user", "runtime", f"{uid}:{gid}", path, ("runtime user",))
    buid, bgid = build_user(model)
    yield Fact("user", "build", f"{buid}:{bgid}", path, ("build user",))
    for arg in df.args:
        if "ARCH" in arg.name.upper() and arg.default:
            yield Fact("cuda-arch", arg.name, arg.default, f"{path}:{arg.line}", (arg.name,))
    snap = model.snapshot
    spath = snap.path
    warmed = set(model.warm_extras)
    for extra in model.extras_defined:
        state = "warmed" if extra in warmed else "not warmed"
        yield Fact("extra", extra, state, f"{spath}:{snap.line_of(extra) or 1}", (extra,))
    versions: dict[str, set[str]] = {}
    for pkg in snap.base_key_packages():
        versions.setdefault(pkg.name, set()).add(pkg.version or "?")
    for extra in model.warm_extras:
        for pkg in snap.install_set((extra,)):
            versions.setdefault(pkg.name, set()).add(pkg.version or "?")
    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    built = {b.name for b in source_builds(model)}
    for name, vs in sorted(versions.items()):
        # prose names a package by its name when it is one the docs talk about (notable, built from source, or
        # with a short name of its own); any other package only as written in code
        prose = name in NOTABLE_PACKAGES or name in built or name in aliases
        spoken = (name, *aliases.get(name, ())) if prose else ()
        yield Fact("package", name, " / ".join(sorted(vs)), f"{spath}:{snap.line_of(name) or 1}", (f"`{name}`",),
                   spoken)
    for build in source_builds(model):
        value = f"{build.version or '?'} from {build.source_kind} {build.source}; in {','.join(build.extras)}"
        yield Fact("source-build", f"{build.name} {build.version or '?'}", value, path, (f"`{build.name}`",),
                   (build.name, *aliases.get(build.name, ())))
    for actor in model.actors:
        venv = next((v for v in model.venvs if v.actor == actor.fqn), None)
        skipped = next((s for s in model.not_prefetched if s.actor == actor.fqn), None)
        if actor.is_system:
            where = "system interpreter"
        elif venv is not None:
            where = f"venv {venv.path}"
        else:
            where = "no prebuilt venv" + (f" ({skipped.reason})" if skipped else "")
        extras = ",".join(actor.extras) or "-"
        yield Fact("actor", actor.fqn, f"extras {extras}; {where}", f"{spath}:{snap.line_of(actor.fqn) or 1}",
                   (actor.fqn, actor.class_name))
    for flt in (*model.filters, *model.negative_filters):
        sign = "-" if flt.negative else ""
        yield Fact("filter", sign + flt.text, ",".join(a.rsplit(".", 1)[-1] for a in flt.actors) or "(none)",
                   f"{path}:{flt.line}", (flt.text,))
    for name, n in model.counts.items():
        if n is not None:
            yield Fact("count", name, str(n), path, ())
    for group in snap.groups:
        state = "default" if group in snap.default_groups else "not default"
        yield Fact("group", group, state, f"{spath}:{snap.line_of(group) or 1}", (group,))
    if snap.conflicts:
        sets = sorted("+".join(sorted(f"{k or 'extra'}={n}" for k, n in c)) for c in snap.conflicts)
        yield Fact("conflicts", "extras", "; ".join(sets), spath, ())
    if snap.requires_python:
        yield Fact("python", "requires-python", snap.requires_python, spath, ("requires-python",), ("python",))
    if snap.uv_required_version:
        yield Fact("uv", "required-version", snap.uv_required_version, spath, ("required-version",), ("uv",))
    paths = {model.venv_dir}
    for env in df.envs:
        if env.value.startswith("/"):
            paths.add(env.value)
    for arg in df.args:
        if arg.default and arg.default.startswith("/") and " " not in arg.default:
            paths.add(arg.default)
    for p in sorted(paths):
        yield Fact("path", p, "present", path, (p,))
    for script in _scripts(model):
        yield Fact("script", script, "run by a build step", path, (script,))
    for name, value, line in _run_vars(model):
        yield Fact("run-var", name, value, f"{path}:{line}", (name,), (_spoken(name),))
    for file, text in sorted(quoted.items()):
        for name, value, line in assignments(text):
            yield Fact("quoted", f"{file}:{name}", value, f"{file}:{line}", (name,), (_spoken(name),))
        for m in _HCL_TARGET.finditer(text):
            if not m.group(1).startswith("_"):   # a bake target a page may name (`_image`: an abstract base)
                yield Fact("quoted", f"{file}:target {m.group(1)}", "a bake target",
                           f"{file}:{text.count(chr(10), 0, m.start()) + 1}", (m.group(1),))


_RUN_VAR = re.compile(r"(?:^|[;&|]\s*|\bexport\s+)(?:export\s+)?([A-Z][A-Z0-9_]*[A-Z0-9])=([^\s;&|]*)", re.M)


def _run_vars(model: "ImageModel") -> list[tuple[str, str, int]]:
    """(name, value as written, line) of every upper-case variable a RUN step assigns for its commands."""
    out = []
    for ins in model.dockerfile.instructions:
        if ins.keyword != "RUN":
            continue
        for heredoc in ins.heredocs or ():
            for m in _RUN_VAR.finditer(heredoc.body):
                out.append((m.group(1), m.group(2).strip("\"'"), heredoc.start_line + heredoc.body.count("\n", 0, m.start())))
        if not ins.heredocs:
            for m in _RUN_VAR.finditer(ins.args):
                out.append((m.group(1), m.group(2).strip("\"'"), ins.start_line))
    return [(n, v, line) for n, v, line in out if v and not v.startswith("$")]


_SCRIPT = re.compile(r"(?<![\w$/.-])((?:[\w.-]+/)*[\w.-]+\.(?:sh|py|bash))\b")


def _scripts(model: "ImageModel") -> list[str]:
    seen: dict[str, None] = {}
    for ins in model.dockerfile.instructions:
        if ins.keyword in ("RUN", "COPY", "ADD"):
            body = ins.args + "".join(h.body for h in ins.heredocs)
            for m in _SCRIPT.finditer(body):
                seen.setdefault(m.group(1), None)
    return list(seen)


# A file of the repository the pages quote values from: shell or HCL assignments, and HCL variable defaults.
_ASSIGN = re.compile(r"""^\s*(?:export\s+|readonly\s+|local\s+)?([A-Z_][A-Z0-9_]*)\s*(=|\s=\s?)\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#;]+))""",
                     re.M)
_SHELL_DEFAULT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?[-=]([^}\n]*)\}")
_HCL_TARGET = re.compile(r'^\s*target\s+"([\w.-]+)"\s*\{', re.M)
_HCL_VARIABLE = re.compile(r'variable\s+"([A-Za-z_][\w-]*)"\s*\{[^}]*?\bdefault\s*=\s*"([^"\n]*)"', re.S)


def assignments(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) for every assignment and default in a shell script or an HCL (bake) file."""
    out: list[tuple[str, str, int]] = []
    for m in _ASSIGN.finditer(text):
        value = next(g for g in (m.group(3), m.group(4), m.group(5)) if g is not None)
        out.append((m.group(1), value, text.count("\n", 0, m.start(1)) + 1))
    for m in _SHELL_DEFAULT.finditer(text):
        out.append((m.group(1), m.group(2).strip("\"'"), text.count("\n", 0, m.start()) + 1))
    for m in _HCL_VARIABLE.finditer(text):
        out.append((m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1))
    return [(n, v, line) for n, v, line in out if not v.startswith("$")]   # "": set empty on purpose


def _spoken(name: str) -> str:
    """How prose says a variable's name: `BASE_IMAGE` is "base image", `UV_VERSION` "uv version". A name of one
    word (`PATH`, `SNAPSHOT`) is not said in prose: "path" and "snapshot" are everyday words there."""
    return name.lower().replace("_", " ") if "_" in name.strip("_") else ""


def normalized_subject(kind: str, subject: str) -> str:
    return normalize(subject) if kind in ("package", "source-build", "extra", "group") else subject
