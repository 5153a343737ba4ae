"""Fixtures every test folder shares: this repository, its project (as docgen finds it) and its model."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ENGINE_FOLDERS = ("tests/console/", "tests/image/", "tests/docs/")


def pytest_itemcollected(item):
    """The suite runs on every core (pytest-xdist, `--dist loadgroup` in pyproject.toml). Tests that share
    one resource keep to one worker, in one group: those that use the Docker engine, and the browser tests
    (one site build, one Chromium, the site's port). Everything else is spread. The engine's tests are one
    group because they meet each other there: a console session reaps the containers of sessions that
    died (the tests that kill sessions on purpose must not meet another worker's session), and the image
    tests build and tag the image the docs' console blocks run in (those blocks are collected from the
    pages themselves, outside tests/)."""
    where = Path(str(item.path)).resolve()
    shown = where.relative_to(REPO).as_posix() if where.is_relative_to(REPO) else str(where)
    if (item.get_closest_marker("docker") or item.get_closest_marker("image")
            or shown.startswith(ENGINE_FOLDERS) or not shown.startswith("tests/")):
        item.add_marker(pytest.mark.xdist_group("engine"))
    elif item.get_closest_marker("browser") or shown.startswith("tests/site/"):
        item.add_marker(pytest.mark.xdist_group("site"))


@pytest.fixture(scope="session")
def repo_project():
    from docgen.project import find_project
    return find_project(root=REPO)


@pytest.fixture(scope="session")
def repo_model(repo_project):
    from docgen.model.build import load_model
    return load_model(repo_project.dockerfile, repo_project.snapshot)

