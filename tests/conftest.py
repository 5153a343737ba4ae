"""Fixtures every test folder shares: this repository, its project (as docgen finds it) and its model."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_project():
    from docgen.project import find_project
    return find_project(root=REPO)


@pytest.fixture(scope="session")
def repo_model(repo_project):
    from docgen.model.build import load_model
    return load_model(repo_project.dockerfile, repo_project.snapshot)
