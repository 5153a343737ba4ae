"""Read uv.lock and answer "what does `uv sync --frozen --extra X` install?" without running uv.

The lock is parsed once with tomllib; a single scan of the raw text gives each [[package]] its line.
Every dependency edge is resolved to exactly one package at read time (by name, plus version and
source when the edge gives them), so a lock that names a missing or ambiguous package fails early
with the line of the package that declares the edge.

The install walk follows uv's own: start at the root project's dependencies, the optional
dependencies of each requested extra and the requested dependency groups; follow each edge whose
marker holds, also walking the target's optional dependencies for the extras the edge names; an
edge's extras join the activated conflict set that uv's `extra == 'extra-N-pkg-x'` terms test.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path

from docgen.errors import InputError
from docgen.io import MAX_LOCK_BYTES, parse_toml, read_input
from docgen.snapshot import markers
from docgen.names import normalize
from docgen.records import Memo
from docgen.text import LineCounter, line_at
from docgen.snapshot.pyproject import ConflictItem, read_root_facts

KNOWN_LOCK_VERSIONS = frozenset({1})
_MARKER_ANSWERS = Memo()   # per lock: markers parsed, environments prepared, results (markers.evaluate)
SOURCE_KINDS = ("registry", "git", "url", "path", "directory", "editable", "virtual")


@dataclass(frozen=True, slots=True)
class PackageId:
    name: str
    version: str | None
    source: str  # '<kind>+<value>' as the lock writes it, e.g. 'git+https://...?rev=x#sha'


@dataclass(frozen=True, slots=True)
class Dependency:
    name: str
    version: str | None
    source: str | None
    extras: tuple[str, ...]
    marker: str | None


@dataclass(frozen=True)
class LockPackage:
    id: PackageId
    line: int
    source_kind: str
    dependencies: tuple[Dependency, ...]
    optional: dict[str, tuple[Dependency, ...]]
    groups: dict[str, tuple[Dependency, ...]]
    has_wheels: bool
    has_sdist: bool
    # Set by the Lock, which alone knows whether (name, version) repeats.
    _key: str = field(default="", compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.id.name

    @property
    def version(self) -> str | None:
        return self.id.version

    @property
    def source_value(self) -> str:
        return self.id.source.split("+", 1)[1]

    @property
    def source_built(self) -> bool:
        """Built from source on install (a wheel build runs), rather than unpacked from a wheel."""
        kind = self.source_kind
        if kind in ("git", "directory", "editable"):
            return True
        if kind == "path":
            return not self.source_value.endswith(".whl")
        if kind in ("registry", "url"):
            return self.has_sdist and not self.has_wheels
        return False  # virtual: nothing to build

    @property
    def key(self) -> str:
        return self._key or _plain_key(self)


def _plain_key(pkg: LockPackage) -> str:
    if pkg.id.version is None:
        return f"{pkg.id.name} ({pkg.source_kind})"
    return f"{pkg.id.name}=={pkg.id.version}"


def _short_source(pkg: LockPackage) -> str:
    value = pkg.source_value
    if pkg.source_kind == "git":
        return value.rsplit("#", 1)[-1][:7]
    if pkg.source_kind in ("url", "path"):
        return value.rstrip("/").rsplit("/", 1)[-1]
    return value.split("://", 1)[-1].rstrip("/")


@dataclass(eq=False)
class Lock:
    path: str
    version: int
    revision: int
    requires_python: str | None
    packages: tuple[LockPackage, ...]
    root: str
    conflicts: tuple[tuple[ConflictItem, ...], ...]
    default_groups: tuple[str, ...] = ()
    # (id(package), None | extra | 'group:<name>') -> [(edge, target)], resolved at read time.
    _edges: dict[tuple[int, str | None], list[tuple[Dependency, LockPackage]]] = field(default_factory=dict, repr=False)
    _by_name: dict[str, list[LockPackage]] = field(default_factory=dict, repr=False)
    # install sets already walked: the snapshot asks for the same sets again when it looks for shared builds
    _walked: dict[tuple, tuple[LockPackage, ...]] = field(default_factory=dict, repr=False)

    def find(self, name: str) -> tuple[LockPackage, ...]:
        return tuple(self._by_name.get(normalize(name), ()))

    def get(self, dep: Dependency) -> LockPackage:
        return self._resolve(dep, None)

    def root_package(self) -> LockPackage:
        found = self.find(self.root)
        if len(found) != 1:
            raise InputError(self.path, None, f"root project {self.root!r} appears {len(found)} times in the lock")
        return found[0]

    def install_set(self, extras: Iterable[str] = (), groups: Iterable[str] | None = None, *,
                    platform: dict | None = None) -> tuple[LockPackage, ...]:
        """What `uv sync --frozen --extra X...` installs for the root project, the root excluded."""
        extras = tuple(extras)
        groups = None if groups is None else tuple(groups)
        key = (frozenset(extras), None if groups is None else frozenset(groups),
               None if platform is None else tuple(sorted(platform.items())))
        if key not in self._walked:
            self._walked[key] = self._walk(extras, groups, platform)
        return self._walked[key]

    def _walk(self, extras: tuple[str, ...], groups: tuple[str, ...] | None,
              platform: dict | None) -> tuple[LockPackage, ...]:
        root = self.root_package()
        root_name = root.id.name
        wanted_extras = []
        for extra in extras:
            norm = normalize(extra)
            if norm not in root.optional:
                raise InputError(self.path, root.line, f"unknown extra {extra!r} for {root_name} "
                                 f"(the lock knows: {', '.join(sorted(root.optional)) or 'none'})")
            wanted_extras.append(norm)
        if groups is None:
            wanted_groups = [g for g in map(normalize, self.default_groups) if g in root.groups]
        else:
            wanted_groups = []
            for group in groups:
                norm = normalize(group)
                if norm not in root.groups:
                    raise InputError(self.path, root.line, f"unknown dependency group {group!r} for {root_name}")
                wanted_groups.append(norm)

        env = markers.env_for(platform)
        answers = _MARKER_ANSWERS.answer(self, "markers", dict)
        activated = {markers.conflict_item("project", root_name)}
        activated.update(markers.conflict_item("extra", root_name, e) for e in wanted_extras)
        activated.update(markers.conflict_item("group", root_name, g) for g in wanted_groups)

        root_index = id(root)
        seen: set[tuple[int, str | None]] = {(root_index, None)}
        queue: deque[tuple[LockPackage, str | None]] = deque([(root, None)])
        for extra in wanted_extras:
            seen.add((root_index, extra))
            queue.append((root, extra))
        installed: dict[int, LockPackage] = {}

        def follow(edges: Sequence[tuple[Dependency, LockPackage]], owner: LockPackage) -> None:
            for dep, target in edges:
                fresh: Set[str] = frozenset()   # the empty frozenset is a shared constant: nothing is built
                if dep.extras:
                    fresh = {markers.conflict_item("extra", dep.name, x) for x in dep.extras} - activated
                try:
                    holds = dep.marker is None or markers.evaluate(
                        dep.marker, env, activated | fresh if fresh else activated, answers)
                except markers.MarkerError as exc:
                    raise InputError(self.path, owner.line, f"{owner.id.name} -> {dep.name}: {exc}") from None
                if not holds:
                    continue
                activated.update(fresh)
                target_index = id(target)
                installed[target_index] = target
                for extra in (None, *dep.extras):
                    if (target_index, extra) not in seen:
                        seen.add((target_index, extra))
                        queue.append((target, extra))

        for group in wanted_groups:
            follow(self._edges[(root_index, "group:" + group)], root)
        while queue:
            package, package_extra = queue.popleft()
            follow(self._edges.get((id(package), package_extra), ()), package)
        installed.pop(root_index, None)
        self._refuse_conflicts(activated, root)
        return tuple(sorted(installed.values(), key=lambda p: p.key))

    def _refuse_conflicts(self, activated: set[str], root: LockPackage) -> None:
        """uv sync refuses two items of one conflict set, also when an edge activated one of them."""
        for conflict_set in self.conflicts:
            on = []
            for item in conflict_set:
                package = normalize(item.package or self.root)
                if item.extra:
                    code = markers.conflict_item("extra", package, normalize(item.extra))
                    label = f"{package}[{item.extra}]"
                elif item.group:
                    code = markers.conflict_item("group", package, normalize(item.group))
                    label = f"{package}:{item.group}"
                else:
                    code, label = markers.conflict_item("project", package), package
                if code in activated:
                    on.append(label)
            if len(on) > 1:
                raise InputError(self.path, root.line, f"{' and '.join(on)} are declared conflicting "
                                 "([tool.uv] conflicts) but this selection enables both")

    def shared_source_builds(self, extras: Sequence[str]) -> list[tuple[LockPackage, tuple[str, ...]]]:
        """Source-built packages that more than one of `extras` installs: built once, reused after."""
        reached: dict[int, tuple[LockPackage, list[str]]] = {}
        root = self.root_package()
        for extra in extras:
            for pkg in self.install_set([extra]):
                if pkg is root or pkg.source_kind in ("editable", "virtual") or not pkg.source_built:
                    continue
                reached.setdefault(id(pkg), (pkg, []))[1].append(extra)
        shared = [(pkg, tuple(names)) for pkg, names in reached.values() if len(names) > 1]
        return sorted(shared, key=lambda item: item[0].key)

    def _resolve(self, dep: Dependency, owner: LockPackage | None) -> LockPackage:
        candidates = self._by_name.get(dep.name, [])
        if dep.version is not None:
            candidates = [p for p in candidates if p.id.version == dep.version]
        if dep.source is not None:
            candidates = [p for p in candidates if p.id.source == dep.source]
        if len(candidates) == 1:
            return candidates[0]
        what = dep.name + (f" {dep.version}" if dep.version else "") + (f" from {dep.source}" if dep.source else "")
        if not candidates:
            problem = f"dependency {what} names a package that is not in the lock"
        else:
            problem = (f"dependency {what} is ambiguous: {len(candidates)} packages match "
                       "and the edge gives no version/source to tell them apart")
        if owner is None:
            raise InputError(self.path, None, problem)
        raise InputError(self.path, _edge_line(self.path, owner, dep), f"{owner.key}: {problem}")


def _edge_line(path: str, owner: LockPackage, dep: Dependency) -> int:
    """The line of the edge's `{ name = ...` below the owner's header (only computed on errors)."""
    lines = read_input(path, limit=MAX_LOCK_BYTES).split("\n")  # the line ends TOML counts, as the header scan does
    needle = f'{{ name = "{dep.name}"'
    version = f'version = "{dep.version}"' if dep.version else "version = "
    for number in range(owner.line, len(lines) + 1):
        text = lines[number - 1]
        if number > owner.line and text.startswith("[[package]]"):
            break
        if needle in text and (version in text) == (dep.version is not None):
            return number
    return owner.line


def _source(raw: object, path: str, line: int) -> tuple[str, str]:
    if not isinstance(raw, dict) or len(raw) < 1:
        raise InputError(path, line, "package source must be a table like { registry = \"...\" }")
    for kind in SOURCE_KINDS:
        if kind in raw:
            return kind, f"{kind}+{raw[kind]}"
    raise InputError(path, line, f"unknown package source {raw!r}")


def _deps(raw: object, path: str, line: int) -> tuple[Dependency, ...]:
    if not isinstance(raw, list):
        raise InputError(path, line, "dependencies must be a list of tables")
    out = []
    for edge in raw:
        name = edge.get("name") if isinstance(edge, dict) else None
        if not isinstance(name, str):
            raise InputError(path, line, f"dependency without a name: {edge!r}")
        source = edge.get("source")
        out.append(Dependency(name, edge.get("version"), _source(source, path, line)[1] if source else None,
                              tuple(edge.get("extra", ())), edge.get("marker")))
    return tuple(out)


# Half of a real lock is wheel and sdist URLs with hashes, which docgen never reads: only whether a
# package has them. Entries of exactly uv's shape are swapped for a placeholder before parsing
# (line count kept, so TOML errors keep their lines); anything else is parsed as written.
_ARTIFACT = r'\{ url = "[^"\n]*", hash = "sha256:[0-9a-f]{64}"(?:, size = [0-9]+)?(?:, upload-time = "[^"\n]*")? \}'
_WHEEL_ENTRY = re.compile(rf"^    {_ARTIFACT},$", re.M)
_SDIST_ENTRY = re.compile(rf"^sdist = {_ARTIFACT}$", re.M)


def _without_artifact_urls(text: str) -> str:
    return _SDIST_ENTRY.sub("sdist = 0", _WHEEL_ENTRY.sub("    0,", text))


_HEADER = "[[package]]\n"
_TOP_VERSION = re.compile(r"^version\s*=", re.M)


def read_lock(path: str | Path, root: str | None = None, default_groups: Sequence[str] | None = None) -> Lock:
    """Read uv.lock. `root` (the project uv syncs) and its default groups come from the
    pyproject.toml beside the lock unless given."""
    path = str(path)
    text = read_input(path, limit=MAX_LOCK_BYTES)
    data = parse_toml(path, _without_artifact_urls(text))

    first_table = text.find("\n[")
    version_match = _TOP_VERSION.search(text, 0, first_table if first_table >= 0 else len(text))
    version_line = line_at(text, version_match.start()) if version_match else 1
    version = data.get("version")
    if version is None:
        raise InputError(path, 1, "uv.lock has no top-level version")
    if version not in KNOWN_LOCK_VERSIONS:
        known = ", ".join(str(v) for v in sorted(KNOWN_LOCK_VERSIONS))
        raise InputError(path, version_line, f"unsupported uv.lock version {version} (docgen knows {known})")

    # One scan for package lines: the i-th [[package]] header belongs to the i-th package.
    header_lines: list[int] = []  # line of the `name = ` right below the header, else the header's
    line_of = LineCounter(text)
    start = text.find(_HEADER)
    while start >= 0:
        if start == 0 or text[start - 1] == "\n":  # a header, not the text inside a string
            line = line_of(start)
            header_lines.append(line + 1 if text.startswith("name = ", start + len(_HEADER)) else line)
        start = text.find(_HEADER, start + 1)

    raw_packages = data.get("package", [])
    packages: list[LockPackage] = []
    for index, raw in enumerate(raw_packages):
        pkg_line = header_lines[index] if index < len(header_lines) else 1
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(path, pkg_line, "[[package]] without a name")
        kind, source = _source(raw.get("source"), path, pkg_line)
        packages.append(LockPackage(
            id=PackageId(normalize(name), raw.get("version"), source),
            line=pkg_line,
            source_kind=kind,
            dependencies=_deps(raw.get("dependencies", []), path, pkg_line),
            optional={normalize(k): _deps(v, path, pkg_line) for k, v in raw.get("optional-dependencies", {}).items()},
            groups={normalize(k): _deps(v, path, pkg_line) for k, v in raw.get("dev-dependencies", {}).items()},
            has_wheels=bool(raw.get("wheels")),
            has_sdist="sdist" in raw,
        ))

    # Readable keys: name==version, with the source when (name, version) repeats.
    counts: dict[tuple[str, str | None], int] = {}
    for pkg in packages:
        counts[(pkg.id.name, pkg.id.version)] = counts.get((pkg.id.name, pkg.id.version), 0) + 1
    for pkg in packages:
        key = _plain_key(pkg)
        if counts[(pkg.id.name, pkg.id.version)] > 1:
            key += f"@{pkg.source_kind}:{_short_source(pkg)}"
        object.__setattr__(pkg, "_key", key)

    lock = Lock(
        path=path,
        version=version,
        revision=data.get("revision", 0),
        requires_python=data.get("requires-python"),
        packages=tuple(packages),
        root="",
        conflicts=tuple(tuple(ConflictItem(i.get("package"), i.get("extra"), i.get("group")) for i in s)
                        for s in data.get("conflicts", [])),
    )
    for pkg in packages:
        lock._by_name.setdefault(pkg.id.name, []).append(pkg)

    # Resolve every edge now, so a broken lock fails here with a line.
    resolved: dict[tuple[str, str | None, str | None], LockPackage] = {}

    def edges(owner: LockPackage, deps: tuple[Dependency, ...]) -> list[tuple[Dependency, LockPackage]]:
        out = []
        for dep in deps:
            ident = (dep.name, dep.version, dep.source)
            target = resolved.get(ident)
            if target is None:
                target = resolved[ident] = lock._resolve(dep, owner)
            out.append((dep, target))
        return out

    for pkg in packages:
        lock._edges[(id(pkg), None)] = edges(pkg, pkg.dependencies)
        for extra, deps in pkg.optional.items():
            lock._edges[(id(pkg), extra)] = edges(pkg, deps)
        for group, deps in pkg.groups.items():
            lock._edges[(id(pkg), "group:" + group)] = edges(pkg, deps)

    lock.root, lock.default_groups = _root_and_groups(lock, root, default_groups)
    return lock


def _root_and_groups(lock: Lock, root: str | None, default_groups: Sequence[str] | None) -> tuple[str, tuple[str, ...]]:
    pyproject = Path(lock.path).with_name("pyproject.toml")
    facts = None
    if (root is None or default_groups is None) and pyproject.is_file():
        facts = read_root_facts(pyproject)  # (name, default groups)
    if root is None:
        if facts is not None:
            root = facts[0]
        else:  # the project at the lock's own directory
            here = [p for p in lock.packages if p.source_kind in ("editable", "virtual") and p.source_value == "."]
            if len(here) != 1:
                raise InputError(lock.path, None, "cannot tell the root project: no pyproject.toml beside "
                                 "the lock and no package at '.'; pass root")
            root = here[0].id.name
    root = normalize(root)
    if not lock.find(root):
        raise InputError(lock.path, None, f"root project {root!r} is not in the lock")
    if default_groups is None:
        if facts is not None and normalize(facts[0]) == root:
            default_groups = facts[1]
        else:
            default_groups = ("dev",)
    return root, tuple(normalize(g) for g in default_groups)
