"""The facts the docs were rendered from, twice over:

- `input_digests`: one short digest per input (dockerfile, registry, lock, pyproject, measurement), stamped
  on each block's end marker so a stale block names the input that moved;
- `facts_of`: a small, sorted record written beside the docs (`docs/.docgen-facts.json`) so `check` can say
  in domain terms what changed ("filters: -x; venvs 9 -> 8; transformer-engine 2.14.1 -> 2.15.0").

Line numbers are left out of both: moving a Dockerfile line does not change what the docs say.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from docgen.blocks import digest
from docgen.records import Memo

if TYPE_CHECKING:
    from collections.abc import Callable
    from docgen.model import ImageModel
    from docgen.render.generators import RenderInputs

FACTS_FORMAT = 1


def _short_hash(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=list, ensure_ascii=False)
    return digest(text)


def _dockerfile(src: "RenderInputs") -> object:
    return [(i.keyword, i.args, i.comment, i.stage, [h.body for h in i.heredocs])
            for i in src.model.dockerfile.instructions]


def _registry(src: "RenderInputs") -> object:
    reg = src.model.snapshot.registry
    return [reg.executables, [(e.actor, e.member, e.command, e.command_system, e.source) for e in reg.entries]]


def _lock(src: "RenderInputs") -> object:
    snap = src.model.snapshot
    # tuples, not dataclasses.asdict: this runs on every check over ~500 packages
    return [[(k, p.name, p.version, p.source_kind, p.source, p.source_built, p.editable)
             for k, p in snap.packages.items()], snap.install_sets,
            [(s.key, s.extras) for s in snap.shared_builds]]


def _pyproject(src: "RenderInputs") -> object:
    s = src.model.snapshot
    return [s.project_name, s.extra_requirements, s.conflicts, s.default_groups, s.groups, s.overrides,
            s.sources, s.workspace_members]


_PROJECTIONS: dict[str, Callable[["RenderInputs"], object]] = {
    "dockerfile": _dockerfile, "registry": _registry, "lock": _lock, "pyproject": _pyproject,
    "measurement": lambda src: src.image_size,
}


# Digests of the model's inputs, kept per model: the block stamps and the image-size record's tie
# (docgen.model.claims.input_digest) hash the same lock, and it should be hashed once per run.
_MODEL_DIGESTS = Memo()


class InputDigests:
    """Digests computed on first use: a check touching only Dockerfile blocks never hashes the lock."""

    def __init__(self, src: "RenderInputs") -> None:
        self._src = src
        self._measurement: str | None = None

    def __getitem__(self, name: str) -> str:
        if name == "measurement":   # depends on this run's record, not on the model
            if self._measurement is None:
                self._measurement = _short_hash(_PROJECTIONS[name](self._src))
            return self._measurement
        return _MODEL_DIGESTS.answer(self._src.model, name, lambda: _short_hash(_PROJECTIONS[name](self._src)))

    def of(self, names) -> dict[str, str]:
        return {n: self[n] for n in names}


def facts_of(model: "ImageModel") -> dict:
    versions: dict[str, set] = {}
    packages = list(model.snapshot.base_key_packages())
    for extra in model.warm_extras:
        packages += model.key_packages(extra)
    for pkg in packages:
        versions.setdefault(pkg.name, set()).add(pkg.version or "?")
    return {
        "format": FACTS_FORMAT,
        "filters": sorted(f.text for f in model.filters),
        "negative_filters": sorted(f.text for f in model.negative_filters),
        "warm_extras": sorted(model.warm_extras),
        "counts": dict(sorted(model.counts.items())),
        "venv_actors": sorted(v.actor for v in model.venvs),
        "not_prefetched": sorted(s.actor for s in model.not_prefetched),
        "system_actors": sorted(a.fqn for a in model.system_actors),
        "shared_builds": sorted(f"{s.package} {s.version}: {' -> '.join(s.extras)}" for s in model.shared_builds),
        "versions": {name: " / ".join(sorted(v)) for name, v in sorted(versions.items())},
        "build_args": {a.name: a.default for a in sorted(model.dockerfile.args, key=lambda a: a.name)
                       if a.default is not None},
    }


def dump_facts(facts: dict) -> str:
    return json.dumps(facts, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def diff_facts(old: dict, new: dict) -> list[str]:
    """What changed, in the docs' own words: list items added (+) and removed (-), scalars old -> new."""
    out = []
    for key in new:
        if key == "format":
            continue
        before, after = old.get(key), new[key]
        if before == after:
            continue
        if isinstance(after, list):
            before = before if isinstance(before, list) else []
            change = [f"-{x}" for x in before if x not in after] + [f"+{x}" for x in after if x not in before]
            out.append(f"{key}: {' '.join(change)}")
        elif isinstance(after, dict):
            before = before if isinstance(before, dict) else {}
            for name in sorted(set(before) | set(after)):
                if name not in after:
                    out.append(f"-{name} {before[name]}")
                elif name not in before:
                    out.append(f"+{name} {after[name]}")
                elif before[name] != after[name]:
                    out.append(f"{name} {before[name]} -> {after[name]}")
    return out
