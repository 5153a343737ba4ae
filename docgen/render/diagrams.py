"""Mermaid diagrams over the image model. Participants, class names and venv paths come from the model;
only the algorithm's steps (what a DPO or GRPO loop does) are prose."""


from typing import TYPE_CHECKING, NamedTuple

from docgen.model import venv_path
from docgen.render.markdown import label, mermaid, node_id
from docgen.model.stages import (
    base_of, base_venv, copy_edges, published_stage, role_of, stage_at, stage_label,
)
from docgen.render.tables import ArgError

if TYPE_CHECKING:
    from docgen.model import ImageModel


def image_graph(model: "ImageModel") -> str:
    lines = ["flowchart TD"]
    images: dict[str, str] = {}
    for stage in model.dockerfile.stages:
        lines.append(f'    {node_id("stage_" + stage_label(stage))}["{label(stage_label(stage))}"]')
    for stage in model.dockerfile.stages:
        base, is_stage = base_of(model, stage)
        if is_stage:
            source = node_id("stage_" + base)
        else:
            source = images.setdefault(base, f"image{len(images) + 1}")
            lines.append(f'    {source}[("{label(base)}")]')
        lines.append(f'    {source} -->|FROM| {node_id("stage_" + stage_label(stage))}')
    stages = {stage_label(s) for s in model.dockerfile.stages}
    for edge in copy_edges(model):
        if edge.source in stages:
            source = node_id("stage_" + edge.source)
        else:
            source = images.setdefault(edge.source, f"image{len(images) + 1}")
            lines.append(f'    {source}[("{label(edge.source)}")]')
        what = "COPY " + " ".join(edge.paths)
        lines.append(f'    {source} -.->|"{label(what)}"| {node_id("stage_" + edge.target)}')
    return mermaid(lines)


def diagram_build(model: "ImageModel") -> str:
    ids = {stage_label(s): node_id("stage_" + stage_label(s)) for s in model.dockerfile.stages}
    warm_stage = stage_at(model, model.warm_steps[0].line) if model.warm_steps else None
    prefetch = model.dockerfile.prefetch
    prefetch_stage = stage_at(model, prefetch.line) if prefetch is not None else None
    cache_dir = None
    if warm_stage:
        cache_dir = {e.key: e.value for e in model.dockerfile.envs_of(warm_stage)}.get("UV_CACHE_DIR")
    lines = ["sequenceDiagram", "    participant build as docker build"]
    lines += [f"    participant {ids[name]} as stage {label(name)}" for name in ids]
    lines.append(f"    participant cache as uv cache{' ' + label(cache_dir) if cache_dir else ''}")
    lines.append(f"    participant venvs as {len(model.venvs)} worker venvs in {label(model.venv_dir)}")
    for stage in model.dockerfile.stages:
        base, _ = base_of(model, stage)
        lines.append(f"    build->>{ids[stage_label(stage)]}: FROM {label(base)}")
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
        lines.append(f"    {ids[verify_stage]}->>venvs: verify each of {len(model.dockerfile.verify.actors)} "
                     "venv interpreters")
    for edge in copy_edges(model):
        if edge.source in ids:
            lines.append(f"    {ids[edge.source]}->>{ids[edge.target]}: COPY {label(' '.join(edge.paths))}")
    publish = published_stage(model)
    if publish in ids:
        lines.append(f"    Note over {ids[publish]}: published as {label(publish)}")
    return mermaid(lines)


class _Worker(NamedTuple):
    class_name: str
    extras: tuple[str, ...]
    path: str
    prefetched: bool


def _workers(model: "ImageModel", role: str, extra: str | None = None) -> list[_Worker]:
    """Actors of a role (optionally running with `extra`): the prefetched venvs, or when none is prefetched,
    the registry actors whose extras are exactly that one, with the venv they get at first use."""
    venvs = [v for v in model.venvs if role_of(v.actor) == role and (extra is None or extra in v.extras)]
    if venvs or extra is None:
        return [_Worker(v.class_name, v.extras, v.path, True) for v in venvs]
    return [_Worker(a.class_name, a.extras, venv_path(model.venv_dir, a.fqn), False)
            for a in model.actors if role_of(a.fqn) == role and a.extras == (extra,)]


def _participant(pid: str, worker: _Worker) -> str:
    # The full venv path is in the message that starts the workers; a participant box that held it
    # made every diagram thousands of pixels wide.
    built = "built on first use" if not worker.prefetched else "prefetched venv"
    return (f"    participant {pid} as {label(worker.class_name)}"
            f"<br/>{label(', '.join(worker.extras))} extra, {built}")


def _driver(model: "ImageModel", job: str) -> str:
    return f"    participant driver as {job} driver<br/>{label(base_venv(model))}"


def diagram_dpo(model: "ImageModel") -> str:
    policies = _workers(model, "policy")
    if not policies:
        raise ArgError("no prefetched policy worker venv to draw a DPO job with")
    lines = ["sequenceDiagram", _driver(model, "DPO")]
    ids = [f"policy{n}" for n, _ in enumerate(policies, 1)]
    lines += [_participant(pid, w) for pid, w in zip(ids, policies)]
    lines.append(f"    Note over driver,{ids[-1]}: no generation workers: DPO trains on fixed preference pairs")
    for n, (pid, venv) in enumerate(zip(ids, policies)):
        lines.append(f"    {'alt' if n == 0 else 'else'} policy backend {label(', '.join(venv.extras))}")
        lines.append(f"        driver->>{pid}: start workers with {label(venv.path)}/bin/python")
        lines.append("        loop each batch of chosen and rejected responses")
        lines.append(f"            driver->>{pid}: reference log-probs of the batch")
        lines.append(f"            driver->>{pid}: train step on the DPO loss")
        lines.append(f"            {pid}-->>driver: loss and metrics")
        lines.append("        end")
    lines.append("    end")
    return mermaid(lines)


def diagram_grpo(model: "ImageModel", policy: str, generation: str = "vllm") -> str:
    """GRPO with the policy worker that runs with extra `policy` and generation workers of extra `generation`."""
    workers = _workers(model, "policy", policy)
    generators = _workers(model, "generation", generation)
    if not workers:
        raise ArgError(f"no policy worker in the registry runs with extra {policy!r}")
    if not generators:
        raise ArgError(f"no generation worker in the registry runs with extra {generation!r}")
    environments = _workers(model, "environment") + _workers(model, "rollout")
    lines = ["sequenceDiagram", _driver(model, "GRPO"), _participant("policy", workers[0])]
    gen_ids = [f"gen{n}" for n, _ in enumerate(generators, 1)]
    lines += [_participant(pid, w) for pid, w in zip(gen_ids, generators)]
    env_ids = [f"env{n}" for n, _ in enumerate(environments, 1)]
    lines += [_participant(pid, w) for pid, w in zip(env_ids, environments)]
    system_envs = [a.class_name for a in model.system_actors if role_of(a.fqn) == "environment"]
    if system_envs:  # environments like math scoring run on the system interpreter, without a venv
        env_ids.append("sysenv")
        names = ", ".join(system_envs[:3]) + (f" and {len(system_envs) - 3} more" if len(system_envs) > 3 else "")
        lines.append(f"    participant sysenv as {label(names)}<br/>system interpreter")
    gen = gen_ids[0]
    lines.append("    loop each GRPO step")
    lines.append(f"        driver->>{gen}: generate responses for a batch of prompts")
    lines.append(f"        {gen}-->>driver: responses")
    for env_id in env_ids:
        lines.append(f"        driver->>{env_id}: score or step the responses")
        lines.append(f"        {env_id}-->>driver: rewards")
    lines.append("        driver->>policy: log-probs, then a train step on group-relative advantages")
    lines.append(f"        policy->>{gen}: refit: push the updated weights")
    lines.append("    end")
    return mermaid(lines)
