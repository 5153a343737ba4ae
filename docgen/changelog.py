"""The image's own changelog: `docgen diff` between each commit of the NeMo-RL snapshot and the one before it,
read from the repository's git history (the site's "What changed" page, docgen.render.site.changelog_page).

`git log --follow` lists the commits that changed the snapshot file (and the file's name at each one, so a
rename is followed); each version is read with `git show REV:PATH`, never from the work tree. Each pair is
judged against the Dockerfile as it was at the newer commit when that commit has it at the same path and it
reads; else against the current one, and the entry says so. Git missing, a folder that is not a repository,
a shallow clone that holds one snapshot commit: the history says why it has no entries, it never raises.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from docgen.diff import Side, compare
from docgen.errors import InputError
from docgen.inputs.dockerfile import parse_dockerfile
from docgen.snapshot.load import load_snapshot

if TYPE_CHECKING:
    from docgen.inputs.dockerfile import DockerfileFacts

GIT_TIMEOUT = 60   # seconds for one git call; a history of snapshot commits is read in well under one


class Commit(NamedTuple):
    sha: str        # full hash
    date: str       # author date, YYYY-MM-DD
    subject: str    # first line of the message
    path: str       # the snapshot's path at this commit (it may have been renamed since)


class Entry(NamedTuple):
    """One change of the snapshot: the commit that made it, the one before, and the diff report (or why
    there is none: a version that no longer reads)."""
    commit: Commit
    previous: Commit
    report: dict | None
    problem: str | None
    dockerfile: str     # which Dockerfile judged it: "at this commit" or "current"


class History(NamedTuple):
    entries: list[Entry]    # newest first
    note: str | None        # why there are no entries, when there are none


def _git(root: Path, *args: str) -> str:
    """stdout of one git command in `root`; OSError or CalledProcessError when git is missing or refuses."""
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=GIT_TIMEOUT, check=True)
    return proc.stdout.decode("utf-8", "replace")


def snapshot_commits(root: Path, path: str) -> list[Commit]:
    """The commits that changed the snapshot file, newest first, with its path at each."""
    out = _git(root, "log", "--follow", "--name-only", "--format=%x01%H%x00%ad%x00%s", "--date=short",
               "--", path)
    commits = []
    for record in out.split("\x01")[1:]:
        head, _, names = record.partition("\n")
        sha, date, subject = head.split("\x00", 2)
        name = next((n for n in names.splitlines() if n.strip()), path)
        commits.append(Commit(sha, date, subject, name))
    return commits


def _side(root: Path, commit: Commit) -> Side:
    label = f"{commit.path} @ {commit.sha[:8]}"
    text = _git(root, "show", f"{commit.sha}:{commit.path}")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(label, getattr(exc, "lineno", None), f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(label, 1, "the snapshot is not a JSON object")
    return Side(label, "snapshot", data, load_snapshot(label, text=text, data=data))


def _dockerfile_at(root: Path, commit: Commit, path: str) -> "DockerfileFacts | None":
    try:
        # `./`: relative to `root`, which may sit below the git top level (the log's names are from the top)
        return parse_dockerfile(_git(root, "show", f"{commit.sha}:./{path}"), f"{path} @ {commit.sha[:8]}")
    except (OSError, subprocess.SubprocessError, InputError):
        return None


def read_history(root: Path, snapshot: str, dockerfile: str, current: "DockerfileFacts") -> History:
    """The changelog of the snapshot at `snapshot` (a path relative to `root`), each entry judged against the
    Dockerfile at `dockerfile` (relative to `root`) as of the newer commit, or `current` when that one does
    not read."""
    try:
        commits = snapshot_commits(root, snapshot)
    except OSError:
        return History([], "git is not available where the site was built, so the history of the snapshot "
                           "could not be read.")
    except subprocess.SubprocessError:
        return History([], "the site was built outside a git repository, so the history of the snapshot "
                           "could not be read.")
    if len(commits) < 2:
        found = "one commit" if commits else "no commit"
        return History([], f"the repository's history holds {found} of `{snapshot}` (a shallow clone holds "
                           "only the latest), so there is no earlier version to compare with.")
    entries = []
    for newer, older in zip(commits, commits[1:]):
        judged = _dockerfile_at(root, newer, dockerfile)
        which = "at this commit" if judged is not None else "current"
        try:
            old, new = _side(root, older), _side(root, newer)
            report = compare(old, new, judged or current, f"{dockerfile} ({which})")
        except (OSError, subprocess.SubprocessError) as exc:
            entries.append(Entry(newer, older, None, f"git could not show this version: {exc}", which))
            continue
        except InputError as exc:
            entries.append(Entry(newer, older, None, f"a version does not read with this docgen: {exc}", which))
            continue
        entries.append(Entry(newer, older, report, None, which))
    return History(entries, None)
