"""Markdown tables over the image model: one small pure function per generator (see generators.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docgen.errors import ArgError
from docgen.model import DEFAULT_GYM_VENV_DIR, REASON_NOT_SELECTED, REASON_SYSTEM, venv_path
from docgen.model.build import venv_dir_of
from docgen.model.claims import build_claims, installed
from docgen.model.cross import arch_names, capabilities, without_arch_names
from docgen.model.stages import (
    base_of, base_venv, build_arg_value, copy_edges, driver_contents, published_stage, runtime_envs, stage_at, stage_label,
)
from docgen.render.markdown import code, short_fqn, table, text
from docgen.render.size_chart import not_current_note, size_charts
from docgen.render.values import TE_PACKAGE

if TYPE_CHECKING:
    from docgen.model import Actor, ImageModel
    from docgen.snapshot.load import SnapshotPackage

NONE = "—"




def _codes(items) -> str:
    return ", ".join(code(i) for i in items) or NONE


def _extra_column(extras) -> str:
    return _codes(extras) if extras else "(base)"


def _how(pkg) -> str:
    kind = "editable" if pkg.editable else pkg.source_kind
    return f"{kind}, built from source" if pkg.source_built and not pkg.editable else kind


# ---------------------------------------------------------------------------------------------- overview

def quick_inventory(model: "ImageModel") -> str:
    uv_actors = [a for a in model.actors if not a.is_system]
    rows = [
        ("Published stage", code(published_stage(model))),
        ("Driver venv", code(base_venv(model))),
        ("Worker venvs", f"{len(model.venvs)} in {code(model.venv_dir)}, one per actor"),
        ("Gym environment venvs", _gym_summary(model)),
        ("Prefetch filters", str(len(model.filters))),
        ("Extras warmed in the uv cache", _codes(model.warm_extras)),
        ("Extras not warmed", _codes(model.extras_not_warmed)),
        ("Registry actors", f"{len(model.actors)} ({len(uv_actors)} under uv, "
                            f"{len(model.system_actors)} on the system interpreter)"),
        ("Actors without a prebuilt venv", str(len(model.not_prefetched))),
        ("Source builds shared between extras",
         ", ".join(f"{code(s.package)} ({' → '.join(s.extras)})" for s in model.shared_builds) or NONE),
        ("Installed into the driver venv after the syncs",
         _driver_summary(model)),
    ]
    return table(("What", "In the image"), rows)


def _requirement(install) -> str:
    return install.package + (install.pin if install.pin and install.pin[0] in "=<>!~" else
                              f" @ {install.pin}" if install.pin else "")


def _driver_summary(model: "ImageModel") -> str:
    out = []
    for d in model.driver_installs:
        how = [w for w, on in (("editable", d.editable), ("`--no-deps`", d.no_deps)) if on]
        out.append(code(_requirement(d)) + (f" ({', '.join(how)})" if how else ""))
    return ", ".join(out) or NONE


def _gym_default(g) -> str:
    if g.arg is None:
        return f"{len(g.configs)} configs, written in the call"
    if not g.configs:
        return f"`{g.arg}` empty by default: off"
    return f"`{g.arg}` names {len(g.configs)} config{'s' if len(g.configs) != 1 else ''} by default"


def _gym_count(g) -> str:
    if g.venvs_by_default == 0:
        return "0"
    return f"one per environment server of {len(g.configs)} config{'s' if len(g.configs) != 1 else ''}"


def _gym_summary(model: "ImageModel") -> str:
    if not model.gym:
        where = venv_dir_of(model.dockerfile, "NEMO_GYM_VENV_DIR", DEFAULT_GYM_VENV_DIR)
        return f"0 prefetched (no NeMo-Gym prefetch); NeMo-Gym creates them in {code(where)} at run time"
    counts = [_gym_count(g) for g in model.gym]
    total = counts[0] if len(counts) == 1 else " + ".join(counts)
    args = ", ".join(dict.fromkeys(code(g.arg) for g in model.gym if g.arg)) or "the call's configs"
    return f"{total} by default in {code(model.gym[0].venv_dir)}, one per environment server; driven by {args}"


def venv_layers(model: "ImageModel") -> str:
    """Both venv layers side by side: what builds each, what drives it, how many venvs a default build has."""
    calls = model.dockerfile.prefetch_calls
    scripts = ", ".join(dict.fromkeys(code(c.script) for c in calls)) or NONE
    rows = [("Ray worker venvs", code(model.venv_dir), scripts,
             f"{len(model.filters)} prefetch filters" if calls else "no actor prefetch in the image",
             str(len(model.venvs)))]
    for g in model.gym:
        rows.append(("NeMo-Gym environment venvs", code(g.venv_dir), code(g.script), _gym_default(g), _gym_count(g)))
    if not model.gym:
        where = venv_dir_of(model.dockerfile, "NEMO_GYM_VENV_DIR", DEFAULT_GYM_VENV_DIR)
        rows.append(("NeMo-Gym environment venvs", code(where), "NeMo-Gym at run time (no prefetch in the image)",
                     NONE, "0"))
    return table(("Layer", "Directory", "Built by", "Driven by", "Venvs in a default build"), rows)


def driver_installs(model: "ImageModel") -> str:
    """What `uv pip install` adds to the driver venv after the syncs, with the Dockerfile's reason."""
    if not model.driver_installs:
        return "Nothing is installed into the driver venv beyond the syncs.\n"
    rows = [(code(d.package), code(d.pin) if d.pin else NONE, "yes" if d.editable else "no",
             "yes" if d.no_deps else "no", text(d.reason) if d.reason else NONE) for d in model.driver_installs]
    return table(("Package", "Pin", "Editable", "`--no-deps`", "Why (the Dockerfile's comment)"), rows)


def image_inventory(model: "ImageModel") -> str:
    edges = copy_edges(model)
    rows = []
    for stage in model.dockerfile.stages:
        label = stage_label(stage)
        base, is_stage = base_of(model, stage)
        builds = []
        for ins in stage.instructions:
            if ins.keyword == "ADD":
                builds.append(f"adds {code(ins.args.split()[-2] if len(ins.args.split()) > 1 else ins.args)}")
        steps = [s for s in model.warm_steps if stage_at(model, s.line) == label]
        if steps:
            builds.append("warms the uv cache: " + ", ".join(code(s.label) for s in steps))
        if model.filters and stage_at(model, model.filters[0].line) == label:
            builds.append(f"prefetches {len(model.venvs)} worker venvs into {code(model.venv_dir)}")
        for g in model.gym:
            if stage_at(model, g.line) == label:
                count = "none by default" if g.venvs_by_default == 0 else _gym_count(g) + " by default"
                driven = f" when {code(g.arg)} names configs" if g.arg else ""
                builds.append(f"prefetches NeMo-Gym environment venvs into {code(g.venv_dir)}{driven} ({count})")
        installs = [d for d in model.driver_installs if stage_at(model, d.line) == label]
        if installs:
            builds.append("installs " + ", ".join(code(d.package) for d in installs) + " into the driver venv")
        for edge in edges:
            if edge.target == label:
                builds.append(f"copies {', '.join(code(p) for p in edge.paths)} from {code(edge.source)}")
        if label == published_stage(model):
            builds.append("the published image")
        rows.append((code(label), ("stage " if is_stage else "") + code(base), "; ".join(builds) or NONE))
    out = table(("Stage", "FROM", "What it builds"), rows)
    extras = [(code(e), "warmed" if e in model.warm_extras else "not warmed",
               _extra_users(model, e)) for e in model.extras_defined]
    bare = sum(1 for a in model.actors if not a.extras)
    said = (f"\nEach of the {len(model.extras_defined)} extras NeMo-RL defines, with the registry actors that run "
            f"with it (an actor with several extras is under each); the {bare} actors with no extra are in none "
            "of the rows.\n\n")
    return out + said + table(("Extra", "In the image", "Actors that run with it"), extras)


def _extra_users(model: "ImageModel", extra: str) -> str:
    names = [text(a.class_name) for a in model.actors if extra in a.extras]
    return ", ".join(names) or NONE


def warm_steps(model: "ImageModel") -> str:
    """One row per warm step. What it compiles comes from the lock (the first step whose install set reaches
    a source build builds it); the Dockerfile comment is shown as colour, unless its build/reuse claim
    contradicts the lock, so this table and the shared-builds table cannot disagree."""
    wrong = {c.line for c in build_claims(model) if c.problem}
    seen: set[str] = set()
    rows = []
    for n, step in enumerate(model.warm_steps, 1):
        command = "uv sync " + " ".join([f"--extra {e}" for e in step.extras] + list(step.flags))
        users = [v.class_name for v in model.venvs if set(step.extras) & set(v.extras)]
        built = sorted(p.name for p in installed(model, step.extras).values()
                       if p.source_built and not p.editable and p.name not in seen)
        seen.update(built)
        why = ("(its comment contradicts the lock: see `docgen check`)" if step.line in wrong
               else text(step.comment) if step.comment else NONE)
        rows.append((n, code(command), code(step.label), why, _codes(built), ", ".join(map(text, users)) or NONE))
    return table(("#", "Command", "Warms", "Why", "Compiles first", "Prefetched venvs using it"), rows)


# ---------------------------------------------------------------------------------------- actors, venvs

def _skip_reason(model: "ImageModel", actor: "Actor", reasons: dict[str, str]) -> str:
    if actor.is_system:
        return REASON_SYSTEM
    return text(reasons.get(actor.fqn, REASON_NOT_SELECTED))


def actor_mapping(model: "ImageModel", variant: str = "default") -> str:
    actors, venvs = (model.actors, model.venvs) if variant == "default" else (model.actors_system, model.venvs_system)
    by_actor = {v.actor: v for v in venvs}
    reasons: dict[str, str] = {}
    for skipped in model.not_prefetched:   # the first reason recorded for an actor wins
        reasons.setdefault(skipped.actor, skipped.reason)
    rows = []
    for actor in actors:
        venv = by_actor.get(actor.fqn)
        prefetched = ("yes, filter " + ", ".join(code(f) for f in venv.filters)) if venv else \
            "no: " + _skip_reason(model, actor, reasons)
        rows.append((code(short_fqn(actor.fqn)), code(actor.member) if actor.member else "(inline)",
                     _extra_column(actor.extras) if not actor.is_system else NONE,
                     code(venv.path) if venv else NONE, prefetched))
    return table(("Actor", "PY_EXECUTABLES", "Extras", "Venv", "Prefetched"), rows)


def filter_table(model: "ImageModel") -> str:
    """One row per filter; when the Dockerfile keeps a `filter -> extra (why)` comment table, its reasons
    get a column of their own."""
    why = {row.filter: row.why for row in model.dockerfile.mapping}
    rows = [(code(f.text), ", ".join(code(short_fqn(a)) for a in f.actors) or "(nothing)", _codes(f.extras))
            + ((text(why[f.text]) if why.get(f.text) else NONE,) if why else ()) for f in model.filters]
    rows += [(code(f.text) + " (negative)", ", ".join(code(short_fqn(a)) for a in f.actors) or "(nothing)",
              "removed after matching") + ((NONE,) if why else ()) for f in model.negative_filters]
    headers = ("Filter", "Matched actors", "Extras") + (("Why (the Dockerfile's comment)",) if why else ())
    return table(headers, rows)


def venv_inventory(model: "ImageModel") -> str:
    rows = [(code(base_venv(model)), "driver (`uv run` on the head node)", f"(base, {driver_contents(model) or 'nothing synced'})",
             "at image build")]
    rows += [(code(v.path), text(v.class_name), _extra_column(v.extras), "at image build") for v in model.venvs]
    rows += [(code(venv_path(model.venv_dir, s.actor)), text(s.class_name), _extra_column(s.extras),
              "on the node at first use") for s in model.not_prefetched]
    for g in model.gym:
        when = (f"at image build when {code(g.arg)} names configs (none by default)" if g.venvs_by_default == 0
                else f"at image build, {_gym_count(g)}")
        rows.append((code(f"{g.venv_dir.rstrip('/')}/<server>"), "NeMo-Gym environment server",
                     "(the server's own requirements)", when))
    gym = f", and {len(model.gym)} row(s) for the NeMo-Gym environment venvs" if model.gym else ""
    said = (f"{len(rows)} rows: the driver venv, the {len(model.venvs)} prefetched worker venvs, the "
            f"{len(model.not_prefetched)} worker venvs built on the node at first use{gym}. The "
            f"{len(model.system_actors)} actors that run on the system interpreter have no venv of their own and "
            "no row.\n\n")
    return said + table(("Venv", "Used by", "Extras", "Built"), rows)


def not_prefetched(model: "ImageModel") -> str:
    rows = [(code(short_fqn(s.actor)), _extra_column(s.extras), text(s.reason)) for s in model.not_prefetched]
    return table(("Actor", "Extras", "Why it has no prebuilt venv"), rows)


# --------------------------------------------------------------------------------------------- packages

def _check_extra(model: "ImageModel", extra: str) -> None:
    if extra not in model.extras_defined:
        raise ArgError(f"NeMo-RL defines no extra {extra!r} (it has {', '.join(model.extras_defined)})")


def extra_packages(model: "ImageModel", extra: str | None = None) -> str:
    if extra is not None:
        _check_extra(model, extra)
        rows: list[tuple[str, ...]] = [(code(p.name), code(p.version or NONE), _how(p))
                                       for p in model.key_packages(extra)]
        return table(("Package", "Version", "Installed as"), rows)
    rows = [(code(e), code(p.name), code(p.version or NONE), _how(p))
            for e in model.warm_extras for p in model.key_packages(e)]
    return table(("Extra", "Package", "Version", "Installed as"), rows)


def source_builds(model: "ImageModel") -> str:
    rows = []
    for extra in model.warm_extras:
        for pkg in model.snapshot.install_set([extra]):
            if pkg.source_built and not pkg.editable:
                rows.append((code(extra), code(pkg.name), code(pkg.version or NONE), pkg.source_kind, code(pkg.source)))
    return table(("Extra", "Package", "Version", "Source kind", "Source"), rows)


def shared_builds(model: "ImageModel") -> str:
    rows = [(code(s.package), code(s.version or NONE), code(s.source), code(s.extras[0]),
             ", ".join(code(e) for e in s.extras[1:])) for s in model.shared_builds]
    return table(("Package", "Version", "Source", "Built by (first warm)", "Reused by"), rows)


def editable_sources(model: "ImageModel") -> str:
    found: dict[str, SnapshotPackage] = {}
    users: dict[str, list[str]] = {}
    for extra in ("",) + tuple(model.warm_extras):
        for pkg in model.snapshot.install_set([extra] if extra else []):
            if pkg.editable:
                found.setdefault(pkg.key, pkg)
                users.setdefault(pkg.key, []).append(extra or "(base)")
    rows = [(code(p.name), code(p.version or NONE), code(p.source), ", ".join(users[k]))
            for k, p in sorted(found.items(), key=lambda kv: kv[1].name)]
    return table(("Package", "Version", "Path in the checkout", "Extras"), rows)


def mcore_adds(model: "ImageModel", extra: str = "mcore", over: str = "automodel") -> str:
    """Notable packages the `extra` install set has and the `over` set lacks, and whether any other warmed
    extra has them; the many small dependencies that come along are counted, not listed."""
    _check_extra(model, extra)
    _check_extra(model, over)
    if extra not in model.warm_extras:
        # one fact, one rendering: an extra the image does not warm adds nothing to its uv cache
        return (f"`{extra}` is not warmed in the image: its packages are not in the uv cache, and an actor that "
                "runs with it builds its venv on the node at first use.\n")
    names_over = {p.name for p in model.snapshot.install_set([over])}
    others = [e for e in model.warm_extras if e != extra]
    names_others = {p.name for e in others for p in model.snapshot.install_set([e])}
    notable = {p.key for p in model.key_packages(extra)}
    added = [p for p in model.snapshot.install_set([extra]) if p.name not in names_over]
    rows = [(code(p.name), code(p.version or NONE), _how(p), "yes" if p.name not in names_others else "no")
            for p in added if p.key in notable]
    out = table(("Package", "Version", "Installed as", f"Only in `{extra}` among warmed extras"), rows)
    rest = len(added) - len(rows)
    return out + (f"\nPlus {rest} smaller dependencies `{extra}` adds over `{over}`.\n" if rest else "")


def te_consumers(model: "ImageModel", package: str = TE_PACKAGE) -> str:
    rows = []
    for extra in model.warm_extras:
        pkg = model.snapshot.package(package, [extra])
        rows.append((code(extra), "yes" if pkg else "no", code(pkg.version) if pkg and pkg.version else NONE,
                     code(pkg.source) if pkg else NONE))
    return table(("Warmed extra", f"Reaches {package}", "Version", "Source"), rows)


# ---------------------------------------------------------------------------------------- build, runtime

def build_options(model: "ImageModel") -> str:
    merged: dict[str, dict] = {}
    for arg in model.dockerfile.args:
        entry = merged.setdefault(arg.name, {"default": build_arg_value(model.dockerfile, arg.name)[0], "stages": [],
                                             "comment": ""})
        if entry["default"] is None:   # an ARG the image's stages never use: its own stage's value
            entry["default"] = arg.default
        stage = arg.stage or "(global)"
        if stage not in entry["stages"]:
            entry["stages"].append(stage)
        entry["comment"] = entry["comment"] or " ".join(arg.comment.split())
    rows = [(code(name), code(e["default"]) if e["default"] is not None else "(none)",
             ", ".join(code(s) for s in e["stages"]), _what_it_sets(name, e["default"], e["comment"]))
            for name, e in merged.items()]
    return table(("ARG", "Default", "Declared in", "What it sets"), rows)


def _what_it_sets(name: str, default: str | None, comment: str) -> str:
    """The ARG's comment; for an architecture list, the architectures come from the list's default, not
    from the comment (a comment's `(Hopper; Blackwell)` outlives the list it described)."""
    archs = capabilities(default) if default and "ARCH" in name.upper() else ()
    if not archs:
        return text(comment) if comment else NONE
    names = "; ".join(arch_names(archs))
    words = without_arch_names(comment).rstrip().removesuffix(".").rstrip()
    return text(f"{words} ({names}).") if words else text(f"{names}.")


def runtime_env(model: "ImageModel") -> str:
    rows = [(code(e.key), code(e.value), code(e.stage)) for e in runtime_envs(model)]
    return table(("ENV", "Value", "Set in stage"), rows)


def human_size(n: float) -> str:
    """Bytes in the unit a reader expects: 216.5 MB, 1.42 GB, 112.7 kB."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.{2 if unit == 'GB' else 1}f} {unit}"
    return f"{int(n)} B"


def _size_rows(measurement: dict, image_title: str) -> list[tuple[str, str]]:
    """The summary rows of one measurement (the record itself, or its `production` entry): image, platform,
    date, where, size and the parts."""
    rows: list[tuple[str, str]] = []
    for key, title in (("image", image_title), ("platform", "Platform"), ("measured_at", "Measured"),
                       ("where", "Where")):
        if measurement.get(key):
            rows.append((title, text(measurement[key])))
    size = measurement.get("size_bytes")
    if isinstance(size, (int, float)):
        rows.append(("Size", f"**{human_size(size)}** ({int(size):,} bytes)"))
    for name, value in sorted((measurement.get("parts") or {}).items()):
        if isinstance(value, (int, float)):
            rows.append((code(name), human_size(value)))
    return rows


def image_size(model: "ImageModel", measurement: dict | None) -> str:
    """The size page's block: the production image's figures first when the record holds them (`production`,
    measured elsewhere on the real image), then the hermetic test image's, labelled as such: that image is
    built from the stand-in NeMo-RL workspace, so its size says nothing about the production image's."""
    if not measurement:
        return ("> The image size has not been measured yet: `bench/image_size.py --record` writes "
                "`docs/data/image-size.json`.\n")
    out = []
    production = measurement.get("production")
    if isinstance(production, dict) and production.get("size_bytes"):
        out.append("### Production image\n\nMeasured elsewhere on the real image (real NeMo-RL, real CUDA "
                   "packages); these are the figures a user pulls.\n\n"
                   + table(("Measure", "Production image"), _size_rows(production, "Image")))
        charts = size_charts(model, production, "Production image", provenance=False)
        if charts:
            out.append(charts)
    else:
        out.append("### Production image\n\nNo production figure is recorded yet. A measurement of the real "
                   "image goes under `production` in `docs/data/image-size.json`, in the same shape as the "
                   "record (`size_bytes`, `measured_at`, `where`, and `parts`, `layers` or `venvs` when "
                   "measured), and is shown here first.\n")
    test = not_current_note(model, measurement)
    test += ("### Hermetic test image\n\nThe image this project's CI builds from the stand-in NeMo-RL "
             "workspace (tiny packages named and versioned like the real ones) and measures with "
             "`bench/image_size.py`. Its figures show the structure's overhead (links, private copies, the "
             "cache), not the size of the production image.\n\n")
    test += table(("Measure", "Hermetic test image"), _size_rows(measurement, "Tag"))
    out.append(test)
    charts = size_charts(model, measurement, "Hermetic test image")
    if charts:
        out.append(charts)
    return "\n".join(out)
