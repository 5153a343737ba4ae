"""Evaluate the PEP 508 markers on uv.lock edges for one target platform.

uv writes two kinds of terms into the same marker: ordinary environment terms (platform_machine,
python_full_version, ...) and its conflict terms, spelled as extras:
``extra == 'extra-7-nemo-rl-vllm'`` (an extra of a package), ``extra == 'group-7-nemo-rl-build'``
(a dependency group), ``extra == 'project-7-nemo-rl'``. A conflict term is true iff that item is
activated, which is a *set* question that packaging's single-``extra`` evaluation cannot answer.
So packaging only parses; this module evaluates.

The environment terms are constant for one platform, so each (marker, platform) is folded once into
a small tree over conflict terms only and cached: the same few hundred marker strings are asked
about thousands of times during a lock walk.
"""

from __future__ import annotations

import re

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

# A folded marker is True, False, ("has", item, want) or ("and"|"or", tuple_of_nodes).
_Node = object

# uv never writes a `group` variable, but accept it as the same set test as `extra`.
_GROUP_VAR = re.compile(r"\bgroup(\s*(?:==|!=))")

_parsed: dict[str, list] = {}
_folded: dict[tuple[str, tuple], _Node] = {}
_VERSION_VARS = frozenset({"python_version", "python_full_version", "implementation_version"})


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


def evaluate(marker: str, env: tuple[tuple[str, str], ...], activated: set[str] | frozenset[str]) -> bool:
    """True if `marker` holds on `env` with the conflict items in `activated` switched on."""
    node = _folded.get((marker, env))
    if node is None:
        node = _folded[(marker, env)] = _fold_list(_parse(marker), dict(env))
    return _eval(node, activated)


def _parse(marker: str) -> list:
    tree = _parsed.get(marker)
    if tree is None:
        from packaging.markers import Marker  # lazy: only walks that meet a marker pay for it

        text = _GROUP_VAR.sub(r"extra\1", marker) if "group" in marker else marker
        tree = _parsed[marker] = Marker(text)._markers
    return tree


def _eval(node: _Node, activated) -> bool:
    if node is True or node is False:
        return node
    kind = node[0]
    if kind == "has":
        return (node[1] in activated) == node[2]
    if kind == "or":
        return any(_eval(child, activated) for child in node[1])
    return all(_eval(child, activated) for child in node[1])


def _fold_list(items: list, env: dict[str, str]) -> _Node:
    """packaging's list form: atoms and sublists joined by 'and'/'or'; 'and' binds tighter."""
    groups: list[list[_Node]] = [[]]
    for item in items:
        if item == "or":
            groups.append([])
        elif item == "and":
            continue
        elif isinstance(item, list):
            groups[-1].append(_fold_list(item, env))
        else:
            groups[-1].append(_fold_atom(item, env))
    return _combine("or", [_combine("and", group) for group in groups])


def _combine(kind: str, nodes: list[_Node]) -> _Node:
    absorbing, neutral = (True, False) if kind == "or" else (False, True)
    kept = []
    for node in nodes:
        if node is absorbing:
            return absorbing
        if node is not neutral:
            kept.append(node)
    if not kept:
        return neutral
    return kept[0] if len(kept) == 1 else (kind, tuple(kept))


def _fold_atom(atom: tuple, env: dict[str, str]) -> _Node:
    lhs, op, rhs = atom
    op = op.value
    lhs_var = type(lhs).__name__ == "Variable"
    var, value = (lhs.value, rhs.value) if lhs_var else (rhs.value, lhs.value)
    if var == "extra":
        if op in ("==", "!="):
            return ("has", value, op == "==")
        raise ValueError(f"unsupported operator on extra: {op}")
    env_value = env.get(var, "")
    left, right = (env_value, value) if lhs_var else (value, env_value)
    return _compare(left, op, right, version_like=var in _VERSION_VARS)


def _compare(left: str, op: str, right: str, *, version_like: bool) -> bool:
    if op == "in":
        return left in right
    if op == "not in":
        return left not in right
    if version_like or op == "~=":
        from packaging.specifiers import InvalidSpecifier, Specifier

        try:
            return Specifier(f"{op}{right}").contains(left, prereleases=True)
        except InvalidSpecifier:
            pass
    ops = {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
           ">": left > right, ">=": left >= right, "===": left == right}
    if op not in ops:
        raise ValueError(f"unsupported marker operator: {op}")
    return ops[op]
