"""Install as the README tells: the `site` extra, into a fresh venv, is all scripts/build-docs needs. The
script names what is missing before it builds or fetches anything, and with the extra in place it builds
the site strictly. pip's cache makes the install a matter of seconds after the first run."""

from __future__ import annotations

import os
import subprocess
import venv

import pytest

from tests.conftest import checkout_copy
from tests.site.conftest import REPO

pytestmark = pytest.mark.slow


def run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=900, **kw)


def test_the_site_extra_in_a_fresh_venv_is_all_the_build_needs(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # the extra as a user installs it; requirements/dev.txt only pins the versions pip picks
    src = tmp_path / "src"   # pip builds in the tree it is given: a copy, not this checkout (tests/conftest.py)
    checkout_copy(src)
    install = run(py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", REPO / "requirements/dev.txt",
                  f"{src}[site]")
    assert install.returncode == 0, install.stderr[-3000:]

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "GITHUB_REPOSITORY", "GITHUB_SERVER_URL"))}
    env["MKDOCS"] = str(env_dir / "bin" / "mkdocs")
    # one plugin taken away: the script stops at once (exit 2) and names the distribution to install
    assert run(py, "-m", "pip", "uninstall", "-q", "-y", "mkdocs-panzoom-plugin").returncode == 0
    missing = run("bash", REPO / "scripts/build-docs", tmp_path / "never", env=env, cwd=REPO)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "mkdocs-panzoom-plugin" in missing.stderr and not (tmp_path / "never").exists(), missing.stderr

    assert run(py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", REPO / "requirements/dev.txt",
               f"{src}[site]").returncode == 0
    built = run("bash", REPO / "scripts/build-docs", tmp_path / "site", env=env, cwd=REPO)
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    assert (tmp_path / "site" / "index.html").is_file() and (tmp_path / "site" / "assets/js/mermaid.min.js").is_file()
    assert "panzoom" in (tmp_path / "site" / "concepts/workflows/index.html").read_text()
    # built locally (no GITHUB_REPOSITORY, and this checkout may have no GitHub remote): mkdocs.yml's own
    # address, and without a repository no edit link and no placeholder
    index = (tmp_path / "site" / "index.html").read_text()
    remote = run("git", "-C", REPO, "config", "--get", "remote.origin.url").stdout
    if "github.com" not in remote:
        assert "md-content__button" not in index and "http://127.0.0.1:8000/nmp-rl-base/" in index
    assert "ORG" not in index
