"""Mermaid diagrams over the image model. Participants, class names and venv paths come from the model;
only the algorithm's steps (what a DPO or GRPO loop does) are prose."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from docgen.errors import ArgError
from docgen.model import venv_path
from docgen.model.stages import (
    ROLES, base_of, base_venv, copy_edges, published_stage, role_of, stage_at, stage_label,
)
from docgen.render.markdown import code, label, mermaid, node_id, table, text

if TYPE_CHECKING:
    from docgen.model import ImageModel


def _two_lines(text: str, at: str = ":") -> str:
    """A long image reference on two lines (registry/name, then the tag) so its box stays narrow."""
    head, sep, tail = text.rpartition(at)
    return f"{label(head)}<br/>{label(sep + tail)}" if head and len(text) > 28 else label(text)


def _copies(model: "ImageModel") -> dict[tuple[str, str], list[str]]:
    """COPY --from edges grouped by (source, target): one arrow each, its label one line per COPY."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for edge in copy_edges(model):
        grouped.setdefault((edge.source, edge.target), []).append(" ".join(edge.paths))
    return grouped


def image_graph(model: "ImageModel") -> str:
    """Stages top to bottom in Dockerfile order, the published one last and marked. Parallel COPY arrows
    between the same two stages are one arrow with a line per COPY: separate arrows put their labels on
    top of each other."""
    lines = ["flowchart TD"]
    images: dict[str, str] = {}
    publish = published_stage(model)
    for stage in model.dockerfile.stages:
        name = stage_label(stage)
        text = f"{label(name)}<br/>published image" if name == publish else label(name)
        lines.append(f'    {node_id("stage_" + name)}["{text}"]')

    def image_node(ref: str) -> str:
        if ref not in images:
            images[ref] = f"image{len(images) + 1}"
            lines.append(f'    {images[ref]}[("{_two_lines(ref)}")]')
        return images[ref]

    for stage in model.dockerfile.stages:
        base, is_stage = base_of(model, stage)
        source = node_id("stage_" + base) if is_stage else image_node(base)
        lines.append(f'    {source} -->|FROM| {node_id("stage_" + stage_label(stage))}')
    stages = {stage_label(s) for s in model.dockerfile.stages}
    for (src, target), copies in _copies(model).items():
        source = node_id("stage_" + src) if src in stages else image_node(src)
        what = "<br/>".join(label("COPY " + c) for c in copies)
        lines.append(f'    {source} -.->|"{what}"| {node_id("stage_" + target)}')
    if publish in stages:
        lines.append("    classDef published stroke-width:3px")
        lines.append(f"    class {node_id('stage_' + publish)} published")
    return mermaid(lines) + _stage_table(model)


def _stage_table(model: "ImageModel") -> str:
    """The image graph as a table, which reads on a phone where the graph is too wide (the site folds the
    graph to it): every stage, what it starts FROM and what it copies in from another stage or image."""
    publish, rows = published_stage(model), []
    copies_into: dict[str, list[str]] = {}
    for (src, target), copies in _copies(model).items():
        copies_into.setdefault(target, []).append(
            ", ".join(code("COPY " + c) for c in copies) + f" from {code(src)}")
    for stage in model.dockerfile.stages:
        name = stage_label(stage)
        base, is_stage = base_of(model, stage)
        rows.append((code(name) + (", the published image" if name == publish else ""),
                     f"stage {code(base)}" if is_stage else code(base), "; ".join(copies_into.get(name, []))))
    return "\n" + table(("Stage", "FROM", "COPY into it"), rows)


def diagram_build(model: "ImageModel") -> str:
    ids = {stage_label(s): node_id("stage_" + stage_label(s)) for s in model.dockerfile.stages}
    warm_stage = stage_at(model, model.warm_steps[0].line) if model.warm_steps else None
    prefetch = model.dockerfile.prefetch
    prefetch_stage = stage_at(model, prefetch.line) if prefetch is not None else None
    cache_dir = model.dockerfile.value("UV_CACHE_DIR", model.warm_steps[0].line) if model.warm_steps else None
    cache_dir = cache_dir if isinstance(cache_dir, str) else None
    # labels on two short lines: a participant box is as wide as its longest line
    lines = ["sequenceDiagram", "    participant build as docker build"]
    lines += [f"    participant {ids[name]} as stage<br/>{label(name)}" for name in ids]
    lines.append(f"    participant cache as uv cache{'<br/>' + label(cache_dir) if cache_dir else ''}")
    lines.append(f"    participant venvs as {len(model.venvs)} worker venvs<br/>{label(model.venv_dir)}")
    for stage in model.dockerfile.stages:
        base, is_stage = base_of(model, stage)
        source = label(base) if is_stage else _two_lines(base, "/")
        lines.append(f"    build->>{ids[stage_label(stage)]}: FROM {source}")
    if warm_stage:
        lines.append(f"    loop {len(model.warm_steps)} warm steps, in Dockerfile order")
        for step in model.warm_steps:
            lines.append(f"        {ids[warm_stage]}->>cache: uv sync {label(step.label)}")
        lines.append("    end")
    if prefetch_stage:
        lines.append(f"    {ids[prefetch_stage]}->>venvs: prefetch_venvs.py, {len(model.filters)} filters "
                     f"-> {len(model.venvs)} venvs")
        lines.append("    venvs->>cache: link installed files")
    if model.dockerfile.verify is not None:
        verify_stage = stage_at(model, model.dockerfile.verify.line) or prefetch_stage
        assert verify_stage is not None   # the verify loop is a RUN step: a stage holds it
        lines.append(f"    {ids[verify_stage]}->>venvs: verify each of {len(model.dockerfile.verify.actors)} "
                     "venv interpreters")
    for (src, target), copies in _copies(model).items():
        if src in ids:
            what = "<br/>".join(label("COPY " + c) for c in copies)
            lines.append(f"    {ids[src]}->>{ids[target]}: {what}")
    publish = published_stage(model)
    if publish in ids:
        # short: a note wider than its participant pushes its neighbours apart (the stage's name is above it)
        lines.append(f"    Note over {ids[publish]}: published image")
    rows = [("docker build", "the build: it starts each stage from its base (`FROM`)")]
    for stage in model.dockerfile.stages:
        name = stage_label(stage)
        base, is_stage = base_of(model, stage)
        does = [f"starts `FROM` {'stage ' if is_stage else ''}{code(base)}"]
        does += [f"runs the {len(model.warm_steps)} warm steps"] if name == warm_stage else []
        does += [f"links the venvs ({len(model.filters)} filters)"] if name == prefetch_stage else []
        does += ["is published"] if name == publish else []
        rows.append((f"stage {code(name)}", ", ".join(does)))
    if warm_stage:
        rows.append((f"uv cache {code(cache_dir) if cache_dir else ''}".strip(),
                     "what the warm steps build and install, which the venvs link to"))
    rows.append((f"{len(model.venvs)} worker venvs {code(model.venv_dir)}", "one venv per prefetched actor"))
    return mermaid(lines) + "\n" + table(("In the diagram", "What it is"), rows)


class _Worker(NamedTuple):
    fqn: str
    class_name: str
    extras: tuple[str, ...]
    path: str
    prefetched: bool


def _workers(model: "ImageModel", role: str, extra: str | None = None) -> list[_Worker]:
    """Actors of a role (optionally running with `extra`): the prefetched venvs, or when none is prefetched,
    the registry actors whose extras are exactly that one, with the venv they get at first use."""
    venvs = [v for v in model.venvs if role_of(v.actor) == role and (extra is None or extra in v.extras)]
    if venvs or extra is None:
        return [_Worker(v.actor, v.class_name, v.extras, v.path, True) for v in venvs]
    return [_Worker(a.fqn, a.class_name, a.extras, venv_path(model.venv_dir, a.fqn), False)
            for a in model.actors if role_of(a.fqn) == role and a.extras == (extra,)]


class _Lane(NamedTuple):
    """One participant: one or more actors of the same role and extra drawn as a single lifeline, named by
    both (the table under the diagram names each actor it stands for)."""
    pid: str
    workers: tuple[_Worker, ...]

    @property
    def noun(self) -> str:
        return ROLES[role_of(self.workers[0].fqn)].noun

    @property
    def runs(self) -> str:
        w = self.workers[0]
        return ", ".join(w.extras) + ("" if w.prefetched else ", first use")

    @property
    def title(self) -> str:
        return f"{self.noun} ({self.runs})"


def _lanes(prefix: str, workers: list[_Worker]) -> list[_Lane]:
    """One lane per extra: five Gym actors are one lifeline, not five."""
    by_extra: dict[tuple[str, ...], list[_Worker]] = {}
    for w in workers:
        by_extra.setdefault(w.extras, []).append(w)
    return [_Lane(f"{prefix}{n}", tuple(ws)) for n, ws in enumerate(by_extra.values(), 1)]


def _participant(lane: _Lane) -> str:
    # Short on purpose, the role (the model's noun) and the extra: the class names, the venv path and how it
    # is built are in the table under the diagram. Participant boxes holding class names made the job
    # diagrams wider than the text column at a readable size (docs/assets/site/site.js).
    return f"    participant {lane.pid} as {label(lane.noun)}<br/>{label(lane.runs)}"


def _driver(job: str) -> str:
    return f"    participant driver as {job} driver<br/>base venv"


def _details(model: "ImageModel", job: str, lanes: list[_Lane], system: tuple[str, list[str]] | None = None,
             last: _Lane | None = None) -> str:
    """The table under a sequence diagram, in the diagram's order: the driver and every actor a lane stands
    for, with its role (as the model states it), its extra and its venv; above it, the actors each lifeline
    of several stands for, by name."""
    driver_venv = code(base_venv(model))
    rows: list[tuple[str, ...]] = [(f"{job} driver", "the job's driver script", "driver", "",
                                    f"base venv {driver_venv}")]

    def lane_rows(lane: _Lane) -> list[tuple[str, ...]]:
        return [(text(lane.title), code(w.fqn), ROLES[role_of(w.fqn)].noun, ", ".join(code(e) for e in w.extras),
                 f"{'prefetched venv' if w.prefetched else 'venv built on first use,'} {code(w.path)}")
                for w in lane.workers]
    for lane in lanes:
        rows += lane_rows(lane)
    if system:
        title, fqns = system
        rows += [(text(title), code(fqn), ROLES[role_of(fqn)].noun, "",
                  f"the driver venv {driver_venv} (`sys.executable`), no venv of its own") for fqn in fqns]
    rows += lane_rows(last) if last else []
    groups = [(lane.title, [w.class_name for w in lane.workers]) for lane in lanes if len(lane.workers) > 1]
    if system is not None and len(system[1]) > 1:
        groups.append((system[0], [fqn.rsplit(".", 1)[-1] for fqn in system[1]]))
    legend = "".join(f"The lifeline {code(title)} stands for {len(names)} actors: "
                     f"{', '.join(text(n) for n in names)}.\n\n" for title, names in groups)
    shown = len(rows) - 1
    counted = (f"The table lists the driver and each of the {shown} actor(s) the diagram draws or stands for; the "
               f"registry's other {len(model.actors) - shown} actor(s) are left out (the Actors reference lists "
               "every one).\n\n")
    return "\n" + legend + counted + table(("In the diagram", "Actor", "Role", "Extra", "Runs in"), rows)


def diagram_dpo(model: "ImageModel") -> str:
    policies = _workers(model, "policy")
    if not policies:
        raise ArgError("no prefetched policy worker venv to draw a DPO job with")
    lanes = _lanes("policy", policies)
    lines = ["sequenceDiagram", _driver("DPO")]
    lines += [_participant(lane) for lane in lanes]
    lines.append(f"    Note over driver,{lanes[-1].pid}: no generation workers: DPO trains on fixed preference pairs")
    for n, lane in enumerate(lanes):
        lines.append(f"    {'alt' if n == 0 else 'else'} policy backend {label(lane.runs)}")
        lines.append(f"        driver->>{lane.pid}: start workers in its venv")
        lines.append("        loop each batch of chosen and rejected responses")
        lines.append(f"            driver->>{lane.pid}: reference log-probs of the batch")
        lines.append(f"            driver->>{lane.pid}: train step on the DPO loss")
        lines.append(f"            {lane.pid}-->>driver: loss and metrics")
        lines.append("        end")
    lines.append("    end")
    return mermaid(lines) + _details(model, "DPO", lanes)


def diagram_grpo(model: "ImageModel", policy: str, generation: str = "vllm") -> str:
    """GRPO with the policy worker that runs with extra `policy` and generation workers of extra `generation`."""
    workers = _workers(model, "policy", policy)
    generators = _workers(model, "generation", generation)
    if not workers:
        raise ArgError(f"no policy worker in the registry runs with extra {policy!r}")
    if not generators:
        raise ArgError(f"no generation worker in the registry runs with extra {generation!r}")
    policy_lane = _Lane("policy", (workers[0],))
    gen_lanes = _lanes("gen", generators)
    # one lane per extra within a role: what the driver asks of a lane is its role's (ROLES), so two roles
    # never share a lifeline
    helper_lanes = [(lane, ROLES["environment"]) for lane in _lanes("env", _workers(model, "environment"))]
    helper_lanes += [(lane, ROLES["rollout"]) for lane in _lanes("roll", _workers(model, "rollout"))]
    env_lanes = [lane for lane, _ in helper_lanes]
    # the policy last: the messages between neighbouring lifelines set how far apart they are drawn, and the
    # policy's (a train step, the refit) are the longest
    lines = ["sequenceDiagram", _driver("GRPO")]
    lines += [_participant(lane) for lane in gen_lanes + env_lanes]
    asks = [(lane.pid, role) for lane, role in helper_lanes]
    system_envs = [a for a in model.system_actors if role_of(a.fqn) == "environment"]
    system = None
    if system_envs:  # environments like math scoring run on sys.executable: the driver venv, no venv of their own
        asks.append(("sysenv", ROLES["environment"]))
        system = (f"{ROLES['environment'].noun} (driver venv)", [a.fqn for a in system_envs])
        lines.append(f"    participant sysenv as {label(ROLES['environment'].noun)}<br/>driver venv")
    lines.append(_participant(policy_lane))
    gen = gen_lanes[0].pid
    lines.append("    loop each GRPO step")
    lines.append(f"        driver->>{gen}: generate responses<br/>for a batch of prompts")
    lines.append(f"        {gen}-->>driver: responses")
    for pid, role in asks:
        lines.append(f"        driver->>{pid}: {label(role.asked)}")
        lines.append(f"        {pid}-->>driver: {label(role.answers)}")
    lines.append("        driver->>policy: log-probs, then a train step<br/>on group-relative advantages")
    lines.append(f"        policy->>{gen}: refit: push the updated weights")
    lines.append("    end")
    return mermaid(lines) + _details(model, "GRPO", [*gen_lanes, *env_lanes], system, policy_lane)
