"""The image's own changelog: `docgen diff` between each commit that changed the image's inputs (the NeMo-RL
snapshot or the Dockerfile) and the one before it, read from the repository's git history (the site's "What
changed" page, docgen.render.site.changelog_page).

`git log --follow` lists the commits that changed each file (and its name at each one, so a rename is
followed); the union of both lists, in the order of `git rev-list --topo-order HEAD`, is the history. Each
side of an entry is read at its own commit with `git show REV:PATH`, never from the work tree: that commit's
snapshot judged against that commit's Dockerfile, so a bump that also edits the Dockerfile is reported as it
happened, and a commit that changes only the Dockerfile is an entry too.

Everything git gives back is untrusted text: a commit subject is read on its own (`%s` after the one NUL of
`git show -s`), so a `\\x01` or any other byte in it is only text, and a version of a file that does not read
(bad JSON, a format from the future, nesting deep enough to exhaust the parser) makes its entry a note, never
a failed site build. Git missing, a folder that is not a repository, a shallow clone that holds one commit of
the inputs: the history says why it has no entries, it never raises.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

from docgen.diff import Side, compare
from docgen.errors import InputError
from docgen.inputs.dockerfile import DockerfileFacts, parse_dockerfile
from docgen.snapshot.load import load_snapshot

GIT_TIMEOUT = 60   # seconds for one git call; a history of snapshot commits is read in well under one
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class Commit(NamedTuple):
    sha: str                # full hash
    date: str               # author date, YYYY-MM-DD
    subject: str            # first line of the message, as git gives it (untrusted)
    path: str               # the snapshot's path at this commit (it may have been renamed since)
    dockerfile: str         # the Dockerfile's path at this commit
    tags: tuple[str, ...] = ()   # tags that point at it (untrusted)


class Entry(NamedTuple):
    """One change of the image's inputs: the commit that made it, the one before, and the diff report (or
    why there is none: a version that no longer reads)."""
    commit: Commit
    previous: Commit
    report: dict | None
    problem: str | None


class History(NamedTuple):
    entries: list[Entry]    # newest first
    note: str | None        # why there are no entries, when there are none


def _git(root: Path, *args: str, stdin: str | None = None) -> str:
    """stdout of one git command in `root`; OSError or CalledProcessError when git is missing or refuses."""
    proc = subprocess.run(["git", "-C", str(root), "-c", "core.quotePath=false", *args], capture_output=True,
                          timeout=GIT_TIMEOUT, check=True, input=stdin.encode() if stdin is not None else None)
    return proc.stdout.decode("utf-8", "replace")


def _follow(root: Path, path: str) -> dict[str, str]:
    """The commits that changed `path` (renames followed): sha -> the file's name (from the top level)."""
    out = _git(root, "log", "--follow", "--name-only", "--format=%x00%H", "--", path)
    found = {}
    for record in out.split("\x00")[1:]:
        sha, _, names = record.partition("\n")
        if _SHA.fullmatch(sha):
            found[sha] = next((n for n in names.split("\n") if n.strip()), path)
    return found


def _tags(root: Path) -> dict[str, tuple[str, ...]]:
    """Commit -> the tags that point at it (an annotated tag by the commit it tags)."""
    out = _git(root, "for-each-ref", "--format=%(objectname)%00%(*objectname)%00%(refname:strip=2)", "refs/tags")
    tags: dict[str, list[str]] = {}
    for line in out.split("\n"):
        parts = line.split("\x00")
        if len(parts) == 3:
            tags.setdefault(parts[1] or parts[0], []).append(parts[2])
    return {sha: tuple(names) for sha, names in tags.items()}


def _commit(root: Path, sha: str, snapshot: str, dockerfile: str, tags: tuple[str, ...]) -> Commit:
    date, _, subject = _git(root, "show", "-s", "--format=%ad%x00%s", "--date=short", sha).partition("\x00")
    return Commit(sha, date.strip(), subject.rstrip("\n"), snapshot, dockerfile, tags)


def history_commits(root: Path, snapshot: str, dockerfile: str) -> list[Commit]:
    """The commits that changed the snapshot or the Dockerfile, newest first, each with both files' paths as
    of that commit; commits from before both files existed are left out (there is no image to compare)."""
    snap, docker = _follow(root, snapshot), _follow(root, dockerfile)
    wanted = snap.keys() | docker.keys()
    order = [sha for sha in _git(root, "rev-list", "--topo-order", "HEAD").split() if sha in wanted]
    tags = _tags(root)
    out: list[Commit] = []
    snap_path = docker_path = None
    for sha in reversed(order):   # oldest first: each file's name is the one its last change gave it
        snap_path = snap.get(sha, snap_path)
        docker_path = docker.get(sha, docker_path)
        if snap_path is not None and docker_path is not None:
            out.append(_commit(root, sha, snap_path, docker_path, tags.get(sha, ())))
    return out[::-1]


class _Version(NamedTuple):
    side: Side | None
    dockerfile: DockerfileFacts | None
    problem: str | None


def _read(root: Path, commit: Commit) -> _Version:
    """Both inputs as of one commit, or why they do not read (never raises)."""
    where = f"@ {commit.sha[:8]}"
    try:
        texts = []
        for path in (commit.path, commit.dockerfile):
            try:
                texts.append(_git(root, "show", f"{commit.sha}:{path}"))
            except subprocess.CalledProcessError:   # the commit removed it
                return _Version(None, None, f"commit {commit.sha[:8]} has no `{path}`")
        snapshot, docker = texts
    except (OSError, subprocess.SubprocessError) as exc:
        return _Version(None, None, f"git could not show the inputs {where}: {type(exc).__name__}")
    label = f"{commit.path} {where}"
    try:
        data = json.loads(snapshot)
        if not isinstance(data, dict):
            raise InputError(label, 1, "the snapshot is not a JSON object")
        side = Side(label, "snapshot", data, load_snapshot(label, text=snapshot, data=data))
        facts = parse_dockerfile(docker, f"{commit.dockerfile} {where}")
    except InputError as exc:
        return _Version(None, None, f"a version does not read with this docgen: {exc}")
    except RecursionError:
        return _Version(None, None, f"a version does not read with this docgen: {label} is nested too deeply")
    except ValueError as exc:
        return _Version(None, None, f"a version does not read with this docgen: {label} is not JSON: {exc}")
    except Exception as exc:   # any other way a file from history fails to read: a note, never a failed build
        return _Version(None, None, f"a version does not read with this docgen: {label}: {type(exc).__name__}")
    return _Version(side, facts, None)


def read_history(root: Path, snapshot: str, dockerfile: str) -> History:
    """The changelog of the image whose snapshot is at `snapshot` and Dockerfile at `dockerfile` (paths
    relative to `root`): each entry compares two consecutive commits, each with its own inputs."""
    try:
        commits = history_commits(root, snapshot, dockerfile)
    except OSError:
        return History([], "git is not available where the site was built, so the history of the image "
                           "could not be read.")
    except subprocess.SubprocessError:
        return History([], "the site was built outside a git repository, so the history of the image "
                           "could not be read.")
    if len(commits) < 2:
        found = "one commit" if commits else "no commit"
        return History([], f"the repository's history holds {found} of `{snapshot}` and `{dockerfile}` (a "
                           "shallow clone holds only the latest), so there is no earlier version to compare with.")
    versions: dict[str, _Version] = {}

    def version(c: Commit) -> _Version:
        if c.sha not in versions:
            versions[c.sha] = _read(root, c)
        return versions[c.sha]

    entries = []
    for newer, older in zip(commits, commits[1:]):
        new, old = version(newer), version(older)
        problem = new.problem or old.problem
        if problem is None:
            # _read gives both inputs, or the problem that stopped it
            assert old.side is not None and new.side is not None and new.dockerfile is not None
            try:
                report = compare(old.side, new.side, new.dockerfile, f"{newer.dockerfile} @ {newer.sha[:8]}",
                                 old_dockerfile=old.dockerfile,
                                 old_dockerfile_label=f"{older.dockerfile} @ {older.sha[:8]}")
            except RecursionError:
                problem = "these versions could not be compared: a value is nested too deeply"
            except Exception as exc:   # one bad pair in history never fails the site build
                problem = f"these versions could not be compared: {type(exc).__name__}: {exc}"
            else:
                entries.append(Entry(newer, older, report, None))
                continue
        entries.append(Entry(newer, older, None, problem))
    return History(entries, None)
