"""The one fact base of a model, and the facts only the model knows (`docgen.fact` declares the kinds).

`fact_base(model)` joins the facts each input states (`DockerfileFacts.facts`, `Snapshot.facts`, and
`QuotedFile.facts` of the files the model holds as quoted) with those the model derives here: the published
stage, the users, which extras are warmed, the packages the image installs, the source builds, each actor's
extras and venv, each filter's actors and the counts. It is a function of the model, not a property of
`ImageModel`: the derived facts use the claims, which use the model's records, so the answer sits above both
and is kept per model (`Memo`), as every answer derived from a record is.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from docgen.fact import ALIASES, Fact, FactBase, dedupe
from docgen.inputs.scripts import BUILTINS, program_name
from docgen.model.claims import (LOCATIONS, build_user, extras_installing, location, runtime_user, source_builds,
                                 spoken_packages)
from docgen.model.stages import driver_contents, published_stage
from docgen.records import Memo

if TYPE_CHECKING:
    from collections.abc import Iterable
    from docgen.model import ImageModel


_BASE = Memo()


def fact_base(model: "ImageModel") -> FactBase:
    """Every fact of the model's inputs and of the model, one per key, once per model."""
    def build() -> FactBase:
        facts = (*_owners_named(model), *_derived(model), *model.snapshot.facts,
                 *(f for q in model.quoted for f in q.facts))
        return dedupe((*facts, *_programs_run(model, facts)))
    return _BASE.answer(model, "facts", build)


def _programs_run(model: "ImageModel", others: "Iterable[Fact]") -> "Iterable[Fact]":
    """Each program a stage's RUN steps run, with each command line they run it with (kind `runs`), named by
    the program as code (`chmod`) and by each of those command lines as code (`umask 022`): "there is no
    recursive `chmod`" is reviewed when a `chmod -R` comes, "every step runs with `umask 022`" when one runs
    another. Not a program another fact is named by (`uv`, a package): the build's own tools are that fact's to
    state; not a command of the shell itself that only prints, tests or assigns (`echo`, `export`)."""
    taken = {n.strip("`").lower() for f in others for n in (*f.names, *f.prose)}
    by_program: dict[tuple[str, str], dict[str, int]] = {}
    for run in model.dockerfile.runs:
        stage = run.instruction.stage or ""
        for program, arguments, line in run.invocations:
            name = program_name(program)
            if name and name not in taken and name not in BUILTINS:
                by_program.setdefault((stage, name), {}).setdefault(f"{name} {arguments}".strip(), line)
    path = model.dockerfile.path
    return [Fact("runs", f"{stage}: {name}", " | ".join(lines), f"{path}:{min(lines.values())}",
                 tuple(f"`{n}`" for n in (name, *lines)))
            for (stage, name), lines in sorted(by_program.items())]


def _owners_named(model: "ImageModel") -> "Iterable[Fact]":
    """The Dockerfile's facts, the owner of a place the image keeps things also named by that place's words
    ("the NeMo-RL tree"): a sentence about who may change it names who owns it."""
    words = {where: LOCATIONS[key] for key in LOCATIONS if (where := location(model, key))}
    for fact in model.dockerfile.facts:
        yield fact._replace(prose=words.get(fact.subject, ())) if fact.kind == "owner" else fact


def _derived(model: "ImageModel") -> "Iterable[Fact]":
    path = model.dockerfile.path
    published = published_stage(model)
    yield Fact("stage", "(published)", published, path, (), ("published stage", "final stage", "published image"))
    uid, gid = runtime_user(model)
    yield Fact("user", "runtime", f"{uid}:{gid}", path, ("runtime user",))
    buid, bgid = build_user(model)
    yield Fact("user", "build", f"{buid}:{bgid}", path, ("build user",))
    yield Fact("path", model.venv_dir, "present", path, (model.venv_dir,))
    contents = driver_contents(model)
    if contents:   # what the last warm sync leaves in the driver's venv
        yield Fact("venv", "driver", contents, path, (), ("driver venv", "base venv", "main venv", "driver's venv"))
    for key, words in LOCATIONS.items():
        where = location(model, key)
        if where:
            yield Fact("location", key.replace("_", " "), where, path, (), words)
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
    builds = source_builds(model)
    in_prose = spoken_packages(model)
    for name, vs in sorted(versions.items()):
        # prose names a package by its name when it is one the docs talk about (notable, built from source, or
        # with a short name of its own); any other package only as written in code
        spoken = (name, *aliases.get(name, ())) if name in in_prose else ()
        yield Fact("package", name, " / ".join(sorted(vs)), f"{spath}:{snap.line_of(name) or 1}", (f"`{name}`",),
                   spoken)
        # which extras install it: a sentence naming it beside one of them ("automodel adds DeepEP") says so
        yield Fact("installs", name, ", ".join(extras_installing(model, name)) or "-",
                   f"{spath}:{snap.line_of(name) or 1}", (f"`{name}`",), spoken)
    for build in builds:
        value = f"{build.version or '?'} from {build.source_kind} {build.source}; in {','.join(build.extras)}"
        yield Fact("source-build", f"{build.name} {build.version or '?'}", value, path, (f"`{build.name}`",),
                   (build.name, *aliases.get(build.name, ())))
    system_variant = {a.fqn: a for a in model.actors_system}
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
        # what the registry gives it under NEMO_RL_PY_EXECUTABLES_SYSTEM=1: the system interpreter or its `uv run`
        flagged = system_variant.get(actor.fqn)
        under_flag = "" if flagged is None else "; system-flag " + (
            "sys.executable" if flagged.is_system else f"uv run, extras {','.join(flagged.extras) or '-'}")
        # prose says an actor by its class name's words ("the DTensor policy worker"), and a family of actors by
        # a run of those words before its noun ("the generation workers", "the Megatron workers")
        said = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", actor.class_name).lower()
        parts = said.split()
        noun = max((i for i, w in enumerate(parts) if w in ("worker", "actor")), default=0)
        family = tuple(f"{' '.join(parts[i:j])} {parts[noun]}s" for i in range(noun) for j in range(i + 1, noun + 1))
        # where its registry line comes from: upstream NeMo-RL, or the fork the image builds ("this fork adds")
        origin = f"; source {actor.source}" if actor.source else ""
        yield Fact("actor", actor.fqn, f"extras {extras}; {where}{under_flag}{origin}", f"{spath}:{snap.line_of(actor.fqn) or 1}",
                   (actor.fqn, actor.class_name), (said, said + "s", *family) if " " in said else ())
    for flt in (*model.filters, *model.negative_filters):
        sign = "-" if flt.negative else ""
        yield Fact("filter", sign + flt.text, ",".join(a.rsplit(".", 1)[-1] for a in flt.actors) or "(none)",
                   f"{path}:{flt.line}", (flt.text,))
    for name, n in model.counts.items():
        if n is not None:
            yield Fact("count", name, str(n), path, ())
