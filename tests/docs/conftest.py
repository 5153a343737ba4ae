"""Runs the ```console transcripts of docs/**/*.md and README.md against the built image.

`pytest tests/` collects them through the collector anchored on this file (see
docgen.console.pytest_plugin for why a conftest here cannot simply use Sybil's own hook).
"""

from pathlib import Path

from docgen.console.pytest_plugin import console_session, docs_collector, markdown_pages  # noqa: F401

REPO = Path(__file__).resolve().parents[2]

pytest_collect_file = docs_collector(anchor=Path(__file__), root=REPO, pages=lambda: markdown_pages(REPO))
