"""Pytest wiring for executable docs: the session fixture and a collector for pages outside tests/.

A conftest's collection hooks only see files under its own directory, so `tests/docs/conftest.py`
anchors a collector on itself that hands each Markdown page to Sybil. The pages keep their own node
ids (`docs/image/inspect.md::<heading>::<n>`), and `pytest tests/` runs them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
from sybil.integration.pytest import SybilFile

from docgen.console.evaluator import ConsoleSession, ConsoleSybil


@pytest.fixture(scope="session")
def console_session(request: pytest.FixtureRequest) -> Any:
    session = ConsoleSession(repo=Path(request.config.rootpath))
    yield session
    leftovers = session.close()
    assert not leftovers, f"containers of this docs session still exist after removal: {leftovers}"


class ConsolePages(pytest.Collector):
    """The pages `pages()` lists, each collected by a ConsoleSybil under its path from `root`."""

    def __init__(self, *, pages: Callable[[], list[Path]], root: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pages, self.root = pages, root

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        sybil = ConsoleSybil(self.root)
        for page in self.pages():
            name = page.relative_to(self.root) if page.is_relative_to(self.root) else Path(page.name)
            yield SybilFile.from_parent(self, path=page, name=name.as_posix(), sybils=[sybil])


def docs_collector(anchor: Path, root: Path, pages: Callable[[], list[Path]]) -> Callable[..., Any]:
    """A `pytest_collect_file` hook that collects `pages()` when pytest walks past `anchor`."""
    anchor, root = anchor.resolve(), root.resolve()

    def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
        return ConsolePages.from_parent(parent, name="docs", pages=pages, root=root) if file_path.resolve() == anchor else None

    return pytest_collect_file


def markdown_pages(repo: Path) -> list[Path]:
    """docs/**/*.md plus the repo README: the pages a reader may copy commands from."""
    return sorted((repo / "docs").rglob("*.md")) + [page for page in [repo / "README.md"] if page.is_file()]
