"""`docgen bump`: move the image to a newer NeMo-RL in one step, or change nothing.

Fetch REF from the Dockerfile's NEMO_RL_REPO (or from --repo: a URL, a local clone or a mirror of it) into a
local repository (../RL by default; only its objects and FETCH_HEAD change, never its work tree), refuse a
ref that does not build on the snapshot's commit, read the files the snapshot needs at the fetched commit
(from git, not from a work tree, so nothing local can leak in), point the Dockerfile's NEMO_RL_REF at REF,
record the snapshot, re-render the pages (`docgen write`) and run `docgen check`. Any failure puts back every
file it touched, byte for byte, and names the cause. On success it returns the pull-request body: a
headline paragraph, then `docgen diff` as Markdown.

The snapshot records the Dockerfile's NEMO_RL_REPO as its repository: --repo is where the commit is fetched
from (a mirror holds the same commits), and the commit is what identifies the files.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path
from typing import NamedTuple

from docgen.check.pipeline import findings_of, prepare, write
from docgen.check.report import report
from docgen.render.markdown import text as markdown_text
from docgen.diff import compare, load_side
from docgen.errors import InputError
from docgen.inputs.dockerfile import parse_dockerfile, read_dockerfile
from docgen.io import read_bytes, read_input
from docgen.project import Project
from docgen.render.diff import diff_markdown
from docgen.snapshot.build import build_snapshot, dump_snapshot, is_local_remote, repo_name
from docgen.snapshot.load import load_snapshot
from docgen.snapshot.registry import REGISTRY_SOURCES

GIT_TIMEOUT = 900          # seconds for one fetch: NeMo-RL's whole history over a slow link
_SHA = re.compile(r"[0-9a-f]{40}")


class CheckFailed(Exception):
    """`docgen check` failed after the bump was written; everything has been put back."""


class Bumped(NamedTuple):
    body: str            # the pull-request body ("" when there was nothing to bump)
    changed: bool
    summary: str         # one line for the log


# ------------------------------------------------------------------------------------------------ git

def _git(*args: str, cwd: Path | None = None, timeout: int = GIT_TIMEOUT) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}   # a password prompt would hang a scheduled run
    try:
        return subprocess.run(["git", *(["-C", str(cwd)] if cwd else []), *args], capture_output=True, text=True,
                              env=env, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, 124, "", f"git {args[0]} took more than {timeout} s")
    except OSError as exc:
        raise InputError("git", None, f"cannot run git: {exc.strerror or exc}") from None


def _last_line(text: str) -> str:
    lines = [x.strip() for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else "no message"


def _source(given: str | None, dockerfile_repo: str | None, dockerfile: str) -> str:
    source = given or dockerfile_repo
    if not source:
        raise InputError(dockerfile, None, "no ARG NEMO_RL_REPO default to fetch from; give --repo URL|PATH")
    if is_local_remote(source):
        path = Path(source.removeprefix("file://")).expanduser()
        if not path.exists():
            raise InputError(source, None, "--repo: no such folder (a clone or a mirror of NeMo-RL)")
        return str(path.absolute())
    return source


def _remote_refs(source: str) -> dict[str, str]:
    """refname -> commit, as `git ls-remote` lists them (tags peeled). Unreachable: bad input, named."""
    out = _git("ls-remote", source)
    if out.returncode != 0:
        raise InputError(source, None, f"could not reach the repository (network, or no such repository): "
                                       f"git ls-remote says: {_last_line(out.stderr)}")
    refs: dict[str, str] = {}
    for line in out.stdout.splitlines():
        sha, _, name = line.partition("\t")
        if name.endswith("^{}"):
            refs[name[:-3]] = sha    # an annotated tag: the commit it points at
        else:
            refs.setdefault(name, sha)
    return refs


def _match(ref: str, refs: dict[str, str]) -> str | None:
    """The full refname REF stands for at the source: its branch, its tag, or (in a plain clone, where the
    fork's branches live under refs/remotes/) a remote's branch of that name."""
    for name in (ref, f"refs/heads/{ref}", f"refs/tags/{ref}", f"refs/remotes/origin/{ref}"):
        if name in refs:
            return name
    others = sorted(n for n in refs if n.startswith("refs/remotes/") and n.endswith("/" + ref))
    return others[0] if others else None


def fetch(source: str, ref: str, rl_dir: Path, hint: str) -> str:
    """Fetch REF from SOURCE into the repository at rl_dir (made empty if missing); the commit it names."""
    if rl_dir.exists() and _git("rev-parse", "--git-dir", cwd=rl_dir).returncode != 0:
        raise InputError(rl_dir, None, "not a git repository (docgen bump fetches NeMo-RL into it; give --rl DIR)")
    refs = _remote_refs(source)
    name = _match(ref, refs)
    if name is None and not _SHA.fullmatch(ref):
        raise InputError(source, None, f"no branch or tag {ref} there{hint}")
    if not rl_dir.exists():
        made = _git("init", "-q", str(rl_dir))
        if made.returncode != 0:
            raise InputError(rl_dir, None, f"cannot make a repository to fetch into: {_last_line(made.stderr)}")
    want = name or ref
    got = _git("fetch", "-q", "--no-tags", "--no-write-fetch-head", source, f"+{want}:refs/docgen/bump", cwd=rl_dir)
    if got.returncode != 0:
        have = _git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", cwd=rl_dir) if name is None else None
        if have is not None and have.returncode == 0:   # a commit already here (fetched before)
            return have.stdout.strip()
        raise InputError(source, None, f"could not fetch {ref}: git fetch says: {_last_line(got.stderr)}{hint}")
    return _git("rev-parse", "refs/docgen/bump^{commit}", cwd=rl_dir).stdout.strip()


def _has_commit(rl_dir: Path, commit: str) -> bool:
    return _git("cat-file", "-e", f"{commit}^{{commit}}", cwd=rl_dir).returncode == 0


def check_newer(source: str, ref: str, old: str | None, new: str, rl_dir: Path) -> int | None:
    """Refuse NEW when it is older than the snapshot's commit OLD (OLD contains it, or it does not contain OLD
    and was committed before it). The number of commits it adds to OLD (None: the snapshot recorded no commit,
    or NEW is on a rewritten branch that does not contain OLD)."""
    if not old:
        return None
    if not _has_commit(rl_dir, old) and _SHA.fullmatch(old):
        _git("fetch", "-q", "--no-tags", "--no-write-fetch-head", source, old, cwd=rl_dir)
    if not _has_commit(rl_dir, old):
        raise InputError(source, None, f"{ref} (commit {new[:12]}) does not contain the snapshot's commit "
                                       f"{old[:12]}, which is not there at all: cannot tell that {ref} is not older; "
                                       "fetch from a repository that holds both (--repo)")
    if old == new:
        return 0
    if _git("merge-base", "--is-ancestor", old, new, cwd=rl_dir).returncode != 0:
        # not built on OLD: older when OLD contains it, or when (a rewritten branch) its commit date is earlier
        older = (_git("merge-base", "--is-ancestor", new, old, cwd=rl_dir).returncode == 0
                 or _commit_time(rl_dir, new) < _commit_time(rl_dir, old))
        if older:
            raise InputError(source, None, f"{ref} (commit {new[:12]}) is older than the snapshot's commit "
                                           f"{old[:12]}: a bump moves forward only; give a ref that contains it "
                                           f"(`git -C {rl_dir} tag --contains {old[:12]}` lists the tags that do)")
        return None   # a rewritten branch, newer than OLD: no count of commits "on" it
    return int(_git("rev-list", "--count", f"{old}..{new}", cwd=rl_dir).stdout.strip() or 0)


def _commit_time(rl_dir: Path, commit: str) -> int:
    return int(_git("show", "-s", "--format=%ct", commit, cwd=rl_dir).stdout.strip() or 0)


def extract(rl_dir: Path, commit: str, dest: Path) -> None:
    """The files a snapshot reads (pyproject.toml, uv.lock, the registry modules), as COMMIT holds them."""
    for rel in ("pyproject.toml", "uv.lock", *REGISTRY_SOURCES):
        blob = subprocess.run(["git", "-C", str(rl_dir), "cat-file", "blob", f"{commit}:{rel}"],
                              capture_output=True, timeout=120)
        if blob.returncode != 0:
            if rel in ("pyproject.toml", "uv.lock"):
                raise InputError(f"{commit[:12]}:{rel}", None, "missing at that commit: not a NeMo-RL commit")
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(blob.stdout)


# ------------------------------------------------------------------------------------------------ files

def _replace(path: Path, data: bytes | None) -> None:
    """Put DATA at PATH atomically (None: remove it), keeping its mode."""
    if data is None:
        path.unlink(missing_ok=True)
        return
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".docgen-bump")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _point_ref(text: str, line: int, ref: str, shown: str) -> str:
    """The Dockerfile with the NEMO_RL_REF default on LINE (1-based) set to REF."""
    lines = text.splitlines(keepends=True)
    target = lines[line - 1]
    new, n = re.subn(r"^(\s*ARG\s+NEMO_RL_REF=)\S*", lambda m: m.group(1) + ref, target)
    if n != 1:
        raise InputError(shown, line, "cannot point NEMO_RL_REF here: expected `ARG NEMO_RL_REF=REF` on one line")
    lines[line - 1] = new
    return "".join(lines)


def _valid_ref(ref: str) -> str:
    if not ref or ref.startswith("-") or not re.fullmatch(r"[A-Za-z0-9._/+-]+", ref) or ".." in ref:
        raise InputError("REF", None, f"{ref!r} is not a branch, tag or commit name")
    return ref


# ------------------------------------------------------------------------------------------------ bump

def bump(project: Project, ref: str | None, repo: str | None, rl_dir: Path, *, say=print) -> Bumped:
    """The whole routine; see the module docstring. Raises InputError (bad input, missing ref, network) or
    CheckFailed, with every file put back as it was."""
    shown_df = project.display(project.dockerfile)
    df_text = read_input(project.dockerfile, "the Dockerfile", newline="")
    args = {a.name: a for a in reversed(parse_dockerfile(df_text, shown_df).args) if a.default is not None}
    ref_arg, repo_arg = args.get("NEMO_RL_REF"), args.get("NEMO_RL_REPO")
    if ref_arg is None or ref_arg.default is None:   # (a default is always there: `args` holds only those)
        raise InputError(shown_df, None, "no `ARG NEMO_RL_REF=...` default to point at the new ref")
    repo_default = repo_arg.default if repo_arg is not None else None
    ref = _valid_ref(ref or ref_arg.default)
    old_snapshot = load_snapshot(project.snapshot, shown=project.display(project.snapshot))
    old_prov = old_snapshot.provenance or {}
    source = _source(repo, repo_default, shown_df)
    hint = ""
    if repo and repo_default is not None and ref == ref_arg.default:
        hint = (f" (an upstream clone lacks the branches of the fork {repo_name(repo_default)}, such as {ref}: "
                "give --repo a clone or mirror of NEMO_RL_REPO, or a tag or commit)")
    say(f"docgen: fetching {ref} from {source} into {rl_dir}")
    new = fetch(source, ref, rl_dir, hint)
    count = check_newer(source, ref, old_prov.get("commit"), new, rl_dir)
    recorded_repo = repo_name(repo_default) if repo_default is not None else repo_name(source)
    with tempfile.TemporaryDirectory(prefix="docgen-bump-") as tmp:
        extract(rl_dir, new, Path(tmp))
        data = build_snapshot(tmp, repo=recorded_repo, ref=ref, commit=new)
    new_df = _point_ref(df_text, ref_arg.line, ref, shown_df)
    new_text = dump_snapshot(data)
    old_bytes = read_bytes(project.snapshot, "the snapshot")
    if new_df == df_text and new_text.encode() == old_bytes:
        return Bumped("", False, f"NeMo-RL {ref} is commit {new[:12]}, as the snapshot records: nothing to bump")

    touched = [project.dockerfile, project.snapshot, project.facts, *project.page_paths()]
    before = {p: (p.read_bytes() if p.exists() else None) for p in touched}
    try:
        _replace(project.dockerfile, new_df.encode())
        _replace(project.snapshot, new_text.encode())
        for line in write(prepare(project)):
            say(f"docgen: {line}")
        run = prepare(project)
        # a hand-written sentence whose named fact moved is the pull request's to review (a person edits or
        # confirms it), not a reason to refuse the bump: it is listed in the body, and `check` holds the
        # pull request until it is done
        reviews = [f for f in findings_of(run) if f.check == "review"]
        findings = [f for f in findings_of(run) if f.check != "review"]
        with redirect_stdout(sys.stderr):
            drift = report("text", run, findings, include_drift=True)
        if findings or drift:
            raise CheckFailed(f"`docgen check` fails on {ref} (commit {new[:12]}) with {len(findings)} finding(s) "
                              "above; every file was put back as it was")
        rewritten = [project.display(p) for p in touched if p.exists() and p.read_bytes() != before[p]]
    except BaseException:
        for path, data_before in before.items():
            if (path.read_bytes() if path.exists() else None) != data_before:
                _replace(path, data_before)
        raise

    old_ref, old_commit = old_prov.get("ref") or "?", str(old_prov.get("commit") or "")
    with tempfile.TemporaryDirectory(prefix="docgen-bump-") as tmp:
        old_file = Path(tmp) / "before.json"
        old_file.write_bytes(old_bytes)
        shown = project.display(project.snapshot)
        result = compare(load_side(old_file, f"{shown} before the bump"), load_side(project.snapshot, shown),
                         read_dockerfile(project.dockerfile), shown_df)
    adds = (f", {count} commit{'s' if count != 1 else ''} on" if count is not None else
            ", which does not contain the snapshot's commit (a rewritten branch)" if old_commit else "")
    headline = (f"Moves the image's NeMo-RL from `{old_ref}` at `{old_commit[:12] or 'no recorded commit'}` to "
                f"`{ref}` at `{new[:12]}`{adds} (`{recorded_repo}`). `docgen bump` pointed `NEMO_RL_REF` in "
                f"`{shown_df}` at it, recorded the snapshot from that commit's files, re-rendered the pages "
                f"(`docgen write`: {', '.join(f'`{r}`' for r in rewritten)}) and ran `docgen check`, which passes"
                + (f" but for {len(reviews)} hand-written sentence{'s' if len(reviews) != 1 else ''} to review (below)"
                   if reviews else "") + ". What moved for the image is below.")
    to_review = "".join(f"\n- `{f.path}:{f.line}`: {markdown_text(f.message)}" for f in reviews)
    body = headline + ("\n\n### Sentences to review\n\nEach names a fact that moved: edit it, or confirm it with "
                       "`docgen review FILE:LINE`." + to_review if reviews else "")
    return Bumped(body + "\n\n" + diff_markdown(result), True,
                  f"moved NeMo-RL to {ref} at {new[:12]}; {len(rewritten)} files rewritten")
