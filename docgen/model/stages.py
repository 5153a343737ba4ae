"""Facts about the Dockerfile's stages that several renderers share: edges, where things happen, paths.

Read from `model.dockerfile` (the reader's facts); nothing here opens a file.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from docgen.inputs.shellwords import variables
from docgen.inputs.syntax import stage_label
from docgen.records import Memo

if TYPE_CHECKING:
    from docgen.model import ImageModel
    from docgen.inputs.dockerfile import DockerfileFacts, Stage
    from docgen.inputs.syntax import Instruction

PUBLISHED_STAGE = "nmp-rl-base"


class CopyEdge(NamedTuple):
    source: str       # stage label (or an image reference for COPY --from=<image>)
    target: str       # stage label
    paths: tuple[str, ...]
    line: int


def stage_names(model: "ImageModel") -> set[str]:
    return {stage_label(s) for s in model.dockerfile.stages}


def base_of(model: "ImageModel", stage: "Stage") -> tuple[str, bool]:
    """(what the stage starts FROM, expanded, whether that is an earlier stage rather than an image)."""
    return model.dockerfile.base(stage)


def copy_edges(model: "ImageModel") -> tuple[CopyEdge, ...]:
    edges = []
    for stage in model.dockerfile.stages:
        for ins in stage.instructions:
            sources = ins.flags.get("from") if ins.keyword == "COPY" else None
            if not sources:
                continue
            words = [w for w in ins.args.split() if not w.startswith("--")]
            source = sources[-1].lower() if sources[-1].lower() in stage_names(model) else sources[-1]
            edges.append(CopyEdge(source=source, target=stage_label(stage),
                                  paths=tuple(words[:-1]) if len(words) > 1 else tuple(words), line=ins.start_line))
    return tuple(edges)


def stage_at(model: "ImageModel", line: int) -> str | None:
    """Label of the stage a Dockerfile line belongs to."""
    found = None
    for stage in model.dockerfile.stages:
        if stage.line <= line:
            found = stage_label(stage)
    return found


def published_stage(model: "ImageModel") -> str:
    return stage_label(published(model.dockerfile))


def runtime_envs(model: "ImageModel"):
    return model.dockerfile.envs_of(published_stage(model))


def base_venv(model: "ImageModel") -> str:
    """The driver's venv (`driver_venv_of`)."""
    return driver_venv_of(model.dockerfile)


def driver_contents(model: "ImageModel") -> str:
    """What the driver's venv holds beyond NeMo-RL's base dependencies after the build: what the last `uv sync`
    of the warm-up selects (a sync leaves the venv at exactly its selection): "all groups", "extra nvrx,
    default groups", "no groups"; "" when no warm step syncs."""
    syncs = model.dockerfile.warm_syncs
    if not syncs:
        return ""
    last = syncs[-1]
    parts = [("extras " if len(last.extras) > 1 else "extra ") + ", ".join(last.extras)] if last.extras else []
    if "--all-extras" in last.flags:
        parts.append("all extras")
    if "--all-groups" in last.flags:
        parts.append("all groups")
    else:
        parts.append("no groups" if {"--no-default-groups", "--no-dev"} & set(last.flags) else "default groups")
    return ", ".join(parts)


def driver_venv_of(dockerfile: "DockerfileFacts") -> str:
    """The driver's venv: UV_PROJECT_ENVIRONMENT where the published stage sets it, else uv's
    `<WORKDIR>/.venv` (NeMo-RL's checkout, /opt/nemo-rl, when no WORKDIR of the Dockerfile says)."""
    stage = published(dockerfile)
    value = dockerfile.value("UV_PROJECT_ENVIRONMENT", stage)
    if isinstance(value, str) and value:
        return value
    workdir, line = dockerfile.workdir(stage)
    return f"{(workdir if line is not None and isinstance(workdir, str) else '/opt/nemo-rl').rstrip('/')}/.venv"


def published(dockerfile: "DockerfileFacts"):
    """The stage the image publishes: the one named PUBLISHED_STAGE, else the last."""
    return next((s for s in dockerfile.stages if s.name == PUBLISHED_STAGE), dockerfile.stages[-1])


def image_value(dockerfile: "DockerfileFacts", name: str):
    """(value, the ARG or ENV record that sets it) of `name` as the image's build uses it: at the end of the
    published stage, else of the stage it is built FROM (and so on down its chain), else as the FROM lines
    see it (a global ARG), else as the last RUN step that sees it runs with it (a builder stage's cache
    directory); (None, None) when nothing sets it."""
    stage = published(dockerfile)
    seen = set()
    while stage is not None and stage.position not in seen:
        seen.add(stage.position)
        value = dockerfile.value(name, stage)
        if isinstance(value, str):
            return value, dockerfile.origin(name, stage)
        base, is_stage = dockerfile.base(stage)
        stage = dockerfile.stage(base) if is_stage else None
    first_from = dockerfile.stages[0].line
    value = dockerfile.value(name, first_from)
    if isinstance(value, str):
        return value, dockerfile.origin(name, first_from)
    for ins in reversed(dockerfile.instructions):   # a stage the image does not publish: what its RUN steps see
        value = dockerfile.value(name, ins) if ins.keyword == "RUN" else None
        if isinstance(value, str):
            return value, dockerfile.origin(name, ins)
    return None, None


_EXPANDED = Memo()   # per Dockerfile: the names each instruction expands (asked once per build ARG)


def _expanded_names(dockerfile: "DockerfileFacts") -> tuple[tuple["Instruction", frozenset[str]], ...]:
    """Each instruction with the names its words and heredocs expand (`variables`), read once per Dockerfile."""
    def compute():
        out = []
        for ins in dockerfile.instructions:
            text = ins.args + "".join(h.body for h in ins.heredocs)
            out.append((ins, frozenset(variables(text)) if "$" in text else frozenset()))
        return tuple(out)
    return _EXPANDED.answer(dockerfile, "expanded", compute)


def arg_uses(dockerfile: "DockerfileFacts", name: str) -> tuple[tuple[str, object, object], ...]:
    """(value, the record that sets it, the instruction) at each instruction that expands `$name` (a RUN's
    script, a FROM, COPY or ENV line...), in file order, where it holds a value there."""
    found = []
    for ins, names in _expanded_names(dockerfile):
        if name in names:
            value = dockerfile.value(name, ins)
            if isinstance(value, str):
                found.append((value, dockerfile.origin(name, ins), ins))
    return tuple(found)


def build_arg_value(dockerfile: "DockerfileFacts", name: str):
    """(value, record) of build ARG `name` as the build uses it: where the last instruction that expands it
    sees it (a global ARG a FROM line names, a stage's own where its RUN installs the tool), else as the image
    holds it (`image_value`)."""
    uses = arg_uses(dockerfile, name)
    return uses[-1][:2] if uses else image_value(dockerfile, name)


class Role(NamedTuple):
    """What an actor of one role is and does in a job, stated once: the actors page says it in a sentence and
    the job diagrams draw it (what the driver asks of it, what it sends back; empty when a diagram of a
    training step does not draw it)."""
    noun: str        # "policy worker"
    does: str        # what it does, in the words a reader searches with
    asked: str = ""  # the driver's message to it in a GRPO step
    answers: str = ""

    @property
    def said(self) -> str:
        """`environment: scores the responses and returns rewards`, the actors page's words."""
        return f"{self.noun}: {self.does}" if self.does else self.noun


ROLES = {
    "policy": Role("policy worker", "holds the model and trains it (the optimizer step, log-probs)"),
    "generation": Role("generation worker", "samples responses from the policy's weights (inference, rollouts)"),
    "value": Role("value worker", "the critic that estimates a value per token"),
    "environment": Role("environment", "scores the responses and returns rewards",
                        "score the responses", "rewards"),
    "rollout": Role("rollout helper", "collects and buffers experience between generation and training",
                    "collect the batch's experience", "experience for the train step"),
    "other": Role("helper actor", ""),
}


_ROLE_WORDS = (("policy", "policy"), ("generation", "generation"), ("value", "value"),
               ("environments", "environment"), ("environment", "environment"), ("experience", "rollout"),
               ("rollout", "rollout"))


def role_of(fqn: str) -> str:
    """What an actor does in a job, read from where NeMo-RL keeps its module (`...policy.workers...`), else from
    the words of its module's and class's names (`megatron.policy_worker.MegatronPolicyWorker`)."""
    module, _, name = fqn.rpartition(".")
    packages = set(module.split("."))
    words = set(re.findall(r"[a-z]+", module.rpartition(".")[2])) | {w.lower() for w in re.findall(r"[A-Z][a-z]+", name)}
    for found in (packages, words):
        for word, role in _ROLE_WORDS:
            if word in found:
                return role
    return "other"
