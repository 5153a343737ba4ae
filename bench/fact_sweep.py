"""Every fact the repository's own files state, changed one at a time: does a page still show the old value?

    .venv/bin/python bench/fact_sweep.py [--kind arg,env,quoted,...] [--show slip]
    .venv/bin/python bench/fact_sweep.py --snapshot [--show slip]

No case list: the facts come from the fact base (`docgen.model.facts.fact_base`), so this census covers kinds of
change nobody wrote a case for. For each fact whose origin is a line of the Dockerfile or of a quoted file (the
bake file, the scripts), and whose value is written on that line and shown somewhere a reader looks (the pages
as `tests/mutations_corpus.reader_text` searches them), the value is changed on that line in a scratch copy
(its last digit moved, or its last letter replaced), then `check`, `write`, `check` run in-process:

  shared     after the change another fact still holds the old value (the pages may show it for that fact)
  slip       the last `check` exits 0 and the old value is shown as often as before the change
  partial    the last `check` exits 0 and the old value is shown less often, but still (another fact may share it)
  caught     the first `check` failed and, after `write`, the old value is gone or `check` still fails
  unflagged  the first `check` passed, the old value is gone after `write` (a reader of unwritten pages saw it)
  loud       docgen exited 2 naming a file (the change made the input invalid, or inconsistent beyond rendering)

`--snapshot` does the same for NeMo-RL's side: every string of the committed snapshot that the pages show as a
word (a version, an extra, an actor, a package name) is changed wherever the snapshot holds it, as a new lock
or registry would change it; a change the snapshot's own rules refuse is `loud`.

Prints one line per fact and a tally per kind and outcome.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.mutations_corpus import copy_case_repo, reader_text  # noqa: E402
from tests.test_mutations import SNAPSHOT, run  # noqa: E402


def changed(value: str) -> str:
    """A value of the same shape that does not contain the old one: its last digit moved by one, else the last
    letter of its last word replaced."""
    digits = [m for m in re.finditer(r"\d", value)]
    if digits:
        at = digits[-1].start()
        return value[:at] + str((int(value[at]) + 1) % 10) + value[at + 1:]
    words = [m for m in re.finditer(r"[A-Za-z]+", value)]
    if words:
        at = words[-1].end() - 1
        return value[:at] + ("z" if value[at] == "q" else "q") + value[at + 1:]
    return "q" + value


def candidates(root: Path, kinds: set[str] | None) -> list:
    from docgen.check.pipeline import prepare
    from docgen.model.facts import fact_base
    from docgen.project import find_project
    project = find_project(root)
    model = prepare(project, render=False).model
    own = {project.display(project.dockerfile), *(project.display(q) for q in project.quoted)}
    shown = reader_text(root)
    out, seen = [], set()
    for f in fact_base(model).facts:
        path, _, line = f.origin.rpartition(":")
        if path not in own or not line.isdigit() or (kinds and f.kind not in kinds):
            continue
        for value in f.value.split(" | "):
            lines = (root / path).read_text().splitlines()
            number = int(line)
            if len(value) < 2 or number > len(lines) or value not in lines[number - 1] or value not in shown:
                continue
            if (path, number, value) not in seen:
                seen.add((path, number, value))
                out.append((f.kind, f.subject, path, number, value))
    return out


def values_of(root: Path) -> set[str]:
    from docgen.check.pipeline import prepare
    from docgen.model.facts import fact_base
    from docgen.project import find_project
    return {v for f in fact_base(prepare(find_project(root), render=False).model).facts for v in f.value.split(" | ")}


def _strings(data, where: str = ""):
    if isinstance(data, dict):
        for key, item in data.items():
            yield from _strings(item, f"{where}/{key}")
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _strings(item, f"{where}/{i}")
    elif isinstance(data, str):
        yield where, data


def _replaced(data, old: str, new: str):
    if isinstance(data, dict):
        return {k: _replaced(v, old, new) for k, v in data.items()}
    if isinstance(data, list):
        return [_replaced(v, old, new) for v in data]
    return new if data == old else data


def snapshot_candidates(root: Path) -> list:
    """(section, first place, "snapshot", 0, value) for each distinct string of the snapshot the pages show as a
    whole word."""
    data = json.loads((root / SNAPSHOT).read_text())
    shown = reader_text(root)
    out, seen = [], set()
    for where, value in _strings({k: v for k, v in data.items() if k != "provenance"}):
        if value in seen or len(value) < 3:
            continue
        seen.add(value)
        if re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-]|\.\w)", shown):
            out.append(("snapshot:" + where.split("/")[1], where, SNAPSHOT, 0, value))
    return out


def sweep_one(case: tuple, scratch: Path, n: int) -> tuple[str, str]:
    kind, subject, path, number, value = case
    root = copy_case_repo(scratch / f"c{n}")
    before = reader_text(root).count(value)
    target = root / path
    if number == 0:   # a snapshot string, wherever the snapshot holds it
        from docgen.snapshot.build import dump_snapshot
        target.write_text(dump_snapshot(_replaced(json.loads(target.read_text()), value, changed(value))))
    else:
        lines = target.read_text().splitlines(keepends=True)
        lines[number - 1] = lines[number - 1].replace(value, changed(value), 1)
        target.write_text("".join(lines))
    codes = []
    for command in ("check", "write", "check"):
        code, out = run(command, "--root", str(root))
        codes.append(code)
        if code == 2:
            return "loud", out.strip().splitlines()[0][:160] if out.strip() else ""
    after = reader_text(root).count(value)
    if codes[2] == 0 and after and value in values_of(root):
        return "shared", f"shown {before} -> {after} times"
    if codes[2] == 0 and after:
        return ("slip" if after >= before else "partial"), f"shown {before} -> {after} times"
    return ("caught" if codes[0] != 0 else "unflagged"), f"check/write/check={codes}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", default="", help="comma-separated fact kinds (default: all)")
    parser.add_argument("--snapshot", action="store_true", help="change the snapshot's strings instead")
    parser.add_argument("--show", default="", help="comma-separated outcomes to print per fact (default: all)")
    args = parser.parse_args()
    kinds = set(args.kind.split(",")) if args.kind else None
    show = set(args.show.split(",")) if args.show else None
    started = time.perf_counter()
    tally: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="fact-sweep-") as tmp:
        scratch = Path(tmp)
        base = copy_case_repo(scratch / "base")
        cases = snapshot_candidates(base) if args.snapshot else candidates(base, kinds)
        for n, case in enumerate(cases):
            outcome, note = sweep_one(case, scratch, n)
            tally[(case[0], outcome)] += 1
            if show is None or outcome in show:
                kind, subject, path, number, value = case
                print(f"{outcome:9} {kind}:{subject} {path}:{number} {value!r} ({note})", flush=True)
    by_kind: dict[str, Counter] = {}
    for (kind, outcome), count in tally.items():
        by_kind.setdefault(kind, Counter())[outcome] = count
    for kind, counts in sorted(by_kind.items()):
        print(f"{kind:10} " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    total = Counter()
    for counts in by_kind.values():
        total.update(counts)
    print(f"total {sum(total.values())} facts: " + ", ".join(f"{v} {k}" for k, v in sorted(total.items()))
          + f" ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
