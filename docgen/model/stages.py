"""Facts about the Dockerfile's stages that several renderers share: edges, where things happen, paths.

Read from `model.dockerfile` (the reader's facts); nothing here opens a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from docgen.inputs.shellwords import expand
from docgen.inputs.syntax import stage_label

if TYPE_CHECKING:
    from docgen.model import ImageModel
    from docgen.inputs.dockerfile import Stage

PUBLISHED_STAGE = "nmp-rl-base"


class CopyEdge(NamedTuple):
    source: str       # stage label (or an image reference for COPY --from=<image>)
    target: str       # stage label
    paths: tuple[str, ...]
    line: int


def expand_global_args(model: "ImageModel", text: str) -> str:
    """`${BASE_IMAGE}` -> its global ARG default, as Docker expands FROM lines; unknown names stay."""
    defaults = {a.name: a.default for a in model.dockerfile.args if a.stage is None and a.default is not None}
    return expand(text, defaults)


def stage_names(model: "ImageModel") -> set[str]:
    return {stage_label(s) for s in model.dockerfile.stages}


def base_of(model: "ImageModel", stage: "Stage") -> tuple[str, bool]:
    """(what the stage starts FROM, whether that is an earlier stage rather than an image)."""
    base = stage.base.lower()
    if base in stage_names(model):
        return base, True
    return expand_global_args(model, stage.base), False


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
    labels = [stage_label(s) for s in model.dockerfile.stages]
    return PUBLISHED_STAGE if PUBLISHED_STAGE in labels else (labels[-1] if labels else PUBLISHED_STAGE)


def runtime_envs(model: "ImageModel"):
    return model.dockerfile.envs_of(published_stage(model))


def base_venv(model: "ImageModel") -> str:
    """The driver's venv: UV_PROJECT_ENVIRONMENT if the image sets it, else uv's default `<project>/.venv`."""
    envs = {e.key: e.value for e in runtime_envs(model)}
    if envs.get("UV_PROJECT_ENVIRONMENT"):
        return envs["UV_PROJECT_ENVIRONMENT"]
    workdir = None
    for ins in model.dockerfile.instructions:
        if ins.keyword == "WORKDIR" and ins.stage in stage_chain(model, published_stage(model)):
            workdir = ins.args.strip()
    return f"{(workdir or '/opt/nemo-rl').rstrip('/')}/.venv"


def stage_chain(model: "ImageModel", label: str) -> set[str]:
    """The stage and the stages it builds FROM, transitively."""
    by_label = {stage_label(s): s for s in model.dockerfile.stages}
    out: set[str] = set()
    while label in by_label and label not in out:
        out.add(label)
        label = by_label[label].base.lower()
    return out


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


def role_of(fqn: str) -> str:
    """What an actor does in a job, read from where NeMo-RL keeps its module."""
    module = "." + fqn.rsplit(".", 1)[0] + "."
    for marker, role in ((".policy.", "policy"), (".generation.", "generation"), (".value.", "value"),
                         (".environments.", "environment"), (".experience.", "rollout")):
        if marker in module:
            return role
    return "other"
