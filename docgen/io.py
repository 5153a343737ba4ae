"""Everything docgen reads from and writes to disk passes through here.

Reading: only regular files (a FIFO would hang, /dev/zero would grow without end) and only up to a stated
size cap; bytes that are not UTF-8 are bad input with their line. Writing: one all-or-nothing writer for
blocks, facts, snapshots and console updates. It refuses symlinks and paths outside the root, stages every
file next to its target, refuses to overwrite a file that changed on disk since docgen read it, and on any
failure puts back what it had already replaced. Every refusal is an InputError (exit 2) naming the path.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from docgen.errors import InputError

MAX_INPUT_BYTES = 16 * 2**20   # pages, Dockerfiles, snapshots, records: far above any real one
MAX_LOCK_BYTES = 64 * 2**20    # uv.lock of a large workspace (NeMo-RL's is under 1 MiB): the lock reader's cap
EXCERPT_CHARS = 40             # the most of an input's text a message about unreadable content quotes


def excerpt(text: str | bytes, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of `text`, escaped (control characters, quotes), for a message that must
    show what it found without echoing a file that may not be text at all."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    shown = repr(text[:limit])
    return shown + ("..." if len(text) > limit else "")


def inside(root: str | Path, path: str | Path) -> bool:
    """Whether `path` lies inside `root` (both taken as they are; resolve them first where that matters)."""
    try:
        Path(path).relative_to(root)
    except ValueError:
        return False
    return True


def confined_input(root: str | Path, path: str | Path) -> str | None:
    """Why the input at `path` may not be read, or None: it is reached through a symlink that leaves the root,
    or a symlink on the way resolves to something that is not a regular file. A missing file is no problem
    here (the reader reports it)."""
    root = Path(os.path.realpath(root))
    path = Path(os.path.abspath(path))
    if not os.path.lexists(path) or os.path.realpath(path) == str(path):
        return None   # missing, or no symlink on the way
    real = Path(os.path.realpath(path))
    if not inside(root, real):
        return f"a symlink leads it outside the root {root} (to {real}); docgen reads inputs only inside the root"
    try:
        st = os.stat(real)
    except OSError as exc:
        return f"a symlink leads it to {real}, which cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return f"a symlink leads it to {real}, which is not a regular file"
    return None


def _check_regular(path: str | Path, label: str, limit: int, st: os.stat_result | None = None) -> os.stat_result:
    if st is None:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise InputError(path, None, f"{label}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise InputError(path, None, f"{label}: {kind}")
    if st.st_size > limit:
        raise InputError(path, None, f"{label}: {st.st_size} bytes, over docgen's cap of {limit} bytes")
    return st


def read_bytes(path: str | Path, what: str = "", *, limit: int = MAX_INPUT_BYTES,
               lstat: os.stat_result | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, checked before it is opened (a FIFO would hang).
    `lstat` is the caller's os.lstat of a path it found not to be a symlink: it stands in for the check's
    stat, and the file is opened without following a symlink put there since."""
    label = f"cannot read{' ' + what if what else ''}"
    st = _check_regular(path, label, limit, lstat)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (getattr(os, "O_NOFOLLOW", 0) if lstat is not None else 0)
    chunks = []
    size = 0
    try:
        # os.open and os.read, not open(): no buffered file object, and no buffer of the cap's size to
        # allocate for each file (read(limit + 1) sized its buffer by the cap, not by the file)
        fd = os.open(path, flags)
        try:
            want = min(st.st_size + 1, limit + 1)   # the size stat saw, and one byte to see the end
            while size <= limit:
                chunk = os.read(fd, min(want, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                want = max(want, 1 << 16)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(path, None, f"{label}: {exc.strerror or exc}") from None
    if size > limit:  # grew between stat and read
        raise InputError(path, None, f"{label}: over docgen's cap of {limit} bytes")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def decode(path: str | Path, data: bytes, what: str = "", *, newline: str | None = None) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        label = f"cannot read{' ' + what if what else ''}"
        raise InputError(path, data.count(b"\n", 0, exc.start) + 1,
                         f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x})") from None
    nul = text.find("\0")
    if nul >= 0:   # no text docgen reads holds NUL; /proc/self/environ and binaries do: never quote them
        label = f"cannot read{' ' + what if what else ''}"
        raise InputError(path, text.count("\n", 0, nul) + 1, f"{label}: not text (it holds a NUL byte)")
    return text if newline == "" else text.replace("\r\n", "\n").replace("\r", "\n")


def read_input(path: str | Path, what: str = "", *, newline: str | None = None,
               limit: int = MAX_INPUT_BYTES) -> str:
    """The text of an input file. Missing, unreadable, not a regular file, over the cap or not UTF-8: an
    InputError naming the file (and for a bad byte its line). `newline=None` turns CRLF and CR into LF as
    `open` does; `newline=""` keeps line endings as written."""
    return decode(path, read_bytes(path, what, limit=limit), what, newline=newline)


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return data


def _line_of_second(text: str, key: str) -> int | None:
    """The line of the second time `key` is written as a JSON object key (for the duplicate-key message)."""
    found = [m.start() for m in re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)]
    return text.count("\n", 0, found[1]) + 1 if len(found) > 1 else None


def _line_of_long_number(text: str) -> int | None:
    limit = sys.get_int_max_str_digits()
    found = re.search(r"[0-9_]{%d,}" % (limit + 1), text) if limit else None
    return text.count("\n", 0, found.start()) + 1 if found else None


def parse_json(path: str | Path, text: str) -> object:
    """`text` (read from `path`) as JSON. Invalid, nested too deeply, an object with a key written twice or
    an integer too long for Python to convert: an InputError naming the file (and its line where known)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise InputError(path, 1, "not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    except _DuplicateKey as exc:
        key = exc.args[0]
        raise InputError(path, _line_of_second(text, key),
                         f"not valid JSON for docgen: the key {excerpt(key)} appears twice in one object") from None
    except ValueError as exc:   # an integer over sys.get_int_max_str_digits() digits
        raise InputError(path, _line_of_long_number(text),
                         f"not valid JSON for docgen: {str(exc).split(';')[0]}") from None


def read_json_object(path: str | Path, what: str = "") -> tuple[str, dict]:
    """An input file holding one JSON object: (its text, for finding lines later; the object)."""
    text = read_input(path, what)
    data = parse_json(path, text)
    if not isinstance(data, dict):
        raise InputError(path, 1, "expected a JSON object")
    return text, data


# tomllib ends each error message with where it stopped: "(at line N, column M)" or "(at end of document)"
_TOML_AT = re.compile(r"\(at line (\d+), column \d+\)$")


def parse_toml(path: str | Path, text: str) -> dict:
    """`text` (read from `path`) as TOML, by tomllib. Invalid: an InputError at the line tomllib names."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)   # an attribute from Python 3.14 on; before, only in the message
        if line is None:
            found = _TOML_AT.search(str(exc))
            line = int(found.group(1)) if found else None
        raise InputError(path, line, f"not valid TOML: {exc}") from None
    except RecursionError:   # tomllib recurses once per nested array or inline table
        raise InputError(path, 1, "not valid TOML: arrays or tables nested too deeply") from None
    except ValueError as exc:   # an integer over sys.get_int_max_str_digits() digits
        raise InputError(path, _line_of_long_number(text),
                         f"not valid TOML for docgen: {str(exc).split(';')[0]}") from None


def read_toml(path: str | Path, what: str = "") -> tuple[str, dict]:
    """An input file in TOML: (its text, for finding lines later; the document)."""
    text = read_input(path, what)
    return text, parse_toml(path, text)


# ------------------------------------------------------------------------------------------------ writing
#
# A write of several files is all or nothing, also when the process is killed half way:
#   1. every new text is staged beside its target (same folder, so the rename is atomic) and synced;
#   2. each existing target gets a hard link as its backup (for rolling back an error in this process);
#   3. a journal naming every (target, staged file) pair is put in place at the root by one rename;
#   4. the staged files are renamed over their targets;
#   5. the journal is removed, then the backups.
# Killed before 3, no target changed (the staged files are orphans the next write clears); killed after 3,
# the next docgen command finds the journal of a writer that is gone and renames the staged files still
# there (roll forward), so the set becomes wholly new, and says so. Every name the writer makes ends in
# STAGE_SUFFIX, which the repository's .gitignore ignores.

STAGE_SUFFIX = ".docgen-tmp"
JOURNAL = ".docgen-journal" + STAGE_SUFFIX
_JOURNAL_MARK = "docgen-journal"

# The files docgen writes besides pages, each JSON with the keys that tell docgen's own format: an existing
# file without them is someone else's, and is never overwritten.
OWNED_RECORDS = {
    "facts": ("the facts record", frozenset({"format", "filters"})),
    "snapshot": ("a NeMo-RL snapshot", frozenset({"format", "lock", "registry"})),
    "image-size": ("the image-size record", frozenset({"image_id", "layers"})),
}


class Output(NamedTuple):
    """One file to write. `expected` is the exact bytes docgen read from it (None: it did not exist or was
    not read); the writer refuses to overwrite a file whose bytes differ from that by the time it writes.
    `kind` is "page" (Markdown) or a key of OWNED_RECORDS."""
    path: Path
    text: str
    expected: bytes | None = None
    check_expected: bool = False
    kind: str = "page"


_inside = inside


def _safe_target(root: Path, path: Path) -> Path:
    """The absolute target path, refusing a symlink at it or in any folder between the root and it."""
    root = Path(os.path.realpath(root))
    path = Path(os.path.abspath(path))
    if not _inside(root, path):
        # the root itself may be reached through a symlink (e.g. /tmp on some systems): compare real paths
        real_parent = Path(os.path.realpath(path.parent))
        if not _inside(root, real_parent / path.name):
            raise InputError(path, None, f"refusing to write outside the repository root {root}")
        path = real_parent / path.name
    probe = root
    for part in path.relative_to(root).parts:
        probe = probe / part
        if probe.is_symlink():
            raise InputError(probe, None, "refusing to write through a symlink")
    if path.exists() and not path.is_file():
        raise InputError(path, None, "refusing to write: not a regular file")
    return path


def owned_problem(root: Path, target: Path, kind: str) -> str | None:
    """Why docgen may not write `target` as a file of `kind`, or None. Not the file's content (see
    _check_owned_content); only where it lies and what it is called."""
    rel = target.relative_to(root)
    if any(part.lower() == ".git" for part in rel.parts):
        return "refusing to write inside .git"
    suffix = ".md" if kind == "page" else ".json"
    if target.suffix.lower() != suffix:
        what = "a page" if kind == "page" else OWNED_RECORDS[kind][0]
        return f"refusing to write {what} to a file not named *{suffix}"
    if target.name.endswith(STAGE_SUFFIX) or target.name == JOURNAL:
        return "refusing to write over the writer's own staging files"
    return None


def _check_owned_content(target: Path, kind: str) -> None:
    """An existing record must be one docgen wrote: a JSON object with the keys of its kind."""
    if kind == "page" or not target.exists():
        return
    label, keys = OWNED_RECORDS[kind]
    try:
        data = parse_json(target, read_input(target, label))
    except InputError as exc:
        data = exc
    if not (isinstance(data, dict) and keys <= data.keys()):
        raise InputError(target, None, f"refusing to overwrite it: the file there is not {label} docgen wrote "
                                       f"(not a JSON object with the keys {', '.join(sorted(keys))}); "
                                       "nothing was written")


def write_files(root: str | Path, outputs: Iterable[Output]) -> list[Path]:
    """Write every output or none. Returns the paths replaced. Raises InputError (nothing changed on disk)."""
    root = Path(os.path.realpath(root))
    outputs = list(outputs)
    plan = []
    for out in outputs:
        target = _safe_target(root, out.path)
        problem = owned_problem(root, target, out.kind)
        if problem:
            raise InputError(target, None, problem)
        _check_owned_content(target, out.kind)
        plan.append((out, target))
    if not plan:
        return []
    recover(root)   # a killed writer's set is completed before this one starts
    for _, target in plan:
        _clear_orphans(target)
    staged: list[tuple[Path, str, str | None, Output]] = []   # (target, staged file, backup or None, output)
    replaced: list[tuple[Path, str | None]] = []              # (target, backup path or None when it was new)
    journal_made = False
    current: Path | None = None                               # the target being worked on, for the message
    try:
        for out, target in plan:
            current = target
            tmp = _stage(target, out.text)
            staged.append((target, tmp, None, out))
        for i, (target, tmp, _, out) in enumerate(staged):
            current = target
            if out.check_expected:
                now = target.read_bytes() if target.exists() else None
                if now != out.expected:
                    raise InputError(target, None, "changed on disk while docgen was writing; run docgen again")
            if target.exists():
                backup = tmp[:-len(".new" + STAGE_SUFFIX)] + ".old" + STAGE_SUFFIX
                os.link(target, backup)
                staged[i] = (target, tmp, backup, out)
        current = root / JOURNAL
        _write_journal(root, staged)
        journal_made = True
        for target, tmp, backup, _ in staged:
            current = target
            os.replace(tmp, target)
            replaced.append((target, backup))
        current = root / JOURNAL
        os.unlink(root / JOURNAL)   # the set is whole: from here on nothing needs recovering
        journal_made = False
    except BaseException as exc:
        for target, backup in reversed(replaced):
            try:
                if backup is None:
                    os.unlink(target)
                else:
                    os.replace(backup, target)
            except OSError:
                pass
        if journal_made:
            try:
                os.unlink(root / JOURNAL)
            except OSError:
                pass
        for _, tmp, backup, _ in staged:
            for leftover in (tmp, backup):
                try:
                    if leftover:
                        os.unlink(leftover)
                except OSError:
                    pass
        if isinstance(exc, OSError):
            raise InputError(current or getattr(exc, "filename", None) or root, None,
                             f"cannot write: {exc.strerror or exc}; nothing was changed") from None
        raise
    for _, backup in replaced:
        if backup is not None:
            try:
                os.unlink(backup)
            except OSError:
                pass
    return [target for target, _ in replaced]


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_journal(root: Path, staged: list[tuple[Path, str, str | None, Output]]) -> None:
    journal = root / JOURNAL
    if os.path.lexists(journal):
        raise InputError(journal, None, "another docgen write is under way (its journal is there); run docgen "
                                        "again when it has finished")
    for target, *_ in staged:
        _fsync_dir(target.parent)   # the staged files' names are durable before the journal names them
    body = json.dumps({_JOURNAL_MARK: 1, "pid": os.getpid(),
                       "files": [[target.relative_to(root).as_posix(), os.path.basename(tmp),
                                  os.path.basename(backup) if backup else None]
                                 for target, tmp, backup, _ in staged]}) + "\n"
    tmp = _stage(journal, body)
    try:
        os.link(tmp, journal)   # unlike a rename, fails when a concurrent writer put its journal there first
    except FileExistsError:
        raise InputError(journal, None, "another docgen write is under way (its journal is there); run docgen "
                                        "again when it has finished") from None
    finally:
        os.unlink(tmp)
    _fsync_dir(root)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True       # another user's live process
    return True


def recover(root: str | Path) -> list[str]:
    """Complete the write a killed docgen left half done (its journal at the root names every target and its
    staged file): rename each staged file still there over its target. Returns what it did, for the log
    (empty when there was nothing to recover). A journal of a writer still running is left alone."""
    root = Path(os.path.realpath(root))
    journal = root / JOURNAL
    _clear_orphans(journal)   # a journal staged but never put in place
    if not os.path.lexists(journal):
        return []
    try:
        st = os.lstat(journal)
        data = parse_json(journal, read_input(journal, "the write journal")) if stat.S_ISREG(st.st_mode) else None
    except InputError:
        data = None
    if not (isinstance(data, dict) and data.get(_JOURNAL_MARK) == 1 and isinstance(data.get("pid"), int)
            and isinstance(data.get("files"), list)):
        raise InputError(journal, None, "not a write journal docgen can read; a docgen write was interrupted "
                                        "there: check the pages with `git status`, then remove this file")
    if _alive(data["pid"]):
        return []
    done, total, names = 0, len(data["files"]), []
    for entry in data["files"]:
        rel, tmp_name, backup_name = (entry + [None, None, None])[:3]
        if not isinstance(rel, str) or not isinstance(tmp_name, str):
            raise InputError(journal, None, "a write journal entry docgen cannot read; remove the file after "
                                            "checking the pages with `git status`")
        target = _safe_target(root, root / rel)
        staged = target.parent / os.path.basename(tmp_name)
        if not staged.name.endswith(STAGE_SUFFIX):
            raise InputError(journal, None, f"the journal names {staged}, not a staging file of docgen's")
        if staged.exists():
            os.replace(staged, target)
            done += 1
            names.append(rel)
    _fsync_dir(root)
    os.unlink(journal)
    for entry in data["files"]:
        backup_name = entry[2] if len(entry) > 2 else None
        if isinstance(backup_name, str) and backup_name.endswith(STAGE_SUFFIX):
            try:
                os.unlink(root / os.path.dirname(entry[0]) / os.path.basename(backup_name))
            except OSError:
                pass
    return [f"recovered an interrupted write (pid {data['pid']}): completed {done} of its {total} files"
            + (f" ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})" if names else "")
            + "; the set is now wholly the new one"]


def _clear_orphans(target: Path) -> None:
    """Staged files and backups a killed `docgen write` left beside `target` before it made its journal:
    their names carry the writer's PID, so only those of writers that are gone are removed, never a
    concurrent writer's."""
    if not target.parent.is_dir():
        return
    # (".bak": the backups of docgen versions before the journal)
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)\.[^/]*" + re.escape(STAGE_SUFFIX) + r"(\.bak)?$")
    for leftover in target.parent.iterdir():
        m = pattern.match(leftover.name)
        if m is None or _alive(int(m.group(1))):
            continue
        try:
            leftover.unlink()
        except OSError:
            pass


def _stage(target: Path, text: str) -> str:
    """Write `text` to a hidden file beside `target` (same file system, so the rename is atomic), synced."""
    import tempfile   # only a write stages files: at the top it would cost `docgen check` ~2 ms (-X importtime)

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.",
                               suffix=".new" + STAGE_SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o644
        os.chmod(tmp, mode)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def write_file(root: str | Path, path: str | Path, text: str, kind: str = "page") -> None:
    """One file, atomically, with the same refusals as `write_files`."""
    write_files(root, [Output(Path(path), text, kind=kind)])


def append_report(path: str | Path, text: str) -> None:
    """Append a report (a CI job summary) to a file outside the project, such as $GITHUB_STEP_SUMMARY.
    Not for project files: those go through write_files. Appending is what the runner expects of every
    step writing its summary; a symlink or anything but a regular file (or a new one) is refused."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise InputError(path, None, "refusing to write the summary: not a regular file")
    try:
        with open(path, "a", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        raise InputError(path, None, f"cannot write the summary: {exc.strerror or exc}") from None
