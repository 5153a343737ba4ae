"""Inline values for prose: `<!-- docgen:value KEY -->nine<!-- docgen:end-value -->`.

Each value is one fact of the model as a short string; the table `VALUES` is the contract the pages use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from docgen.errors import InputError

if TYPE_CHECKING:
    from docgen.model import ImageModel

from docgen.names import NUMBER_WORDS

TE_PACKAGE = "transformer-engine"
VLLM_PACKAGE = "vllm"


def number_word(n: int) -> str:
    """Prose spells small counts ("eight filters"); beyond twenty digits read better."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def arg_default(model: "ImageModel", name: str) -> str:
    for arg in model.dockerfile.args:
        if arg.name == name and arg.default is not None:
            return arg.default
    raise InputError(model.dockerfile.path, None, f"no `ARG {name}=<default>`: the docs state its value")


def warmed_version(model: "ImageModel", package: str, prefer: str | None = None) -> str:
    """Version of `package` as the image installs it: the `prefer` extra's set if warmed, else the first
    warmed extra whose install set reaches it."""
    extras = list(model.warm_extras)
    if prefer in extras:
        extras.remove(prefer)
        extras.insert(0, prefer)
    for extra in extras:
        version = model.package_version(package, [extra])
        if version:
            return version
    raise InputError(model.snapshot.path, None, f"no warmed extra of the image installs {package}")


def _count(key: str) -> Callable[["ImageModel"], str]:
    return lambda model: str(model.counts[key])


def _count_word(key: str) -> Callable[["ImageModel"], str]:
    return lambda model: number_word(model.counts[key])


# value key -> its text, as a function of the model (a stale value shows old -> new text in `check`)
VALUES: dict[str, Callable[["ImageModel"], str]] = {
    "filters.count": _count("filters"),
    "filters.count.word": _count_word("filters"),
    "venvs.count": _count("venvs"),
    "venvs.count.word": _count_word("venvs"),
    "warm_extras.count": _count("warm_extras"),
    "warm_extras.count.word": _count_word("warm_extras"),
    "actors.count": _count("actors"),
    "system_actors.count": _count("system_actors"),
    "not_prefetched.count": _count("not_prefetched"),
    "te.version": lambda m: warmed_version(m, TE_PACKAGE),
    "vllm.version": lambda m: warmed_version(m, VLLM_PACKAGE, prefer="vllm"),
    "uv.version": lambda m: arg_default(m, "UV_VERSION"),
    "python.version": lambda m: arg_default(m, "PYTHON_VERSION"),
}


def render_value(key: str, model: "ImageModel") -> str:
    return VALUES[key](model)
