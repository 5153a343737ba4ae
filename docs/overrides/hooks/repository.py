"""mkdocs hook: where the site is published and which repository it links to, from one place.

- In the docs workflow: the repository that runs it (GITHUB_REPOSITORY, on GITHUB_SERVER_URL), so a fork
  publishes its own site with its own links, and no placeholder reaches a published page.
- Locally: the git remote `origin` when it is a GitHub repository, else mkdocs.yml's own values (a site_url
  where `mkdocs serve` shows the site, and no repository link).

From the repository come site_url (the GitHub Pages project site; the canonical URLs, the sitemap and
404.html's links follow it), repo_url and repo_name (the header's link, the edit links, the changelog's
commit links). tests/site/test_conventions.py builds the site as the workflow does and looks for "ORG".
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from mkdocs.plugins import event_priority

GITHUB = "https://github.com"
MIKE_VERSION = "MIKE_DOCS_VERSION"   # set by `mike deploy` for the version it builds (mike.mkdocs_utils)


def from_remote(url: str) -> tuple[str, str] | None:
    """(server, "owner/name") of a GitHub remote URL (https or ssh form), else None."""
    m = re.fullmatch(r"(?:https://(?:[^@/]+@)?github\.com/|(?:ssh://)?git@github\.com[:/])([^/]+/[^/]+?)(?:\.git)?/?",
                     url.strip())
    return (GITHUB, m.group(1)) if m else None


def pages_url(server: str, repository: str) -> str:
    """The GitHub Pages address of a repository's project site (a user or organisation site for
    OWNER/OWNER.github.io); GitHub Enterprise Server serves Pages under /pages/ on its own host."""
    owner, name = repository.split("/", 1)
    if server.rstrip("/") != GITHUB:
        return f"{server.rstrip('/')}/pages/{owner}/{name}/"
    if name.lower() == f"{owner.lower()}.github.io":
        return f"https://{owner.lower()}.github.io/"
    return f"https://{owner.lower()}.github.io/{name}/"


def repository_of(env: dict, root: Path) -> tuple[str, str] | None:
    """(server, "owner/name"): the workflow's repository, else the git remote's; None when neither is known."""
    if env.get("GITHUB_REPOSITORY"):
        return env.get("GITHUB_SERVER_URL") or GITHUB, env["GITHUB_REPOSITORY"]
    proc = subprocess.run(["git", "-C", str(root), "config", "--get", "remote.origin.url"],
                          capture_output=True, text=True)
    return from_remote(proc.stdout) if proc.returncode == 0 else None


# Last, after mike's plugin (which `mike deploy` adds): that puts the version's folder under site_url, but
# without the closing slash, and Material then looks for versions.json one level too high (on 404.html).
@event_priority(-100)
def on_config(config, **kwargs):
    found = repository_of(os.environ, Path(config.config_file_path).resolve().parent)
    if found:
        server, repository = found
        config.site_url = pages_url(server, repository)
        config.repo_url = f"{server.rstrip('/')}/{repository}"
        config.repo_name = repository.split("/", 1)[1]
    elif not config.repo_url:
        config.edit_uri = None   # no repository to edit in: no edit links (a bare edit_uri fails --strict)
    version = os.environ.get(MIKE_VERSION)
    if version and config.site_url:
        base = config.site_url if found else config.site_url.removesuffix(version)
        config.site_url = f"{base.rstrip('/')}/{version}/"
    return config
