"""Inline values for prose: `<!-- docgen:value KEY -->nine<!-- docgen:end-value -->`.

Each value is one fact of the model as a short string; the table `VALUES` is the contract the pages use.
`VALUES` gives the plain text (a transcript or the prose lint reads it); `markdown_value` is the one place a
value becomes Markdown for a page: a `.code` value is a code span already (`code` escaped it), any other goes
through `text`, so a path or name from an input that holds HTML or a marker shows as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from docgen.errors import ArgError, InputError
from docgen.model.claims import (LOCATION_ENVS, LOCATIONS, build_user, location, package_in, py_executables,
                                 runtime_user, vllm_copies)
from docgen.model.cross import ARCH_NAMES, arch_floor, format_capability
from docgen.model.stages import build_arg_value
from docgen.names import NUMBER_WORDS
from docgen.records import Memo
from docgen.render.markdown import code, text

if TYPE_CHECKING:
    from collections.abc import Callable
    from docgen.model import ImageModel

TE_PACKAGE = "transformer-engine"
VLLM_PACKAGE = "vllm"


def number_word(n: int) -> str:
    """Prose spells small counts ("eight filters"); beyond twenty digits read better."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def arg_default(model: "ImageModel", name: str) -> str:
    """The value build ARG `name` has where the build uses it (`build_arg_value`: a stage's own over a
    global of the same name, as BuildKit scopes them)."""
    value, _ = build_arg_value(model.dockerfile, name)
    if value is not None:
        return value
    raise ArgError(f"{model.dockerfile.path} has no `ARG {name}=<default>`, and the docs state its value")


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
    raise ArgError(f"no warmed extra of the image installs {package} ({model.snapshot.path})")


def _count(key: str) -> Callable[["ImageModel"], str]:
    return lambda model: str(model.counts[key])


def _count_word(key: str) -> Callable[["ImageModel"], str]:
    return lambda model: number_word(cast(int, model.counts[key]))   # a count values name is never None


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


# ------------------------------------------------------------------------------------ prose facts
# Counts the prose states, paths under the image's roots, the runtime identity and build-argument facts.
# A key ending in ".code" renders its fact inside a code span (markers cannot sit inside one).

def _extra_counts(model: "ImageModel") -> dict[str, int]:
    """Counts beyond `model.counts`, computed once per model (several values and the prose lint read them)."""
    return _RENDERED.answer(model, "extra counts", lambda: _compute_extra_counts(model))


def _compute_extra_counts(model: "ImageModel") -> dict[str, int]:
    copies = vllm_copies(model)
    return {
        "uv_actors": sum(1 for a in model.actors if not a.is_system),
        "extras_not_warmed": len(model.extras_not_warmed),
        "warm_steps": len(model.warm_steps),
        "vllm_copies": len(copies.venvs) if copies else 0,
        "py_executables": len(py_executables(model)),
        "te_consumers": sum(1 for e in model.warm_extras if package_in(model, TE_PACKAGE, [e])),
    }


def _any_count(key: str, word: bool) -> Callable[["ImageModel"], str]:
    def value(model: "ImageModel") -> str:
        counts = model.counts
        n = counts[key] if key in counts else _extra_counts(model)[key]
        return number_word(cast(int, n)) if word else str(n)   # (only gym_venvs_by_default may be None)
    return value


def _arch_floor(model: "ImageModel") -> str:
    """The oldest compute capability every part of the image runs on: the highest of the minima of the
    build's architecture lists (TORCH_CUDA_ARCH_LIST, NVTE_CUDA_ARCHS, ...)."""
    floor = arch_floor(model)
    if floor is None:
        raise ArgError(f"{model.dockerfile.path} sets no CUDA architecture list (an ARG or ENV named *ARCH*), "
                       "and the docs state the hardware floor")
    return format_capability(floor[1])


def _arch_floor_name(model: "ImageModel") -> str:
    floor = _arch_floor(model)
    if floor not in ARCH_NAMES:
        raise ArgError(f"CUDA architecture floor {floor} in {model.dockerfile.path}: docgen knows no "
                       "architecture name for it (add it to ARCH_NAMES in docgen/model/cross.py)")
    return ARCH_NAMES[floor]


def _runtime_user(model: "ImageModel") -> tuple[str, str]:
    return runtime_user(model)


def _build_user(model: "ImageModel") -> tuple[str, str]:
    return build_user(model)


def _location(key: str) -> Callable[["ImageModel"], str]:
    def value(model: "ImageModel") -> str:
        found = location(model, key)
        if found is None:
            raise ArgError(f"{model.dockerfile.path} has no `ENV {LOCATION_ENVS[key]}=...`, and the docs state its value")
        return found
    return value


_PATHS: dict[str, Callable[["ImageModel"], str]] = {f"paths.{key}": _location(key) for key in LOCATIONS}


def _recorded(model: "ImageModel", key: str) -> str:
    """A provenance field as text, "" when the snapshot lacks it (never "None"; `docgen check` reports the
    missing provenance as a finding)."""
    value = (model.snapshot.provenance or {}).get(key)
    return str(value).strip() if value else ""


for _key in ("stages", "extras", "shared_builds", "uv_actors", "extras_not_warmed", "warm_steps", "vllm_copies",
             "py_executables", "te_consumers", "actors", "system_actors", "not_prefetched"):
    VALUES.setdefault(f"{_key}.count", _any_count(_key, False))
    VALUES.setdefault(f"{_key}.count.word", _any_count(_key, True))
for _key, _fn in _PATHS.items():
    VALUES[_key] = _fn
    VALUES[_key + ".code"] = (lambda fn: lambda m: code(fn(m)))(_fn)
# the values whose text is a code span already: a page shows them as they are
CODE_VALUES = frozenset(_key + ".code" for _key in _PATHS)
VALUES.update({
    "runtime.uid": lambda m: _runtime_user(m)[0],
    "runtime.gid": lambda m: _runtime_user(m)[1],
    "build.uid": lambda m: _build_user(m)[0],
    "cuda_arch.floor": _arch_floor,
    "cuda_arch.floor.name": _arch_floor_name,
    "cmake.version": lambda m: arg_default(m, "CMAKE_VERSION"),
    "nemo_rl.repo": lambda m: _recorded(m, "repo") or "an unrecorded repository",
    "nemo_rl.ref": lambda m: (_recorded(m, "ref") or _recorded(m, "commit")[:12]) or "an unrecorded ref",
})


# A value depends only on its key and the model, and the pages repeat some (the uv cache's path is stated
# on five).
_RENDERED = Memo()


# What a value function raises for a value the model cannot give (no such ARG, no such package); anything
# else is a bug of docgen's, and surfaces.
CANNOT_GIVE = (ArgError, InputError, KeyError, ValueError)


def render_value(key: str, model: "ImageModel") -> str:
    """The value's plain text (for a transcript or a comparison); a page's sentence takes `markdown_value`."""
    return _RENDERED.answer(model, key, lambda: VALUES[key](model))


def known_value(key: str, model: "ImageModel") -> str | None:
    """`render_value`, or None where there is no such key or the model cannot give the value (no such ARG): the
    pipeline reports that where a page uses the value, and the prose lint and the mentions compare with this."""
    try:
        return render_value(key, model) if key in VALUES else None
    except CANNOT_GIVE:
        return None


def markdown_value(key: str, model: "ImageModel") -> str:
    """The value as a page's sentence shows it: a code-span value as it is, any other escaped by `text` (HTML
    and marker-like comments become entities) on one line, as a value marker and its end share a line."""
    def compute() -> str:
        value = render_value(key, model)
        if key in CODE_VALUES:
            return value
        return text(value.replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    return _RENDERED.answer(model, ("markdown", key), compute)
