"""mkdocs-gen-files script: the reference pages that come straight from the model and the CLI.

Writes, at build time only (nothing lands in docs/):
  reference/cli.md                  every docgen subcommand's argparse help
  reference/venvs/index.md          the prefetched venvs, one row each
  reference/venvs/<ClassName>.md    one page per prefetched venv: package, version, source

The per-venv pages follow the model (a filter fewer means a page fewer), so the nav entries for them
are appended here to the "Worker venvs" section of mkdocs.yml's explicit nav rather than typed there.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import mkdocs_gen_files

REPO_ROOT = Path(mkdocs_gen_files.config.config_file_path).resolve().parent
sys.path.insert(0, str(REPO_ROOT))  # the docgen package of this checkout, even from a copy of the repo

from docgen.cli import build_parser  # noqa: E402
from docgen.errors import InputError  # noqa: E402
from docgen.model import load_default_model  # noqa: E402

VENV_DIR = "reference/venvs"
VENV_INDEX = f"{VENV_DIR}/index.md"
HELP_WIDTH = "100"  # argparse wraps to $COLUMNS; fix it so the page does not depend on the terminal


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


def add_venv_pages_to_nav(config, entries: list[dict]) -> None:
    """Append the per-venv pages to the nav section that lists the venv index page."""
    def visit(items) -> bool:
        for item in items:
            children = next(iter(item.values())) if isinstance(item, dict) else None
            if isinstance(children, list):
                if VENV_INDEX in children or any(isinstance(c, dict) and VENV_INDEX in c.values() for c in children):
                    children.extend(entries)
                    return True
                if visit(children):
                    return True
        return False

    if not visit(config["nav"] or []):
        raise SystemExit(f"gen_pages.py: mkdocs.yml's nav has no section listing {VENV_INDEX}")


def main() -> None:
    os.environ["COLUMNS"] = HELP_WIDTH
    with mkdocs_gen_files.open("reference/cli.md", "w") as fh:
        fh.write(cli_page(build_parser()))

    try:
        model = load_default_model(REPO_ROOT)
    except InputError as exc:  # bad input: say where, not a traceback (gen-files reports the exit)
        raise SystemExit(f"gen_pages.py: {exc}")
    names = venv_page_names(model.venvs)
    with mkdocs_gen_files.open(VENV_INDEX, "w") as fh:
        fh.write(venv_index(model, names))
    entries = []
    for v in model.venvs:
        page = f"{VENV_DIR}/{names[v.actor]}.md"
        with mkdocs_gen_files.open(page, "w") as fh:
            fh.write(venv_page(model, v))
        entries.append({names[v.actor]: page})
    add_venv_pages_to_nav(mkdocs_gen_files.config, entries)


main()
