"""NeMo-RL's actor registry read from its Python source with `ast`.

`read_registry_source` evaluates only the few module-level constructs the registry is written in, once
with NEMO_RL_PY_EXECUTABLES_SYSTEM unset and once with it set to 1, and never imports or executes the RL
code (its modules have import-time side effects and need GPU packages). Kept apart from
`docgen.snapshot.registry` (the record types) so that loading a snapshot never pays for `ast`; the inverse,
writing the modules back for the stand-in, is `docgen.standin.registry_py`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple, TypeGuard

from docgen.errors import InputError
from docgen.io import read_input
from docgen.snapshot.registry import (
    SYSTEM_COMMAND,
    SYSTEM_FLAG,
    GIT_ROOT_PLACEHOLDER,
    UPSTREAM,
    VIRTUAL_CLUSTER,
    REGISTRY_MODULE,
    EXECUTABLES_CLASS,
    REGISTRY_NAME,
    Registry,
    RegistryEntry,
)

# A trailing `# fork <ref>` comment on a dict entry marks an actor the fork adds.
_FORK_COMMENT = re.compile(r"^[\s,]*#\s*(fork\s.*?)\s*$")

# ---------------------------------------------------------------------------------------------
# Source reader: a tiny evaluator of module-level statements. Values it knows:
#   str/bool/None constants, _Command, _Class (a class body's members), _Registry (a dict of
#   commands), _External (a module outside the tree), _GIT_ROOT, the os.environ getter.
# A binding whose value cannot be evaluated is kept as _Unresolved and only fails when used,
# because upstream modules hold plenty of code the registry does not depend on.


class _Command(NamedTuple):
    text: str
    member: str | None = None


class _Unresolved(NamedTuple):
    error: InputError


class _External(NamedTuple):
    module: str


class _Class(NamedTuple):
    name: str
    members: dict[str, tuple[object, int]]  # name -> (value, line)


class _Slot(NamedTuple):
    command: _Command
    file: str
    line: int
    source: str


class _Registry:
    def __init__(self, slots: dict[str, _Slot]) -> None:
        self.slots = slots


class _LazyImport(NamedTuple):
    module: str | None  # dotted name; None when a relative import climbs out of the tree
    name: str
    file: Path
    line: int


_GIT_ROOT = object()
_ENVIRON = object()
_ENV_GET = object()


class _Module(NamedTuple):
    path: Path
    rel: str
    lines: list[str]

    def error(self, node: ast.AST | int, message: str) -> InputError:
        line = node if isinstance(node, int) else getattr(node, "lineno", 1)
        return InputError(self.path, line, message)

    def source_of(self, value: ast.expr) -> str:
        """'fork <ref>' when the entry's line ends in such a comment, else 'upstream'."""
        assert value.end_lineno is not None   # ast.parse sets it on every expression
        line = self.lines[value.end_lineno - 1].encode()  # ast columns count UTF-8 bytes
        match = _FORK_COMMENT.match(line[value.end_col_offset :].decode(errors="replace"))
        return match.group(1) if match else UPSTREAM


class _SourceTree:
    """One evaluation of the tree with the system flag unset (system=False) or set to 1."""

    def __init__(self, root: Path, system: bool) -> None:
        self.root = root
        self.system = system
        self._namespaces: dict[Path, dict[str, object] | None] = {}  # None while evaluating

    # -- modules and imports ------------------------------------------------------------------

    def namespace(self, path: Path) -> dict[str, object]:
        if path in self._namespaces:
            known = self._namespaces[path]
            if known is None:
                raise InputError(path, 1, "circular import")
            return known
        text = read_input(path, "module")
        try:
            tree = ast.parse(text, filename=str(path))
        except SyntaxError as exc:
            raise InputError(path, exc.lineno, f"syntax error: {exc.msg}") from None
        except RecursionError:
            # CPython's parser builds the tree recursively: a chain of thousands of `elif`s or nested
            # expressions exceeds its depth. The registry is never written like that, so it is bad input.
            raise InputError(path, _deepest_line(text), "nested too deeply to read with Python's ast "
                             "(a conditional or expression chain thousands of levels long)") from None
        # Split on the line ends ast counts (str.splitlines also splits on form feeds).
        module = _Module(path, path.relative_to(self.root).as_posix(), re.split(r"\r\n|\r|\n", text))
        ns: dict[str, object] = {}
        self._namespaces[path] = None
        try:
            for stmt in tree.body:
                try:
                    self._exec(stmt, ns, module)
                except RecursionError:
                    # an expression the parser accepted but too deep to evaluate (or unparse) recursively
                    raise module.error(stmt, "nested too deeply to evaluate statically") from None
        except InputError:
            del self._namespaces[path]  # a later import reports the same error, not a cycle
            raise
        self._namespaces[path] = ns
        return ns

    def module_path(self, dotted: str) -> Path | None:
        base = self.root.joinpath(*dotted.split("."))
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def _absolute(self, stmt: ast.ImportFrom, module: _Module) -> str | None:
        if stmt.level == 0:
            return stmt.module
        package = module.rel.split("/")[:-1]
        if stmt.level - 1 > len(package):
            return None
        base = package[: len(package) - (stmt.level - 1)]
        return ".".join(base + (stmt.module.split(".") if stmt.module else [])) or None

    def _resolve_import(self, lazy: _LazyImport) -> object:
        path = self.module_path(lazy.module) if lazy.module else None
        if path is None:
            where = lazy.module or "a relative import"
            raise InputError(lazy.file, lazy.line, f"{where} is not a module in the source tree {self.root}")
        ns = self.namespace(path)
        if lazy.name not in ns:
            raise InputError(lazy.file, lazy.line, f"{lazy.module} defines no {lazy.name}")
        return self._force(ns[lazy.name])

    def _force(self, value: object) -> object:
        if isinstance(value, _LazyImport):
            return self._resolve_import(value)
        if isinstance(value, _Unresolved):
            raise value.error
        return value

    # -- statements -----------------------------------------------------------------------------

    def _exec(self, stmt: ast.stmt, ns: dict[str, object], module: _Module) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = alias.asname or alias.name.partition(".")[0]
                ns[name] = _External(alias.name if alias.asname else name)
        elif isinstance(stmt, ast.ImportFrom):
            dotted = self._absolute(stmt, module)
            for alias in stmt.names:
                if alias.name != "*":
                    ns[alias.asname or alias.name] = _LazyImport(dotted, alias.name, module.path, stmt.lineno)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    ns[target.id] = self._bind(target.id, stmt.value, ns, module)
        elif isinstance(stmt, ast.ClassDef):
            ns[stmt.name] = self._class(stmt, ns, module)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ns[stmt.name] = _Unresolved(module.error(stmt, f"function {stmt.name} is not evaluated statically"))
        elif isinstance(stmt, ast.Expr) and _is_update_call(stmt.value):
            self._update(stmt.value, ns, module)
        # Anything else (conditionals, loops, calls with side effects) does not shape the registry.

    def _bind(self, name: str, value: ast.expr, ns: dict[str, object], module: _Module) -> object:
        # The checkout root is computed at run time; commands keep it as the {git_root} placeholder.
        if name == "git_root":
            return _GIT_ROOT
        try:
            return self._eval(value, ns, module)
        except InputError as exc:
            return _Unresolved(exc)

    def _class(self, stmt: ast.ClassDef, ns: dict[str, object], module: _Module) -> _Class:
        members: dict[str, tuple[object, int]] = {}
        for item in stmt.body:
            if isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None:
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                scope = {**ns, **{name: value for name, (value, _) in members.items()}}
                for target in targets:
                    if isinstance(target, ast.Name):
                        members[target.id] = (self._bind(target.id, item.value, scope, module), item.lineno)
        return _Class(stmt.name, members)

    def _update(self, call: ast.Call, ns: dict[str, object], module: _Module) -> None:
        func = call.func
        assert isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)   # _is_update_call
        try:
            target = self._force(ns.get(func.value.id))
        except InputError:
            return  # not something the registry could be
        if isinstance(target, _Registry):
            other = self._eval(call.args[0], ns, module)
            if not isinstance(other, _Registry):
                raise module.error(call, f"{func.value.id}.update() needs a registry dict")
            target.slots.update(other.slots)  # dict.update: known keys keep their position

    # -- expressions ----------------------------------------------------------------------------

    def _eval(self, node: ast.expr, ns: dict[str, object], module: _Module) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in ns:
                raise module.error(node, f"name {node.id!r} is not defined at module level")
            return self._force(ns[node.id])
        if isinstance(node, ast.JoinedStr):
            return _Command(self._fstring(node, ns, module))
        if isinstance(node, ast.Attribute):
            return self._attribute(self._eval(node.value, ns, module), node, module)
        if isinstance(node, ast.IfExp):
            test = self._eval(node.test, ns, module)
            if not isinstance(test, bool):
                raise module.error(node.test, f"cannot decide {ast.unparse(node.test)} statically")
            return self._eval(node.body if test else node.orelse, ns, module)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            left, right = (self._eval(side, ns, module) for side in (node.left, node.comparators[0]))
            if not all(isinstance(side, (str, bool, int, type(None))) for side in (left, right)):
                raise module.error(node, f"cannot compare {ast.unparse(node)} statically")
            return (left == right) == isinstance(node.ops[0], ast.Eq)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self._eval(node.operand, ns, module)
            if isinstance(operand, bool):
                return not operand
        if isinstance(node, ast.Call) and self._is_environ_get(node.func, ns, module):
            return self._environ_get(node, ns, module)
        if isinstance(node, ast.Dict):
            return self._dict(node, ns, module)
        raise module.error(node, f"cannot evaluate {_short(node)} statically")

    def _attribute(self, base: object, node: ast.Attribute, module: _Module) -> object:
        if isinstance(base, _Class):
            if node.attr not in base.members:
                raise module.error(node, f"{base.name} has no member {node.attr}")
            return _Command(self._command(self._force(base.members[node.attr][0]), node, module).text, node.attr)
        known = {
            ("sys", "executable"): _Command(SYSTEM_COMMAND),
            ("os", "environ"): _ENVIRON,
            ("os", "getenv"): _ENV_GET,
        }
        if isinstance(base, _External) and (base.module, node.attr) in known:
            return known[base.module, node.attr]
        if base is _ENVIRON and node.attr == "get":
            return _ENV_GET
        raise module.error(node, f"cannot resolve {_short(node)} statically")

    def _is_environ_get(self, func: ast.expr, ns: dict[str, object], module: _Module) -> bool:
        try:
            return self._eval(func, ns, module) is _ENV_GET
        except InputError:
            return False  # any other call is reported as an expression the reader cannot evaluate

    def _environ_get(self, node: ast.Call, ns: dict[str, object], module: _Module) -> object:
        args = [self._eval(arg, ns, module) for arg in node.args]
        if node.keywords or not 1 <= len(args) <= 2 or args[0] != SYSTEM_FLAG:
            raise module.error(node, f"only the {SYSTEM_FLAG} environment variable is understood")
        return "1" if self.system else (args[1] if len(args) == 2 else None)

    def _fstring(self, node: ast.JoinedStr, ns: dict[str, object], module: _Module) -> str:
        text: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                text.append(str(part.value))   # (an f-string's constant parts are str)
                continue
            assert isinstance(part, ast.FormattedValue)   # a JoinedStr holds only these two
            field = part.value
            plain = isinstance(field, ast.Name) and part.conversion == -1 and part.format_spec is None
            name = field.id if plain and isinstance(field, ast.Name) else None   # a bare {name}
            unknown = f"unknown f-string placeholder {{{ast.unparse(field)}}}"
            if name is not None and name not in ns:
                raise module.error(field, f"{unknown}: {name} is not defined at module level")
            if name is None or self._force(ns[name]) is not _GIT_ROOT:
                raise module.error(field, f"{unknown}: only {GIT_ROOT_PLACEHOLDER} is understood")
            text.append(GIT_ROOT_PLACEHOLDER)
        return "".join(text)

    def _command(self, value: object, node: ast.AST | int, module: _Module) -> _Command:
        """`node`: the expression, or the line of a class member (whose expression is evaluated already)."""
        if isinstance(value, _Command):
            return value
        if isinstance(value, str):
            return _Command(value)
        what = _short(node) if isinstance(node, ast.AST) else f"a {EXECUTABLES_CLASS} member"
        raise module.error(node, f"{what} is not an executable command")

    def _dict(self, node: ast.Dict, ns: dict[str, object], module: _Module) -> _Registry:
        registry = _Registry({})
        for key, value in zip(node.keys, node.values):
            if key is None:
                raise module.error(value, "'**' unpacking is not supported in a registry dict")
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise module.error(key, f"registry key {_short(key)} is not a string literal")
            command = self._command(self._eval(value, ns, module), value, module)
            registry.slots[key.value] = _Slot(command, module.rel, key.lineno, module.source_of(value))
        return registry

    # -- results --------------------------------------------------------------------------------

    def _required(self, rel: str) -> tuple[Path, dict[str, object]]:
        path = self.root / rel
        if not path.is_file():
            raise InputError(path, None, f"module not found in the source tree {self.root}")
        return path, self.namespace(path)

    def registry(self) -> dict[str, _Slot]:
        path, ns = self._required(REGISTRY_MODULE)
        if REGISTRY_NAME not in ns:
            raise InputError(path, 1, f"{REGISTRY_NAME} is not defined")
        registry = self._force(ns[REGISTRY_NAME])
        if not isinstance(registry, _Registry):
            raise InputError(path, 1, f"{REGISTRY_NAME} is not a dict of actor -> executable")
        return registry.slots

    def executables(self) -> dict[str, str]:
        path, ns = self._required(VIRTUAL_CLUSTER)
        cls = ns.get(EXECUTABLES_CLASS)
        if not isinstance(cls, _Class):
            raise InputError(path, 1, f"class {EXECUTABLES_CLASS} is not defined")
        module = _Module(path, VIRTUAL_CLUSTER, [])
        return {
            name: self._command(self._force(value), line, module).text
            for name, (value, line) in cls.members.items()
        }


def _is_update_call(node: ast.expr) -> TypeGuard[ast.Call]:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "update"
        and isinstance(node.func.value, ast.Name)
        and len(node.args) == 1
        and not node.keywords
    )


def _deepest_line(text: str) -> int:
    """Where a chain too deep for the parser most likely sits: the first line of the longest run of lines
    that each open an `elif` (the usual shape), else the line with the most opening brackets."""
    lines = re.split(r"\r\n|\r|\n", text)
    best, best_len, run_start, run_len = 1, 0, 1, 0
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("elif "):
            if run_len == 0:
                run_start = number
            run_len += 1
            if run_len > best_len:
                best, best_len = run_start, run_len
        elif line.strip() and not line[:1].isspace():
            run_len = 0
    if best_len:
        return max(best - 1, 1)   # the `if` the chain hangs from
    depth = [sum(line.count(c) for c in "([{") + line.count(" if ") for line in lines]
    return depth.index(max(depth)) + 1 if lines else 1


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def read_registry_source(root: str | Path) -> Registry:
    """The registry of an RL checkout at `root`, read statically (nothing is imported or run)."""
    root = Path(root)
    default_tree = _SourceTree(root, system=False)
    executables = default_tree.executables()  # first, so a missing class is reported where it belongs
    default = default_tree.registry()
    system = _SourceTree(root, system=True).registry()
    if list(default) != list(system):
        raise InputError(root / REGISTRY_MODULE, 1, f"the actors differ when {SYSTEM_FLAG}=1")
    entries = tuple(
        RegistryEntry(
            actor=actor,
            member=slot.command.member,
            command=slot.command.text,
            command_system=system[actor].command.text,
            source=slot.source,
            file=slot.file,
            line=slot.line,
        )
        for actor, slot in default.items()
    )
    return Registry(executables, entries)
