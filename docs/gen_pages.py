"""mkdocs-gen-files glue: writes the site-only pages docgen.render.site renders from the model and the CLI.

Writes, at build time only (nothing lands in docs/):
  reference/cli.md                  every docgen subcommand's argparse help
  reference/rules.md                every rule, kind of fact, generator and value key docgen declares
  reference/venvs/index.md          the prefetched venvs, one row each
  reference/venvs/<ClassName>.md    one page per prefetched venv: package, version, source
  reference/actors.md               every registry actor: its role in plain words, its extras, where it runs
  glossary.md                       the glossary: docs/includes/glossary.md (every page's tooltips) as a list
  changelog.md                      what changed: `docgen diff` between consecutive commits of the snapshot or
                                    the Dockerfile in git, each side with its own inputs

The per-venv pages follow the model (a filter fewer means a page fewer), so the nav entries for them
are appended here to the "Worker venvs" section of mkdocs.yml's explicit nav rather than typed there.
"""

from __future__ import annotations

import os
from pathlib import Path

import mkdocs_gen_files

from docgen.changelog import read_history
from docgen.cli import build_parser
from docgen.errors import InputError
from docgen.model.build import load_model
from docgen.project import find_project
from docgen.render.site import (actors_page, changelog_page, cli_page, glossary_page, left_out_note, nav_title,
                                page_stems, read_glossary, rules_page, venv_index, venv_page, venv_page_names)

# the repository this site belongs to: the folder of mkdocs.yml, found like every docgen command finds it
REPO_ROOT = Path(mkdocs_gen_files.config.config_file_path).resolve().parent

VENV_DIR = "reference/venvs"
VENV_INDEX = f"{VENV_DIR}/index.md"
GLOSSARY = "includes/glossary.md"   # under docs/; mkdocs.yml's pymdownx.snippets appends it to every page
HELP_WIDTH = "100"  # argparse wraps to $COLUMNS; fix it so the page does not depend on the terminal


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
        project = find_project(cwd=REPO_ROOT)
        model = load_model(project.dockerfile, project.snapshot)
    except InputError as exc:  # bad input: say where, not a traceback (gen-files reports the exit)
        raise SystemExit(f"gen_pages.py: {exc}")
    with mkdocs_gen_files.open("reference/rules.md", "w") as fh:
        fh.write(rules_page(model))
    names, left_out = page_stems(venv_page_names(model.venvs), VENV_DIR)
    # a venv left out links to the index, whose note says why it has no page
    links = {**names, **{actor: "index" for actor in left_out}}
    with mkdocs_gen_files.open("reference/actors.md", "w") as fh:
        fh.write(actors_page(model, links))
    with mkdocs_gen_files.open(VENV_INDEX, "w") as fh:
        fh.write(venv_index(model, links) + left_out_note(left_out))
    entries = []
    for v in model.venvs:
        if v.actor not in names:
            continue
        page = f"{VENV_DIR}/{names[v.actor]}.md"
        with mkdocs_gen_files.open(page, "w") as fh:
            fh.write(venv_page(model, v))
        entries.append({nav_title(names[v.actor]): page})
    add_venv_pages_to_nav(mkdocs_gen_files.config, entries)

    glossary = Path(mkdocs_gen_files.config.docs_dir) / GLOSSARY
    source = Path(os.path.relpath(glossary, REPO_ROOT)).as_posix()
    try:
        terms = read_glossary(glossary.read_text(encoding="utf-8"), source)
    except InputError as exc:
        raise SystemExit(f"gen_pages.py: {exc}")
    with mkdocs_gen_files.open("glossary.md", "w") as fh:
        fh.write(glossary_page(terms, source))

    # the image's own changelog, from the snapshot's git history; a commit links to repo_url's commit page
    snapshot = Path(os.path.relpath(project.snapshot, project.root)).as_posix()
    dockerfile = Path(os.path.relpath(project.dockerfile, project.root)).as_posix()
    history = read_history(project.root, snapshot, dockerfile)
    with mkdocs_gen_files.open("changelog.md", "w") as fh:
        fh.write(changelog_page(history, snapshot, dockerfile, mkdocs_gen_files.config.get("repo_url")))


main()
