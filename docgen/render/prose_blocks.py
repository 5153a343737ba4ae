"""Blocks for facts a page would otherwise state in hand-written prose: the PY_EXECUTABLES table,
the private vLLM copies, which actors of an extra have a venv, and the uv override a package is locked by.
Each renders a sentence or a table from the model, so a changed input changes the words with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docgen.model.claims import py_executables as executables, vllm_copies as copies_of
from docgen.names import normalize
from docgen.render.markdown import code, table, text

if TYPE_CHECKING:
    from docgen.model import ImageModel


def py_executables(model: "ImageModel") -> str:
    rows = []
    for ex in executables(model):
        users = ", ".join(code(a.rsplit(".", 1)[-1]) for a in ex.actors) or "(none by default)"
        rows.append((code(ex.member), code(ex.command), ", ".join(code(e) for e in ex.extras) or "(base)", users))
    return table(("Member", "Command", "Extras", "Actors using it"), rows)


def vllm_copies(model: "ImageModel") -> str:
    copies = copies_of(model)
    if copies is None or not copies.venvs:
        return ("The published stage makes no private vLLM copies: every venv that holds vLLM links it from the "
                "uv cache like any other package.\n")
    names = ", ".join(code(p.rsplit(".", 1)[-1]) for p in copies.venvs)
    return (f"The vLLM venvs are the exception: the published stage replaces the "
            f"linked `vllm/` package in each of them ({names}) with a **private copy**, real files writable by "
            "the runtime group, because NeMo-RL patches vLLM in place when a worker starts and a linked tree "
            "would patch the cache every other venv shares.\n")


def extra_actors(model: "ImageModel", extra: str = "mcore") -> str:
    """Every actor that runs with `extra`, and whether the image prefetches its venv (or why not)."""
    venvs = {v.actor: v for v in model.venvs}
    skipped = {s.actor: s for s in model.not_prefetched}
    lines = []
    for actor in model.actors:
        if extra not in actor.extras:
            continue
        others = [e for e in actor.extras if e != extra]
        with_ = f" (with {', '.join(code(e) for e in others)})" if others else ""
        if actor.fqn in venvs:
            status = f"prefetched, venv {code(venvs[actor.fqn].path)}"
        elif actor.fqn in skipped:
            status = "not prefetched: " + text(skipped[actor.fqn].reason)
        else:
            status = "not prefetched"
        lines.append(f"- {code(actor.class_name)}{with_}: {status}")
    if not lines:
        return f"No registry actor runs with the `{extra}` extra.\n"
    warmed = "warmed" if extra in model.warm_extras else "**not** warmed"
    return f"Actors that run with `{extra}` ({warmed} in the image):\n\n" + "\n".join(lines) + "\n"


def uv_override(model: "ImageModel", package: str = "transformer-engine") -> str:
    """The `[tool.uv] override-dependencies` entry NeMo-RL pins `package` with, as its pyproject.toml says."""
    entries = [o for o in model.snapshot.overrides if normalize(o.split("@")[0].split("[")[0].split(";")[0]
                                                                 .split("=")[0].split("<")[0].split(">")[0].strip())
               == normalize(package)]
    if not entries:
        return f"NeMo-RL's `pyproject.toml` has no `[tool.uv] override-dependencies` entry for `{package}`.\n"
    body = "\n".join(f'  "{e}",' for e in entries)
    return f"```toml\n[tool.uv]\noverride-dependencies = [\n{body}\n  # ...\n]\n```\n"
