"""Phase A, run by maintainers when NeMo-RL's ref moves: read an RL checkout (pyproject.toml, uv.lock, the
actor registry) once into a deterministic, sorted JSON snapshot with one package or set member per line, so
reviewers see registry and lock changes as a readable diff and the docs build offline.
"""

import json
import os
from pathlib import Path

from docgen import __version__
from docgen.errors import InputError
from docgen.io import parse_json, read_input
from docgen.names import normalize
from docgen.snapshot import registry as registry_reader
from docgen.snapshot.load import FORMAT, PLATFORM, check_identities, combo_key

# ---------------------------------------------------------------------------------------------- making

# Imports inside functions below: `docgen check` loads this module (through the CLI and docgen.diff) but never
# makes a snapshot, so hashlib, subprocess and the checkout readers (lockfile, with packaging's markers;
# pyproject; registry_source) are imported only when one is made (`python -X importtime` shows their cost).

def _sha256(*chunks: bytes) -> str:
    import hashlib  # noqa: PLC0415  # only a snapshot hashes files (the note above)
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def _git(rl_dir: Path, *args: str) -> str | None:
    import subprocess  # noqa: PLC0415  # only a snapshot asks git (the note above)
    try:
        out = subprocess.run(["git", "-C", str(rl_dir), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def is_local_remote(url: str) -> bool:
    """Whether a remote URL names a folder on this machine (`/srv/git/RL`, `../RL`, `file:///srv/RL`,
    `C:/RL`) rather than a repository on a host (`https://...`, `ssh://...`, `git@host:Owner/RL`)."""
    text = url.strip()
    if text.startswith("file://"):
        return True
    scheme, sep, _ = text.partition("://")
    if sep and "/" not in scheme:
        return False
    head = text.split("/", 1)[0]
    return ":" not in head or (len(head) == 2 and head[0].isalpha())   # scp-like `host:path` is remote


def repo_name(url: str) -> str:
    """A remote URL as the snapshot records it: a hosted repository as owner/name
    (`https://github.com/Owner/RL.git`, `ssh://git@host:22/Owner/RL` and `git@host:Owner/RL.git` all give
    `Owner/RL`, case kept), a folder on this machine as the path the remote gives (`/srv/git/Owner/RL` stays
    `/srv/git/Owner/RL`): a local mirror is never dressed up as a hosted repository."""
    if is_local_remote(url):
        return url.strip().removeprefix("file://")
    text = url.strip().rstrip("/")
    text = text[:-4] if text.endswith(".git") else text
    scheme, sep, rest = text.partition("://")
    if sep and "/" not in scheme:
        text = rest.partition("/")[2]                     # drop user@host:port
    elif ":" in text.split("/", 1)[0]:
        text = text.split(":", 1)[1]                      # scp-like user@host:path
    return "/".join([part for part in text.split("/") if part][-2:])


def git_provenance(rl_dir: Path) -> dict[str, str | None]:
    """What the checkout's git says about where it came from: the repository (the URL of the remote the
    branch tracks, else `origin`, else the only remote; as owner/name), the commit, and the ref: a tag at
    HEAD (the highest version when several), else the branch. Empty when DIR is not the top of a checkout
    (a folder inside another repository must not borrow that repository's history)."""
    none: dict[str, str | None] = {"repo": None, "ref": None, "commit": None}
    top = _git(rl_dir, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != rl_dir.resolve() or not _gitdir_is_own(rl_dir):
        return none
    branch = _git(rl_dir, "symbolic-ref", "--short", "-q", "HEAD")
    remotes = (_git(rl_dir, "remote") or "").split()
    remote = _git(rl_dir, "config", "--get", f"branch.{branch}.remote") if branch else None
    if remote not in remotes:
        remote = "origin" if "origin" in remotes else (remotes[0] if len(remotes) == 1 else None)
    url = _git(rl_dir, "config", "--get", f"remote.{remote}.url") if remote else None
    tags = (_git(rl_dir, "tag", "--points-at", "HEAD", "--sort=-version:refname") or "").split()
    return {"repo": repo_name(url) if url else None, "ref": tags[0] if tags else branch,
            "commit": _git(rl_dir, "rev-parse", "HEAD")}


def _gitdir_is_own(rl_dir: Path) -> bool:
    """Whether the repository git finds for DIR is DIR's own. A `.git` folder is; a `.git` file (a linked
    worktree, a submodule, `git init --separate-git-dir`) is when the folder it names points back at DIR (a
    worktree's `gitdir` file, a submodule's `core.worktree`), or is no other work tree's `.git`. A `.git`
    file naming another checkout's `.git` would record that checkout's commit as DIR's: not DIR's own."""
    dot_git = rl_dir / ".git"
    if not dot_git.is_file():
        return dot_git.is_dir()
    try:
        first = read_input(dot_git, "the .git file").split("\n", 1)[0]
    except InputError:
        return False
    if not first.startswith("gitdir:"):
        return False
    gitdir = Path(os.path.realpath(rl_dir / first[len("gitdir:"):].strip()))
    here = os.path.realpath(rl_dir)
    back = gitdir / "gitdir"                       # a linked worktree's pointer back to its .git file
    if (gitdir / "commondir").is_file() and back.is_file():
        try:
            return os.path.realpath(read_input(back).strip()) == os.path.realpath(dot_git)
        except InputError:
            return False
    worktree = _git(rl_dir, "--git-dir", str(gitdir), "config", "--get", "core.worktree")
    if worktree is not None:                       # a submodule's repository names its work tree
        return os.path.realpath(gitdir / worktree) == here
    return gitdir.name != ".git" or gitdir.parent == Path(here)


def blob_id(data: bytes) -> str:
    """The git blob id of a file's bytes (`git hash-object`): what a commit's tree records for it."""
    import hashlib  # noqa: PLC0415  # only a snapshot and --against hash files (the note above)
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_digests(git_dir: str | Path, commit: str, paths) -> dict[str, str | None]:
    """The blob id each path has in COMMIT's tree (None: the commit has no such file), read from the
    repository at git_dir (a checkout or a bare mirror)."""
    listing = _git(Path(git_dir), "ls-tree", "-z", "--full-tree", commit, "--", *paths) if paths else ""
    found: dict[str, str | None] = dict.fromkeys(paths)
    for entry in (listing or "").split("\0"):
        meta, _, name = entry.partition("\t")
        if name in found and meta.split(" ")[1:2] == ["blob"]:
            found[name] = meta.split(" ")[2]
    return found


def resolve_commit(rl_dir: Path, ref: str) -> str | None:
    """The commit REF names in the checkout at rl_dir: a tag, a branch, a commit, or a branch of a remote
    (`nmp/customizer` in a clone whose branch lives at `origin/nmp/customizer`); None when nothing does."""
    for name in (ref, *(f"{r}/{ref}" for r in (_git(rl_dir, "remote") or "").split())):
        if name.startswith("-"):
            return None
        commit = _git(rl_dir, "rev-parse", "--verify", "-q", f"{name}^{{commit}}")
        if commit:
            return commit
    return None


def _verify_checkout(rl_dir: Path, ref: str | None, files: dict[str, str], allow_dirty: bool) -> list[str]:
    """Refuse a --ref that names no commit of the checkout, or another commit than the one checked out, and
    files read that differ from that commit (unless allow_dirty; then they are returned, to be recorded)."""
    head = _git(rl_dir, "rev-parse", "HEAD")
    shown = str(rl_dir)
    if ref is not None:
        at = resolve_commit(rl_dir, ref)
        if at is None:
            raise InputError(shown, None, f"--ref {ref}: no tag, branch or commit of that name in this checkout; "
                                          f"fetch it (`git -C {shown} fetch origin {ref}`) or give the ref the "
                                          "checkout is at")
        if at != head:
            raise InputError(shown, None, f"--ref {ref} is commit {at[:12]}, but the checkout is at "
                                          f"{(head or '?')[:12]}; check it out first (`git -C {shown} checkout -q "
                                          f"--detach {ref}`) or give the ref of the checked-out commit")
    committed = tree_digests(rl_dir, "HEAD", list(files))
    dirty = sorted(rel for rel, blob in files.items() if committed.get(rel) != blob)
    if dirty and not allow_dirty:
        raise InputError(shown, None, f"{', '.join(dirty)} differ{'s' if len(dirty) == 1 else ''} from commit "
                                      f"{(head or '?')[:12]}, so the snapshot would record that commit for files it "
                                      f"does not hold; commit or restore them (`git -C {shown} stash`), or pass "
                                      "--allow-dirty to record the tree as dirty")
    return dirty


def build_snapshot(rl_dir: str | Path, registry_facts: str | Path | None = None,
                   repo: str | None = None, ref: str | None = None, *, commit: str | None = None,
                   allow_dirty: bool = False, verify: bool = True) -> dict:
    """Read an RL checkout into the snapshot's JSON-able form (deterministic).

    Provenance is verified when DIR is the top of a git checkout (`verify`): a --ref must name the commit that
    is checked out, and the files read must be that commit's, unless `allow_dirty` (then the snapshot records
    which were not). `files` records the git blob id of every file read from DIR, so `docgen check --against`
    can hold them to the recorded commit later. `commit` is given by a caller that extracted DIR from a known
    commit itself (docgen bump), and then nothing is asked of DIR's git."""
    from docgen.snapshot.lockfile import read_lock  # noqa: PLC0415  # the checkout readers (the note above)
    from docgen.snapshot.pyproject import read_pyproject  # noqa: PLC0415  # (as read_lock)
    from docgen.snapshot.registry_source import read_registry_source  # noqa: PLC0415  # (as read_lock)

    rl_dir = Path(rl_dir)
    pyproject_path = rl_dir / "pyproject.toml"
    lock_path = rl_dir / "uv.lock"
    for needed in (pyproject_path, lock_path):
        if not needed.is_file():
            raise InputError(needed, None, "missing: `docgen snapshot --from DIR` needs DIR/pyproject.toml and DIR/uv.lock")
    project = read_pyproject(pyproject_path)
    lock = read_lock(lock_path, root=project.name)

    inputs = {"pyproject.toml": _sha256(pyproject_path.read_bytes()), "uv.lock": _sha256(lock_path.read_bytes())}
    given_ref, facts_commit = ref, None
    files = {"pyproject.toml": blob_id(pyproject_path.read_bytes()), "uv.lock": blob_id(lock_path.read_bytes())}
    if registry_facts is not None:
        registry_path = Path(registry_facts)
        registry = registry_reader.read_registry_json(registry_path)
        inputs["registry"] = _sha256(registry_path.read_bytes())
        facts = parse_json(registry_path, read_input(registry_path, "registry facts"))
        upstream = facts.get("upstream", {}) if isinstance(facts, dict) else {}
        fork = facts.get("fork", {}) if isinstance(facts, dict) else {}
        repo = repo or fork.get("repo") or upstream.get("repo")
        ref = ref or fork.get("ref")
        facts_commit = upstream.get("commit")
    else:
        registry = read_registry_source(rl_dir)
        # every module that can change the registry, including the one defining PY_EXECUTABLES
        inputs["registry"] = _sha256(*(rel.encode() + b"\0" + (rl_dir / rel).read_bytes()
                                       for rel in registry_reader.REGISTRY_SOURCES if (rl_dir / rel).is_file()))
        files.update({rel: blob_id((rl_dir / rel).read_bytes())
                      for rel in registry_reader.REGISTRY_SOURCES if (rl_dir / rel).is_file()})
    dirty: list[str] = []
    if commit is None:
        # what was not given (or read from the facts file) comes from the checkout's git, verified
        found = git_provenance(rl_dir)
        if found["commit"] is not None:
            if verify:
                dirty = _verify_checkout(rl_dir, given_ref, files, allow_dirty)
        elif given_ref is not None and facts_commit is None:
            raise InputError(rl_dir, None, f"--ref {given_ref}: this folder is not the top of a git checkout, so "
                                           "nothing says the ref is what it holds; snapshot a clone checked out at "
                                           f"the ref (`git clone -q URL DIR && git -C DIR checkout -q {given_ref}`)")
        repo, ref = repo or found["repo"], ref or found["ref"]
        commit = facts_commit or found["commit"]

    # Every combination of extras an image or a registry executable can ask for: none, each extra, each executable's.
    combos: dict[str, tuple[str, ...]] = {"": ()}
    for extra in project.extras:
        combos[combo_key([extra])] = (extra,)
    for entry in registry.entries:
        for extras in (entry.extras, entry.extras_system):
            for extra in extras:
                if normalize(extra) not in {normalize(e) for e in project.extras}:
                    raise InputError(entry.file, entry.line,
                                     f"{entry.actor} runs with --extra {extra}, which {pyproject_path} does not define")
            combos[combo_key(extras)] = tuple(extras)

    packages: dict[str, dict] = {}
    install_sets: dict[str, list[str]] = {}
    for key, extras in sorted(combos.items()):
        members = lock.install_set(extras)
        install_sets[key] = sorted(p.key for p in members)
        for p in members:
            packages[p.key] = {
                "name": p.id.name, "version": p.id.version, "source_kind": p.source_kind,
                "source": p.id.source, "source_built": p.source_built, "editable": p.source_kind == "editable",
            }

    # Source builds the base sync already makes are not shared between extras: every extra just reuses them.
    base = set(install_sets[""])
    shared_builds = [{"package": pkg.key, "extras": list(extras)}
                     for pkg, extras in lock.shared_source_builds(list(project.extras)) if pkg.key not in base]

    snapshot = {
        "format": FORMAT,
        "provenance": {
            "repo": repo, "ref": ref, "commit": commit, "docgen_version": __version__,
            "platform": PLATFORM, "inputs": inputs,
            "files": files,   # git blob ids of the files read: `docgen check --against` holds them to `commit`
            **({"dirty": dirty} if dirty else {}),   # files read that differed from `commit` (--allow-dirty)
        },
        "project": {
            "name": project.name,
            "requires_python": project.requires_python or lock.requires_python,
            "extras": {name: [r.text for r in reqs] for name, reqs in project.extras.items()},
            "conflicts": [[{"package": c.package, "extra": c.extra} for c in group if c.extra is not None]
                          for group in project.conflicts],
            "default_groups": list(project.default_groups),
            "groups": list(project.groups),
            "overrides": [r.text for r in project.overrides],
            "sources": [{"name": s.name, "kind": s.kind, "detail": s.detail, "marker": s.marker}
                        for s in project.sources],
            "workspace_members": list(project.workspace_members),
            # written only when NeMo-RL states it, so snapshots of a project without it stay as they were
            **({"uv_required_version": project.uv_required_version} if project.uv_required_version else {}),
        },
        "registry": {
            "executables": dict(registry.executables),
            "actors": [{"actor": e.actor, "member": e.member, "command": e.command,
                        "command_system": e.command_system, "source": e.source}
                       for e in registry.entries],
        },
        "lock": {
            "version": lock.version, "revision": lock.revision,
            "packages": {k: packages[k] for k in sorted(packages)},
            "install_sets": install_sets,
            "shared_builds": shared_builds,
        },
    }
    # what the checkout and its git said is held to the rules the loader holds a snapshot to, before it is written
    check_identities(snapshot, rl_dir, what="not a snapshot docgen writes")
    return snapshot


def dump_snapshot(data: dict) -> str:
    """Diff-friendly JSON: nested objects indented, each list of strings one item per line, keys sorted."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


