"""Everything docgen reads from and writes to disk passes through here.

Reading: only regular files (a FIFO would hang, /dev/zero would grow without end) and only up to a stated
size cap; bytes that are not UTF-8 are bad input with their line. Writing: one writer for blocks, facts,
snapshots and console updates. It refuses symlinks, paths outside the root, files docgen does not own and a
file that changed on disk since docgen read it, all before it replaces anything; then it replaces each file
atomically (a temporary file beside it, then a rename). Every refusal is an InputError (exit 2) naming the
path.
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
from docgen.text import line_at

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
        raise InputError(path, line_at(data, exc.start),
                         f"{label}: not UTF-8 (byte 0x{data[exc.start]:02x})") from None
    nul = text.find("\0")
    if nul >= 0:   # no text docgen reads holds NUL; /proc/self/environ and binaries do: never quote them
        label = f"cannot read{' ' + what if what else ''}"
        raise InputError(path, line_at(text, nul), f"{label}: not text (it holds a NUL byte)")
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
    return line_at(text, found[1]) if len(found) > 1 else None


def _line_of_long_number(text: str) -> int | None:
    limit = sys.get_int_max_str_digits()
    found = re.search(r"[0-9_]{%d,}" % (limit + 1), text) if limit else None
    return line_at(text, found.start()) if found else None


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
# Every file is rendered and checked before the first one is replaced, so a refusal (a file docgen does not
# own, a page changed on disk since docgen read it) changes nothing. Then each file is replaced on its own,
# atomically: its text goes to a temporary file beside it (same folder, so the rename is atomic), synced, and
# renamed over it. A write killed half way leaves each file wholly old or wholly new, and the next
# `docgen write` brings the rest; there is no journal and nothing to recover, so only a write ever renames.
# A killed write may leave its temporary files (`.NAME.PID.*.docgen-tmp`, which the repository's .gitignore
# ignores): `check` passes them over, and the next write, once it has replaced a file, removes those beside it
# whose writer is gone.

STAGE_SUFFIX = ".docgen-tmp"

# The files docgen writes besides pages, each JSON with the keys that tell docgen's own format, and whether
# one that cannot be read as JSON at all is taken as docgen's own, broken (a merge conflict, a key written
# twice) and written anew: only the facts record, which docgen derives whole from the inputs. Valid JSON
# without the keys is someone else's file, and is never overwritten.
OWNED_RECORDS = {
    "facts": ("the facts record", frozenset({"format", "filters"}), True),
    "snapshot": ("a NeMo-RL snapshot", frozenset({"format", "lock", "registry"}), False),
    "image-size": ("the image-size record", frozenset({"image_id", "layers"}), False),
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


def _safe_target(root: Path, path: Path) -> Path:
    """The absolute target path, refusing a symlink at it or in any folder between the root and it."""
    root = Path(os.path.realpath(root))
    path = Path(os.path.abspath(path))
    if not inside(root, path):
        # the root itself may be reached through a symlink (e.g. /tmp on some systems): compare real paths
        real_parent = Path(os.path.realpath(path.parent))
        if not inside(root, real_parent / path.name):
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
    read_record); only where it lies and what it is called."""
    rel = target.relative_to(root)
    if any(part.lower() == ".git" for part in rel.parts):
        return "refusing to write inside .git"
    suffix = ".md" if kind == "page" else ".json"
    if target.suffix.lower() != suffix:
        what = "a page" if kind == "page" else OWNED_RECORDS[kind][0]
        return f"refusing to write {what} to a file not named *{suffix}"
    return None


def read_record(path: str | Path, raw: bytes, kind: str) -> tuple[dict | None, InputError | None]:
    """The bytes of an existing record of `kind` (a key of OWNED_RECORDS) read at `path`: (the record, None),
    or (None, why) when they cannot be read as JSON at all (not UTF-8, not JSON, a key written twice, an
    integer too long to convert). Valid JSON that is not docgen's record of that kind is someone else's
    file: an InputError."""
    label, keys, _ = OWNED_RECORDS[kind]
    try:
        data = parse_json(path, decode(path, raw, label))
    except InputError as exc:
        return None, exc
    if not (isinstance(data, dict) and keys <= data.keys()):
        raise InputError(path, None, f"the file there is not {label} docgen wrote (not a JSON object with the "
                                     f"keys {', '.join(sorted(keys))}); docgen writes only files of its own")
    return data, None


def _check_owned_content(target: Path, kind: str) -> None:
    """An existing record must be one docgen wrote (or, for the facts record, one that cannot be read at all)."""
    if kind == "page" or not target.exists():
        return
    label, _, remade = OWNED_RECORDS[kind]
    try:
        _, unreadable = read_record(target, read_bytes(target, label), kind)
    except InputError as exc:
        raise InputError(target, None, f"refusing to overwrite it: {exc.message}. Nothing was written") from None
    if unreadable is not None and not remade:
        raise InputError(target, None, f"refusing to overwrite it: the file there is not {label} docgen wrote "
                                       f"({unreadable.message}). Nothing was written")


def write_files(root: str | Path, outputs: Iterable[Output]) -> list[Path]:
    """Replace each output's file with its text, each atomically. Every output is checked first, so a refusal
    (InputError, exit 2) changes nothing. Returns the paths replaced."""
    root = Path(os.path.realpath(root))
    plan = []
    for out in outputs:
        target = _safe_target(root, out.path)
        problem = owned_problem(root, target, out.kind)
        if problem:
            raise InputError(target, None, problem)
        _check_owned_content(target, out.kind)
        plan.append((out, target))
    staged: list[tuple[Path, str]] = []   # (target, its temporary file)
    replaced: list[Path] = []
    current = root                        # the file being worked on, for the message
    try:
        for out, target in plan:
            current = target
            staged.append((target, _stage(target, out.text)))
        for out, target in plan:
            current = target
            if out.check_expected and (target.read_bytes() if target.exists() else None) != out.expected:
                raise InputError(target, None, "changed on disk while docgen was writing; run docgen again")
        for target, tmp in staged:
            current = target
            os.replace(tmp, target)
            replaced.append(target)
    except BaseException as exc:
        for _, tmp in staged[len(replaced):]:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if isinstance(exc, OSError):
            done = (f"; {len(replaced)} of {len(staged)} files were replaced already "
                    f"({', '.join(str(p.relative_to(root)) for p in replaced)}) and the others are as they were: "
                    "run docgen write again" if replaced else "; nothing was changed")
            raise InputError(current, None, f"cannot write: {exc.strerror or exc}{done}") from None
        raise
    for folder in dict.fromkeys(target.parent for target in replaced):
        _fsync_dir(folder)   # the renames are durable once write says it is done
    for target in replaced:
        _clear_orphans(target)
    return replaced


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


def _clear_orphans(target: Path) -> None:
    """Temporary files a killed `docgen write` left beside `target`: their names carry the writer's PID, so
    only those of writers that are gone are removed, never a concurrent writer's."""
    if not target.parent.is_dir():
        return
    # (".bak": the backups an older docgen made)
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
    import tempfile  # noqa: PLC0415  # only a write needs it: `docgen check` never imports it

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
