"""The generator registry: block names (the contract the pages use), how each renders, its arguments.

A generator reads the model alone, but for image-size, which also reads the image-size bench's record. A
stale block is found by rendering it again and comparing; the facts record says what moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from docgen.records import Memo
from docgen.render import diagrams, prose_blocks, tables, transcripts

if TYPE_CHECKING:
    from collections.abc import Callable
    from docgen.model import ImageModel

class RenderInputs(NamedTuple):
    """What renderers may read: the model and, for image-size only, the bench's measurement."""
    model: "ImageModel"
    image_size: dict | None = None


class Generator(NamedTuple):
    name: str
    render: Callable[..., str]                 # (RenderInputs, **args) -> Markdown
    params: dict[str, tuple[str, ...] | None] = {}  # allowed values; None = any (never mutated)


def _m(fn: Callable[..., str]) -> Callable[..., str]:
    """Adapt a renderer over the model alone (its docstring is the generator's description on the Rules page)."""
    def render(src, **args):
        return fn(src.model, **args)
    render.__doc__ = fn.__doc__
    return render


GENERATORS: dict[str, Generator] = {g.name: g for g in (
    Generator("quick-inventory", _m(tables.quick_inventory)),
    Generator("image-graph", _m(diagrams.image_graph)),
    Generator("image-inventory", _m(tables.image_inventory)),
    Generator("warm-steps", _m(tables.warm_steps)),
    Generator("actor-mapping", _m(tables.actor_mapping), {"variant": ("default", "system")}),
    Generator("filter-table", _m(tables.filter_table)),
    Generator("venv-inventory", _m(tables.venv_inventory)),
    Generator("venv-layers", _m(tables.venv_layers)),
    Generator("driver-installs", _m(tables.driver_installs)),
    Generator("not-prefetched", _m(tables.not_prefetched)),
    Generator("extra-packages", _m(tables.extra_packages), {"extra": None}),
    Generator("source-builds", _m(tables.source_builds)),
    Generator("shared-builds", _m(tables.shared_builds)),
    Generator("editable-sources", _m(tables.editable_sources)),
    Generator("mcore-adds", _m(tables.mcore_adds), {"extra": None, "over": None}),
    Generator("te-consumers", _m(tables.te_consumers), {"package": None}),
    Generator("build-options", _m(tables.build_options)),
    Generator("runtime-env", _m(tables.runtime_env)),
    Generator("image-size", lambda src: tables.image_size(src.model, src.image_size)),
    Generator("console-venvs", _m(transcripts.console_venvs)),
    Generator("console-package", _m(transcripts.console_package),
              {"package": None, "absent": ("yes", "no")}),
    Generator("console-te-shared", _m(transcripts.console_te_shared), {"package": None}),
    Generator("console-vllm-copies", _m(transcripts.console_vllm_copies)),
    Generator("console-runtime-user", _m(transcripts.console_runtime_user)),
    Generator("console-ownership", _m(transcripts.console_ownership)),
    Generator("console-writable", _m(transcripts.console_writable)),
    Generator("console-wrappers", _m(transcripts.console_wrappers)),
    Generator("py-executables", _m(prose_blocks.py_executables)),
    Generator("vllm-copies", _m(prose_blocks.vllm_copies)),
    Generator("extra-actors", _m(prose_blocks.extra_actors), {"extra": None}),
    Generator("uv-override", _m(prose_blocks.uv_override), {"package": None}),
    Generator("diagram-build", _m(diagrams.diagram_build)),
    Generator("diagram-dpo", _m(diagrams.diagram_dpo)),
    Generator("diagram-grpo-v2",
              lambda src, policy="automodel", generation="vllm": diagrams.diagram_grpo(src.model, policy, generation),
              {"policy": None, "generation": None}),
    Generator("diagram-grpo-megatron",
              lambda src, policy="mcore", generation="vllm": diagrams.diagram_grpo(src.model, policy, generation),
              {"policy": None, "generation": None}),
)}

# Coverage (like helm-docs' strict mode): each of these must be rendered somewhere in README.md + docs/.
REQUIRED_GENERATORS: tuple[str, ...] = tuple(GENERATORS)


# A body depends only on its generator, its arguments and the RenderInputs, so a block several pages show
# (the quick inventory is on three) is rendered once per run.
_RENDERED = Memo()


def render_block(name: str, args: dict[str, str], src: RenderInputs) -> str:
    """The Markdown body of one block (ends with a newline). Raises docgen.errors.ArgError for unusable args."""
    return _RENDERED.answer(src, (name, tuple(sorted(args.items()))), lambda: GENERATORS[name].render(src, **args))
