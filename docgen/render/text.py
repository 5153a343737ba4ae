"""Plain-text inventory for the terminal (`docgen inventory`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docgen.render.values import number_word

if TYPE_CHECKING:
    from docgen.model import ImageModel


def inventory_text(model: "ImageModel") -> str:
    if not model.dockerfile.prefetch_calls:
        head = "No actor prefetch"
    elif not model.filters:
        head = "No filters (every uv actor)"
    else:
        head = f"{number_word(len(model.filters)).capitalize()} filters"
    out = [f"{head} -> {number_word(len(model.venvs))} venvs in {model.venv_dir}",
           "", "Warm steps (uv sync, in Dockerfile order):"]
    out += [f"  {s.label:<12} {s.comment}".rstrip() for s in model.warm_steps]
    out += ["", "Filters:"]
    for f in model.filters:
        out.append(f"  {f.text}  [{', '.join(f.extras) or 'no match'}]")
        out += [f"    -> {a}" for a in f.actors]
    for f in model.negative_filters:
        out.append(f"  not {f.text}  (removes {len(f.actors)})")
    out += ["", "Venvs:"]
    out += [f"  {v.path}  [{', '.join(v.extras) or 'base'}]" for v in model.venvs]
    for g in model.gym:
        default = "(none)" if g.default is None else repr(g.default)
        count = g.venvs_by_default if g.venvs_by_default is not None else f"one per server of {len(g.configs)} configs"
        out += ["", f"Gym environment venvs in {g.venv_dir}: {count} by default",
                f"  {g.script} driven by {g.arg or 'literal configs'} (default {default})"]
    if model.driver_installs:
        out += ["", "Installed into the driver venv after the syncs:"]
        out += [f"  {d.package}{d.pin or ''}{' (editable)' if d.editable else ''}{' --no-deps' if d.no_deps else ''}"
                + (f"  # {d.reason}" if d.reason else "") for d in model.driver_installs]
    out += ["", f"Extras warmed: {', '.join(model.warm_extras) or '(none)'}",
            f"Extras not warmed: {', '.join(model.extras_not_warmed) or '(none)'}"]
    if model.shared_builds:
        out += ["", "Shared source builds:"]
        out += [f"  {s.package} {s.version}: built by {s.extras[0]}, reused by {', '.join(s.extras[1:])}"
                for s in model.shared_builds]
    out += ["", f"Not prefetched ({len(model.not_prefetched)}):"]
    out += [f"  {s.actor}: {s.reason}" for s in model.not_prefetched]
    out += ["", f"System interpreter ({len(model.system_actors)}):"]
    out += [f"  {a.fqn}" for a in model.system_actors]
    return "\n".join(out) + "\n"
