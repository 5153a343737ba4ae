"""The facts record: a small, sorted summary of the model written beside the docs
(`docs/.docgen-facts.json`), so `check` can say in domain terms what changed since the docs were written
("filters: -x; venvs 9 -> 8; transformer-engine 2.14.1 -> 2.15.0"). Line numbers are left out: moving a
Dockerfile line does not change what the docs say.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from docgen.model.stages import build_arg_value

if TYPE_CHECKING:
    from docgen.model import ImageModel

FACTS_FORMAT = 1


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
        "build_args": {name: value for name in sorted({a.name for a in model.dockerfile.args})
                       if (value := build_arg_value(model.dockerfile, name)[0]) is not None},
    }


def dump_facts(facts: dict) -> str:
    return json.dumps(facts, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def diff_facts(old: dict, new: dict) -> list[str]:
    """What changed, in the docs' own words: list items added (+) and removed (-), scalars old -> new."""
    out = []
    for key in new:
        if key in ("format", "mentions"):   # the mentions part is judged sentence by sentence (check/mentions.py)
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
