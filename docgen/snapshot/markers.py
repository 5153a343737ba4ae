"""Evaluate the PEP 508 markers on uv.lock edges for one target platform, with `packaging`.

uv writes two kinds of terms into the same marker: ordinary environment terms (platform_machine,
python_full_version, ...) and its conflict terms, spelled as extras:
``extra == 'extra-7-nemo-rl-vllm'`` (an extra of a package), ``extra == 'group-7-nemo-rl-build'``
(a dependency group), ``extra == 'project-7-nemo-rl'``. A conflict term is true iff that item is
activated: a *set* question, which packaging (26.4 and later) answers when the environment maps
``extra`` to the set of activated items.

Each marker string is parsed once and each platform's environment prepared once: the same few hundred
marker strings are asked about thousands of times during a lock walk.
"""

from __future__ import annotations

import re
from typing import AbstractSet

from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName, \
    prepare_environment

# The image's interpreter: CPython 3.13 on linux x86_64 (NeMo-RL requires >=3.13.14,<3.14).
DEFAULT_ENV: dict[str, str] = {
    "implementation_name": "cpython",
    "implementation_version": "3.13.14",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_python_implementation": "CPython",
    "platform_release": "",
    "platform_system": "Linux",
    "platform_version": "",
    "python_full_version": "3.13.14",
    "python_version": "3.13",
    "sys_platform": "linux",
}

# uv never writes a `group` variable, but accept it as the same set test as `extra`.
_GROUP_VAR = re.compile(r"\bgroup(\s*(?:==|!=))")

_CONFLICT_ITEM = re.compile(r"""['"]((?:extra|group|project)-\d+-[^'"]*|[^'"]*)['"]""")

class MarkerError(ValueError):
    """A marker string that is not PEP 508; the lock reader reports it with the edge's file and line."""


def conflict_item(kind: str, package: str, name: str | None = None) -> str:
    """The string uv uses for a conflict item: extra-7-nemo-rl-vllm, group-..., project-..."""
    if kind == "project":
        return f"project-{len(package)}-{package}"
    return f"{kind}-{len(package)}-{package}-{name}"


def env_for(platform: dict[str, str] | None) -> tuple[tuple[str, str], ...]:
    """A hashable marker environment: the default target with `platform` laid over it."""
    env = dict(DEFAULT_ENV)
    if platform:
        env.update(platform)
    return tuple(sorted(env.items()))


def evaluate(marker: str, env: tuple[tuple[str, str], ...], activated: AbstractSet[str],
             answers: dict | None = None) -> bool:
    """True if `marker` holds on `env` with the conflict items in `activated` switched on. `answers` keeps
    parsed markers, prepared environments and results for the next call (the lock reader keeps one per
    lock); without it nothing is kept."""
    if answers is None:
        answers = {}
    parsed = answers.get(marker)
    if parsed is None:
        text = _GROUP_VAR.sub(r"extra\1", marker) if "group" in marker else marker
        try:
            parsed = answers[marker] = (Marker(text), frozenset(_CONFLICT_ITEM.findall(text)))
        except InvalidMarker as exc:
            # packaging's message adds the marker and a caret line under it: keep the first line
            raise MarkerError(f"not a PEP 508 marker {marker!r}: {str(exc).splitlines()[0]}") from None
        except RecursionError:   # packaging's parser recurses once per parenthesis
            raise MarkerError(f"marker nests parentheses too deeply: {marker[:80]!r}...") from None
    # Only the items the marker names can change its value: a walk asks the same marker again and again
    # with activated sets that differ elsewhere, so the answer is remembered per relevant subset.
    key = (marker, env, parsed[1].intersection(activated))
    result = answers.get(key)
    if result is None:
        prepared = answers.get(env)
        if prepared is None:
            prepared = answers[env] = prepare_environment(dict(env), context="requirement")
        prepared["extra"] = key[2]  # conflict items are already canonical names (lowercase, dashes)
        try:
            result = answers[key] = parsed[0].evaluate_prepared(prepared)
        except (UndefinedComparison, UndefinedEnvironmentName) as exc:
            raise MarkerError(f"cannot evaluate marker {marker!r}: {exc}") from None
        except RecursionError:
            raise MarkerError(f"marker nests parentheses too deeply: {marker[:80]!r}...") from None
    return result
