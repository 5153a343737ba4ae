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
from typing import NamedTuple

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


MAX_DEPTH = 100   # real markers nest two or three deep


class MarkerError(ValueError):
    """A marker string that is not PEP 508; the lock reader reports it with the edge's file and line."""


class Variable(NamedTuple):
    value: str


class Value(NamedTuple):
    value: str


class Op(NamedTuple):
    value: str


_TOKEN = re.compile(r"""\s*(?:
      (?P<paren>[()])
    | (?P<op>===|==|!=|<=|>=|~=|<|>|not\s+in(?![\w.])|in(?![\w.]))
    | (?P<bool>and|or)(?![\w.])
    | (?P<string>'[^']*'|"[^"]*")
    | (?P<variable>[A-Za-z_][A-Za-z0-9_.]*)
    )""", re.VERBOSE)


def _parse(marker: str) -> list:
    """The marker as packaging's list form: atoms (lhs, Op, rhs) and sublists joined by 'and'/'or'.

    Written here rather than taken from packaging because uv's conflict markers run to thousands of
    characters and packaging's general parser made parsing them cost more than reading the whole lock."""
    tree = _parsed.get(marker)
    if tree is None:
        text = _GROUP_VAR.sub(r"extra\1", marker) if "group" in marker else marker
        tokens = _tokenize(text)
        depth = 0
        for kind, word in tokens:
            depth += (word == "(") - (word == ")") if kind == "paren" else 0
            if depth > MAX_DEPTH:   # the parser recurses once per parenthesis
                raise MarkerError(f"marker nests parentheses more than {MAX_DEPTH} deep: {marker[:80]!r}...")
        tree, end = _parse_expr(tokens, 0, text)
        if end != len(tokens):
            raise MarkerError(f"unexpected {tokens[end][1]!r} in marker {marker!r}")
        _parsed[marker] = tree
    return tree


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos, end = [], 0, len(text.rstrip())
    while pos < end:
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise MarkerError(f"cannot read marker {text!r} at column {pos + 1}")
        kind = match.lastgroup
        word = match.group(kind)
        tokens.append((kind, " ".join(word.split()) if kind == "op" else word))
        pos = match.end()
    return tokens


def _parse_expr(tokens: list, i: int, text: str) -> tuple[list, int]:
    items: list = []
    while True:
        item, i = _parse_atom(tokens, i, text)
        items.append(item)
        if i < len(tokens) and tokens[i][0] == "bool":
            items.append(tokens[i][1])
            i += 1
            continue
        return items, i


def _parse_atom(tokens: list, i: int, text: str):
    if i >= len(tokens):
        raise MarkerError(f"marker {text!r} ends where a comparison was expected")
    if tokens[i] == ("paren", "("):
        inner, i = _parse_expr(tokens, i + 1, text)
        if i >= len(tokens) or tokens[i] != ("paren", ")"):
            raise MarkerError(f"unbalanced parenthesis in marker {text!r}")
        return inner, i + 1
    if i + 2 >= len(tokens):
        raise MarkerError(f"marker {text!r} ends inside a comparison")
    lhs, op, rhs = _operand(tokens[i], text), tokens[i + 1], _operand(tokens[i + 2], text)
    if op[0] != "op":
        raise MarkerError(f"expected a comparison operator, got {op[1]!r} in marker {text!r}")
    if type(lhs) is type(rhs):
        raise MarkerError(f"a comparison needs one variable and one quoted value in marker {text!r}")
    return (lhs, Op(op[1]), rhs), i + 3


def _operand(token: tuple[str, str], text: str):
    kind, word = token
    if kind == "string":
        return Value(word[1:-1])
    if kind == "variable":
        return Variable(word)
    raise MarkerError(f"expected a variable or a quoted value, got {word!r} in marker {text!r}")


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
