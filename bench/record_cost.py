"""What `Record` (docgen's own base for record types, now retired) saved in a `docgen check` against
`typing.NamedTuple`, measured in one process.

    .venv/bin/python bench/record_cost.py [--ref REF] [--root DIR] [--rounds 200]

Both build the same class (a `collections.namedtuple` with the body's methods and annotations); they
differ only in the work done as each class is created, so that is what is timed. The bench exports the
docgen package of REF (default: the last commit that still had `Record`, found with `git log -S`) and,
with that package, runs `docgen check` once with class creation watched, which gives every record class
the check creates and its class body. It then creates each of those classes again both ways, `--rounds`
times, and keeps the fastest time of each class and way (the min of N: the least disturbed by other
work on the machine). The saving per check is the sum over the classes of the difference; it is set
against the same check's in-process time (min of N) for scale. `typing` itself costs nothing extra: the
check imports it anyway (tomllib does)."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import typing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import report  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _watch_record_classes() -> list[tuple[str, dict]]:
    """Install a hook on Record's metaclass before docgen's modules load; the list fills as they do."""
    from docgen import records

    created: list[tuple[str, dict]] = []
    make = records._RecordType.__new__

    def watched(mcls, name, bases, namespace):
        if bases:
            created.append((name, dict(namespace)))
        return make(mcls, name, bases, namespace)

    records._RecordType.__new__ = watched
    return created


def _fastest(make, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        make()
        best = min(best, time.perf_counter() - start)
    return best


def _check_seconds(root: Path, rounds: int) -> float:
    from docgen.cli import main

    def check() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(["check", "--root", str(root), "--no-diff"])
        if code != 0:
            raise SystemExit(f"docgen check exited {code} on {root}; the bench needs a clean tree")

    return _fastest(check, rounds)


def _last_commit_with_record() -> str:
    """The parent of the newest commit that added or removed Record's metaclass (its removal)."""
    found = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%H", "-S", "class _RecordType",
                            "--", "docgen/records.py"], check=True, capture_output=True, text=True).stdout.strip()
    if not found:
        raise SystemExit("no commit touched Record's metaclass; give --ref")
    show = subprocess.run(["git", "-C", str(REPO), "show", f"{found}:docgen/records.py"], capture_output=True, text=True)
    return found if "class _RecordType" in show.stdout else f"{found}^"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default=None, help="a commit whose docgen has Record (default: the last one)")
    parser.add_argument("--root", type=Path, default=REPO)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.inner:   # measure with REF's docgen package, in a process of its own
        ref = args.ref or _last_commit_with_record()
        tar = subprocess.run(["git", "-C", str(REPO), "archive", ref, "docgen"], check=True,
                             capture_output=True).stdout
        with tempfile.TemporaryDirectory() as tmp:
            with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
                archive.extractall(tmp, filter="data")
            env = dict(os.environ, PYTHONPATH=tmp)
            subprocess.run([sys.executable, __file__, "--inner", "--root", str(args.root),
                            "--rounds", str(args.rounds)], check=True, env=env, cwd=tmp)
        return

    created = _watch_record_classes()
    from docgen.records import Record

    check_s = _check_seconds(args.root, max(5, args.rounds // 20))   # the first run loads every module
    created = list(created)   # what the check made (the hook goes on recording the classes made below)
    if not created:
        raise SystemExit("no record class was created: docgen no longer uses Record")

    def body(namespace: dict):
        return lambda ns: ns.update(namespace)

    record_s = named_s = 0.0
    for name, namespace in created:
        record_s += _fastest(lambda: types.new_class(name, (Record,), exec_body=body(namespace)), args.rounds)
        named_s += _fastest(lambda: types.new_class(name, (typing.NamedTuple,), exec_body=body(namespace)),
                            args.rounds)
    saved = named_s - record_s
    import docgen
    report("record_cost", {
        "docgen_package": docgen.__file__,
        "record_classes_per_check": len(created),
        "class_creation_ms": {"Record": record_s * 1e3, "typing.NamedTuple": named_s * 1e3},
        "saved_per_check_ms": saved * 1e3,
        "check_in_process_ms": check_s * 1e3,
        "saved_share_of_check": saved / check_s,
        "rounds": args.rounds,
    })


if __name__ == "__main__":
    main()
