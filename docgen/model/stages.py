"""Facts about the Dockerfile's stages that several renderers share: edges, where things happen, paths.

Read from `model.dockerfile` (the reader's facts); nothing here opens a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

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
    labels = [stage_label(s) for s in model.dockerfile.stages]
    return PUBLISHED_STAGE if PUBLISHED_STAGE in labels else (labels[-1] if labels else PUBLISHED_STAGE)


def runtime_envs(model: "ImageModel"):
    return model.dockerfile.envs_of(published_stage(model))


def base_venv(model: "ImageModel") -> str:
    """The driver's venv (`docgen.model.build.driver_venv_of`)."""
    from docgen.model.build import driver_venv_of
    return driver_venv_of(model.dockerfile)


def role_of(fqn: str) -> str:
    """What an actor does in a job, read from where NeMo-RL keeps its module."""
    module = "." + fqn.rsplit(".", 1)[0] + "."
    for marker, role in ((".policy.", "policy"), (".generation.", "generation"), (".value.", "value"),
                         (".environments.", "environment"), (".experience.", "rollout")):
        if marker in module:
            return role
    return "other"
