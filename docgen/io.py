"""Everything docgen reads from and writes to disk passes through here.

Reading: only regular files (a FIFO would hang, /dev/zero would grow without end) and only up to a stated
size cap; bytes that are not UTF-8 are bad input with their line. Writing: one all-or-nothing writer for
blocks, facts, snapshots and console updates. It refuses symlinks and paths outside the root, stages every
file next to its target, refuses to overwrite a file that changed on disk since docgen read it, and on any
failure puts back what it had already replaced. Every refusal is an InputError (exit 2) naming the path.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from docgen.errors import InputError

MAX_INPUT_BYTES = 16 * 2**20   # pages, Dockerfiles, snapshots, records: far above any real one
MAX_LOCK_BYTES = 64 * 2**20    # uv.lock of a large workspace (NeMo-RL's is under 1 MiB)


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
    return text if newline == "" else text.replace("\r\n", "\n").replace("\r", "\n")


def read_input(path: str | Path, what: str = "", *, newline: str | None = None,
               limit: int = MAX_INPUT_BYTES) -> str:
    """The text of an input file. Missing, unreadable, not a regular file, over the cap or not UTF-8: an
    InputError naming the file (and for a bad byte its line). `newline=None` turns CRLF and CR into LF as
    `open` does; `newline=""` keeps line endings as written."""
    return decode(path, read_bytes(path, what, limit=limit), what, newline=newline)


def read_json_object(path: str | Path, what: str = "") -> tuple[str, dict]:
    """An input file holding one JSON object: (its text, for finding lines later; the object)."""
    import json

    text = read_input(path, what)
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(path, 1, "not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
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


def read_toml(path: str | Path, what: str = "") -> tuple[str, dict]:
    """An input file in TOML: (its text, for finding lines later; the document)."""
    text = read_input(path, what)
    return text, parse_toml(path, text)


# ------------------------------------------------------------------------------------------------ writing

class Output(NamedTuple):
    """One file to write. `expected` is the exact bytes docgen read from it (None: it did not exist or was
    not read); the writer refuses to overwrite a file whose bytes differ from that by the time it writes."""
    path: Path
    text: str
    expected: bytes | None = None
    check_expected: bool = False


def _inside(root: Path, path: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


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


def write_files(root: str | Path, outputs: Iterable[Output]) -> list[Path]:
    """Write every output or none. Returns the paths replaced. Raises InputError (nothing changed on disk)."""
    root = Path(root)
    plan = [(out, _safe_target(root, out.path)) for out in outputs]
    for _, target in plan:
        _clear_orphans(target)
    staged: list[tuple[Path, str, Output]] = []
    replaced: list[tuple[Path, str | None]] = []   # (target, backup path or None when the target was new)
    current: Path | None = None                    # the target being worked on, for the error message
    try:
        for out, target in plan:
            current = target
            staged.append((target, _stage(target, out.text), out))
        for target, tmp, out in staged:
            if out.check_expected:
                current = target.read_bytes() if target.exists() else None
                if current != out.expected:
                    raise InputError(target, None, "changed on disk while docgen was writing; run docgen again")
        for target, tmp, out in staged:
            current = target
            backup = None
            if target.exists():
                backup = tmp + ".bak"
                os.link(target, backup)
            os.replace(tmp, target)
            replaced.append((target, backup))
    except BaseException as exc:
        for target, backup in reversed(replaced):
            try:
                if backup is None:
                    os.unlink(target)
                else:
                    os.replace(backup, target)
            except OSError:
                pass
        for _, tmp, _ in staged:
            for leftover in (tmp, tmp + ".bak"):
                try:
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


def _clear_orphans(target: Path) -> None:
    """Staged files and backups a killed `docgen write` left beside `target`: their names carry the writer's
    PID, so only those of writers that are gone are removed, never a concurrent writer's."""
    import re

    if not target.parent.is_dir():
        return
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)\.[^/]*\.docgen-tmp(\.bak)?$")
    for leftover in target.parent.iterdir():
        m = pattern.match(leftover.name)
        if m is None or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue                     # that writer still runs
        except ProcessLookupError:
            pass
        except PermissionError:
            continue                     # another user's live process
        try:
            leftover.unlink()
        except OSError:
            pass


def _stage(target: Path, text: str) -> str:
    """Write `text` to a hidden temporary file beside `target` (same file system, so the rename is atomic)."""
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".docgen-tmp")
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


def write_file(root: str | Path, path: str | Path, text: str) -> None:
    """One file, atomically, with the same refusals as `write_files`."""
    write_files(root, [Output(Path(path), text)])


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
