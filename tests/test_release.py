"""A release teams can pin (issue 31 part 5): the distribution built as .github/workflows/release.yml builds it
(`python -m build`, from a clone of this commit tagged as the release), with the tag's version and the
metadata the index shows, installs into a fresh venv and runs; a clone without tags still installs; the
README, the pre-commit hooks and the reusable workflow pin one release and one repository home, the one
pyproject.toml names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SOURCE = PYPROJECT["project"]["urls"]["Source"]
NAME = PYPROJECT["project"]["name"]
TAG = "v0.1.0"   # the release the pins name

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]   # one build for the module


def run(*cmd, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def clone(dest: Path, tag: str | None) -> Path:
    """This commit as a fresh clone (tags of this repository left behind), tagged `tag` when given."""
    assert run("git", "clone", "-q", "--no-tags", REPO, dest, cwd=REPO).returncode == 0
    if tag:
        assert run("git", "tag", "-a", tag, "-m", tag, cwd=dest).returncode == 0
    return dest


def fresh_venv(path: Path) -> Path:
    assert run(sys.executable, "-m", "venv", "--without-pip", path, cwd=path.parent).returncode == 0
    return path / "bin"


def pip_into(bin_dir: Path, *what, cwd: Path) -> subprocess.CompletedProcess:
    return run(sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "-q",
               "--disable-pip-version-check", *what, cwd=cwd)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("release")
    src = clone(tmp / "src", TAG)
    build = run(sys.executable, "-m", "build", "--outdir", tmp / "dist", src, cwd=tmp, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return tmp / "dist"


def test_the_release_builds_an_sdist_and_a_wheel_with_the_tags_version(built):
    names = sorted(p.name for p in built.iterdir())
    assert names == ["nmp_rl_docgen-0.1.0-py3-none-any.whl", "nmp_rl_docgen-0.1.0.tar.gz"]


def test_the_wheel_carries_the_metadata_the_index_shows(built):
    [wheel] = built.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(z.read(meta_name).decode())
        files = z.namelist()
    assert meta["Name"] == NAME and meta["Version"] == "0.1.0"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Description-Content-Type"] == "text/markdown" and "# nmp-rl-base" in meta.get_payload()
    urls = meta.get_all("Project-URL")
    assert f"Source, {SOURCE}" in urls and len(urls) >= 3
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier")
    assert any(n.endswith("licenses/LICENSE") for n in files)
    assert "docgen/_version.py" in files and "docgen/standin/files/prefetch_venvs.py" in files


def test_the_wheel_installs_into_a_fresh_venv_and_runs(built, tmp_path):
    [wheel] = built.glob("*.whl")
    bin_dir = fresh_venv(tmp_path / "venv")
    install = pip_into(bin_dir, wheel, cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    assert run(bin_dir / "docgen", "--version", cwd=tmp_path).stdout.strip() == "docgen 0.1.0"
    check = run(bin_dir / "docgen", "check", "--root", REPO, "--quiet", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_clone_without_tags_still_installs(tmp_path):
    src = clone(tmp_path / "src", None)
    bin_dir = fresh_venv(tmp_path / "venv")
    install = pip_into(bin_dir, src, cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    version = run(bin_dir / "docgen", "--version", cwd=tmp_path).stdout.strip()
    assert re.fullmatch(r"docgen 0\.0\.1\.dev\d+\+g[0-9a-f]+", version), version


def test_the_pins_name_one_release_and_the_repository_pyproject_names():
    readme = (REPO / "README.md").read_text()
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text()
    reusable = (REPO / ".github/workflows/docgen-check.yml").read_text()
    version = TAG.removeprefix("v")
    assert f'pip install "{NAME}=={version}"' in readme
    [snippet] = re.findall(r"^```yaml\n(repos:.*?)^```$", readme, re.M | re.S)
    [entry] = yaml.safe_load(snippet)["repos"]
    assert (entry["repo"], entry["rev"]) == (SOURCE, TAG)
    assert f"repo: {SOURCE}" in hooks and f"rev: {TAG}" in hooks
    owner_repo = SOURCE.removeprefix("https://github.com/")
    assert f"uses: {owner_repo}/.github/workflows/docgen-check.yml@{TAG}" in reusable
    assert f'docgen: "{NAME}=={version}"' in reusable
    for text in (readme, hooks, reusable):
        assert not re.search(r"\bORG\b", text)
        assert set(re.findall(r"(?:@|rev: )(v\d+\.\d+\.\d+)\b", text)) <= {TAG}   # not the actions' tags
