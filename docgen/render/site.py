"""Site-only pages rendered from the model and the CLI (the docs build writes them with mkdocs-gen-files;
nothing lands in docs/): the command-line reference and one page per prefetched worker venv."""

from __future__ import annotations

import argparse


def md_cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def cli_page(parser: argparse.ArgumentParser) -> str:
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = ["# docgen command line", "",
           "Generated at site build time from the argparse parser `docgen.cli.build_parser()`: "
           "what `python -m docgen COMMAND --help` prints.", "",
           "## docgen", "", "```text", parser.format_help().rstrip(), "```", ""]
    for name, sub in subparsers.choices.items():
        out += [f"## docgen {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def venv_page_names(venvs) -> dict[str, str]:
    """Actor FQN -> page stem: the class name, or the full FQN where two venvs share a class name."""
    seen: dict[str, int] = {}
    for v in venvs:
        seen[v.class_name] = seen.get(v.class_name, 0) + 1
    return {v.actor: v.class_name if seen[v.class_name] == 1 else v.actor for v in venvs}


def source_cell(pkg) -> str:
    if pkg.source_kind == "registry":
        return "registry"
    return f"{pkg.source_kind}: `{md_cell(pkg.source)}`" if pkg.source else pkg.source_kind


def venv_page(model, venv) -> str:
    packages = sorted(model.snapshot.install_set(venv.extras), key=lambda p: (p.name, p.source))
    extras = ", ".join(f"`{e}`" for e in venv.extras) or "(none: the base install set)"
    out = [f"# {venv.class_name}", "",
           f"- Actor: `{venv.actor}`",
           f"- Extras: {extras}",
           f"- Venv: `{venv.path}`",
           f"- Packages: {len(packages)}", "",
           "Generated at site build time from the committed NeMo-RL snapshot: the install set uv locks for "
           "these extras.", "",
           "| package | version | source |", "|---|---|---|"]
    for p in packages:
        out.append(f"| {md_cell(p.name)} | {md_cell(p.version or '(none)')} | {source_cell(p)} |")
    return "\n".join(out) + "\n"


def venv_index(model, names: dict[str, str]) -> str:
    out = ["# Worker venvs", "",
           f"The image prefetches {len(model.venvs)} worker venvs under `{model.venv_dir}`, one per actor "
           "selected by the prefetch filters (see [Prefetch filters and venvs](../../image/venvs.md)). "
           "Each page lists what uv installs into that venv.", "",
           "| actor class | extras | venv path | packages |", "|---|---|---|---|"]
    for v in model.venvs:
        extras = ", ".join(f"`{e}`" for e in v.extras)
        count = len(model.snapshot.install_set(v.extras))
        out.append(f"| [{v.class_name}]({names[v.actor]}.md) | {extras} | `{v.path}` | {count} |")
    return "\n".join(out) + "\n"
