"""Pytest wiring for executable docs: the session fixture and a collector for pages outside tests/.

A conftest's collection hooks only see files under its own directory, so `tests/docs/conftest.py`
anchors a collector on itself that hands each Markdown page to Sybil. The pages keep their own node
ids (`docs/image/inspect.md::<heading>::<n>`), and `pytest tests/` runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
from sybil.integration.pytest import SybilFile

from docgen.console.evaluator import ConsoleSession, console_sybil


@pytest.fixture(scope="session")
def console_session(request: pytest.FixtureRequest) -> Any:
    session = ConsoleSession(repo=Path(request.config.rootpath))
    yield session
    leftovers = session.close()
    assert not leftovers, f"containers of this docs session still exist after removal: {leftovers}"


class ConsolePages(pytest.Collector):
    """Collects the given Markdown pages with a ConsoleSybil."""

    def __init__(self, *, pages: list[Path], root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pages = pages
        self.root = root
        self.sybil = console_sybil(root)

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        for page in self.pages:
            rel = page.relative_to(self.root) if page.is_relative_to(self.root) else Path(page.name)
            yield SybilFile.from_parent(self, path=page, name=rel.as_posix(), sybils=[self.sybil])


def docs_collector(anchor: Path, root: Path, pages: Callable[[], list[Path]]) -> Callable[..., Any]:
    """A `pytest_collect_file` hook that collects `pages()` when pytest walks past `anchor`."""
    anchor = anchor.resolve()

    def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
        if file_path.resolve() != anchor:
            return None
        return ConsolePages.from_parent(parent, name="docs", pages=pages(), root=root.resolve())

    return pytest_collect_file


def markdown_pages(repo: Path) -> list[Path]:
    """docs/**/*.md plus the repo README: the pages a reader may copy commands from."""
    found = sorted((repo / "docs").rglob("*.md")) if (repo / "docs").is_dir() else []
    readme = repo / "README.md"
    return found + ([readme] if readme.is_file() else [])
