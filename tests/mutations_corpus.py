"""Issue 27, part 7: cases written before the design, half of them set aside by a fixed rule.

THE HOLD-OUT RULE (fixed before any case was written; it is not to be changed afterwards):

    Within each kind (mutations; planted sentences), sort the cases by (date, id), both as strings.
    Number them from 1 in that order. Odd positions (1st, 3rd, 5th, ...) are the development set;
    even positions (2nd, 4th, 6th, ...) are held out.

`split` below is the rule as code; the dev and held-out modules are its output, written out once from the
full list of cases and checked against it by `tests/test_generalise.py`, so a case cannot change sides
without the test saying so.
A history case's date is the upstream commit's date (YYYY-MM-DD); a maintainer edit's date is an ordinal
"m-NNN" in the order the edits were written, and planted sentences are dated "p-NNN" the same way.

The held-out half is run once, before and after the design; whoever builds the design does not read it.
"""

from __future__ import annotations

import importlib
import re
import shutil
from pathlib import Path
from typing import Callable, NamedTuple, Sequence, TypeVar

from tests.test_mutations import (DOCKERFILE, REPO, SNAPSHOT, _VALUE_MARKERS, copy_repo, edit, edits,
                                  pages_text, run, snapshot_json)

T = TypeVar("T")


def split(cases: Sequence[T]) -> tuple[list[T], list[T]]:
    """(development, held out) by the rule above; a case is anything with `date` and `id` attributes."""
    ordered = sorted(cases, key=lambda c: (c.date, c.id))
    return ordered[0::2], ordered[1::2]


# ------------------------------------------------------------------------------------------------ the cases

BAKE = "docker-bake.hcl"


class Exclusion(NamedTuple):
    """An occurrence of an `old` string that is not the fact the case changes: the text around it (which
    contains the old string) is taken out of what is searched."""
    within: str
    reason: str


class Case(NamedTuple):
    id: str
    date: str                     # upstream commit date (YYYY-MM-DD), or "m-NNN" for a maintainer edit
    source: str                   # upstream commit sha, or "maintainer"
    apply: Callable[[Path], None]
    old: tuple[str, ...]          # must appear nowhere a reader looks after `docgen write`, unless `check` fails
    expect: str                   # in words: the finding or re-render a careful design produces
    exclude: tuple[Exclusion, ...] = ()
    # a maintainer's earlier page edit, made and written (`docgen write`) before `apply` changes a fact under it
    setup: Callable[[Path], None] | None = None


class Planted(NamedTuple):
    """A false hand-written sentence: `old` (exact, once in `file`) is replaced by `new`; the false text
    `false` then sits on line `line` of `file`, in hand-written prose."""
    id: str
    date: str                     # "p-NNN", in the order the sentences were written
    file: str
    line: int
    old: str
    new: str
    false: str
    why: str                      # what the sentence gets wrong, against the current inputs


def copy_case_repo(into: Path) -> Path:
    """What docgen reads (tests/test_mutations.copy_repo: the quoted bake file and scripts included)."""
    return copy_repo(into)


def reader_text(root: Path, exclude: tuple[Exclusion, ...] = ()) -> str:
    """Everything a reader looks at: every owned page (README.md, docs/**/*.md) with its hand-written prose,
    generated blocks, console transcripts and the Dockerfile comments the pages copy, also as a reader sees
    it without the inline value markers. The facts record is not read by anyone."""
    pages = pages_text(root)
    text = pages + "\n" + _VALUE_MARKERS.sub("", pages)
    for ex in exclude:
        text = text.replace(ex.within, "")
    return text


def remaining(case: Case, root: Path) -> list[str]:
    text = reader_text(root, case.exclude)
    return [old for old in case.old if old in text]


def plant(p: Planted) -> Callable[[Path], int]:
    """Plant the sentence; the line it landed on (the pages move under the cases: the line recorded with the
    case is where it landed when the case was written, the nearest occurrence to it is the one planted)."""
    def apply(root: Path) -> int:
        edit(p.file, p.old, p.new)(root)
        lines = (root / p.file).read_text().splitlines()
        found = [i + 1 for i, line in enumerate(lines) if p.false in line]
        assert found, f"{p.id}: {p.false!r} is not in {p.file} after planting: update the case"
        return min(found, key=lambda n: abs(n - p.line))
    return apply


# ---------------------------------------------------------------------------- snapshot edits (NeMo-RL side)

def actor(data: dict, fqn: str) -> dict:
    [entry] = [a for a in data["registry"]["actors"] if a["actor"] == fqn]
    return entry


def move_actor(fqn: str, member: str) -> Callable[[dict], None]:
    """The registry line of `fqn` names another PY_EXECUTABLES member."""
    def change(data: dict) -> None:
        entry = actor(data, fqn)
        entry["member"], entry["command"] = member, data["registry"]["executables"][member]
    return change


def drop_actors(*fqns: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for fqn in fqns:
            actor(data, fqn)
        data["registry"]["actors"] = [a for a in data["registry"]["actors"] if a["actor"] not in fqns]
    return change


def rename_actor(old: str, new: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        actor(data, old)["actor"] = new
    return change


def replace_package(old_key: str, new_key: str, **fields) -> Callable[[dict], None]:
    """A lock change of one package wherever it is installed: key, version, source, build."""
    def change(data: dict) -> None:
        lock = data["lock"]
        lock["packages"][new_key] = {**lock["packages"].pop(old_key), **fields}
        for name, members in lock["install_sets"].items():
            if old_key in members:
                lock["install_sets"][name] = sorted(set(members) - {old_key} | {new_key})
        shared = []
        for entry in lock["shared_builds"]:
            if entry["package"] == old_key:
                if not lock["packages"][new_key]["source_built"]:
                    continue
                entry = {**entry, "package": new_key}
            shared.append(entry)
        lock["shared_builds"] = shared
    return change


def install_in(key: str, *sets: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for name in sets:
            data["lock"]["install_sets"][name] = sorted(set(data["lock"]["install_sets"][name]) | {key})
    return change


def requirement(extra: str, req: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["extras"][extra].append(req)
    return change


def all_of(*changes: Callable[[dict], None]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for step in changes:
            step(data)
    return change


def drop_extra(name: str) -> Callable[[dict], None]:
    """An extra leaves pyproject: its requirements, its install sets, its conflicts, its shared builds."""
    def change(data: dict) -> None:
        del data["project"]["extras"][name]
        lock = data["lock"]
        norm = name.replace("_", "-")
        for key in [k for k in lock["install_sets"] if norm in k.split("+")]:
            del lock["install_sets"][key]
        data["project"]["conflicts"] = [c for c in data["project"]["conflicts"]
                                        if all(item["extra"] != name for item in c)]
        shared = []
        for entry in lock["shared_builds"]:
            extras = [e for e in entry["extras"] if e != name]
            if len(extras) >= 2:
                shared.append({**entry, "extras": extras})
        lock["shared_builds"] = shared
    return change


def drop_member(member: str) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        reg = data["registry"]
        del reg["executables"][member]
        reg["actors"] = [a for a in reg["actors"] if a["member"] != member]
    return change


def rename_extra(old: str, new: str, member_old: str, member_new: str) -> Callable[[dict], None]:
    """An extra and its PY_EXECUTABLES member renamed together (as penguin became nemo_gym)."""
    def change(data: dict) -> None:
        project, lock, reg = data["project"], data["lock"], data["registry"]
        project["extras"][new] = project["extras"].pop(old)
        norm_old, norm_new = old.replace("_", "-"), new.replace("_", "-")
        for key in [k for k in lock["install_sets"] if norm_old in k.split("+")]:
            parts = sorted(norm_new if p == norm_old else p for p in key.split("+"))
            lock["install_sets"]["+".join(parts)] = lock["install_sets"].pop(key)
        for entry in lock["shared_builds"]:
            entry["extras"] = [new if e == old else e for e in entry["extras"]]
        for c in project["conflicts"]:
            for item in c:
                if item["extra"] == old:
                    item["extra"] = new
        command = reg["executables"].pop(member_old).replace(f"--extra {old}", f"--extra {new}")
        reg["executables"][member_new] = command
        for a in reg["actors"]:
            if a["member"] == member_old:
                a["member"], a["command"] = member_new, command
            if a["command_system"] != "sys.executable":
                a["command_system"] = a["command_system"].replace(f"--extra {old}", f"--extra {new}")
    return change


def project_key(key: str, value) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"][key] = value
    return change


def keep_conflicts(keep: Callable[[list], bool]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["project"]["conflicts"] = [c for c in data["project"]["conflicts"] if keep(c)]
    return change


def snap(*changes: Callable[[dict], None]) -> Callable[[Path], None]:
    return snapshot_json(all_of(*changes))


def new_file(rel: str, text: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / rel
        assert not path.exists(), rel
        path.write_text(text)
    return apply


def check_ids_unique(cases) -> None:
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


# ------------------------------------------------------------------- running a case (bench/generalise.py)
_NAMES_FILE = re.compile(r"(?:^|\s)[\w./-]+\.(?:md|json|toml|hcl|nmp-rl-base)(?::\d+)?\b|Dockerfile", re.M)
_COVERAGE = re.compile(r"claims coverage (\d+(?:\.\d+)?)%")


class MutationResult(NamedTuple):
    id: str
    outcome: str
    first_check: int | None
    write: int | None
    last_check: int | None
    left: tuple[str, ...]
    note: str


class PlantedResult(NamedTuple):
    id: str
    at_line: bool
    check: int | None
    coverage: float | None
    note: str
    rules: tuple[str, ...] = ()   # the rules that fired at the planted line


def load(kind: str, which: str) -> list:
    module = importlib.import_module(f"tests.{'mutations' if kind == 'mutations' else 'planted'}_{which}")
    return list(module.CASES if kind == "mutations" else module.PLANTED)


def _first_line(out: str) -> str:
    lines = [line for line in out.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def prepare(case: Case, scratch: Path) -> tuple[Path, str]:
    """The scratch copy as it stands before the fact changes: the maintainer's earlier page edit (if any)
    made and written. Returns the copy and what went wrong preparing it ("" when nothing)."""
    root = copy_case_repo(scratch / case.id)
    if case.setup is not None:
        case.setup(root)
        code, out = run("write", "--root", str(root))
        if code != 0:
            return root, f"write after the setup exited {code}: {_first_line(out)}"
    return root, ""


def vacuous(case: Case, root: Path) -> list[str]:
    text = reader_text(root, case.exclude)
    return [old for old in case.old if old not in text]


def run_mutation(case: Case, scratch: Path) -> MutationResult:
    try:
        root, problem = prepare(case, scratch)
    except Exception as exc:
        return MutationResult(case.id, "crash", None, None, None, (), f"setup: {type(exc).__name__}: {exc}"[:200])
    if problem:
        return MutationResult(case.id, "crash", None, None, None, (), problem)
    missing = vacuous(case, root)
    if missing:
        return MutationResult(case.id, "vacuous", None, None, None, tuple(missing), "not in the pages before the change")
    case.apply(root)
    codes: list[int | None] = [None, None, None]
    try:
        for i, command in enumerate(("check", "write", "check")):
            code, out = run(command, "--root", str(root))
            codes[i] = code
            if code == 2:
                outcome = "loud" if _NAMES_FILE.search(out) else "crash"
                return MutationResult(case.id, outcome, *codes, (), f"{command}: {_first_line(out)}")
    except Exception as exc:  # a crash is a result of the run, not of this bench
        return MutationResult(case.id, "crash", *codes, (), f"{type(exc).__name__}: {exc}"[:200])
    left = tuple(remaining(case, root))
    first, _, last = codes
    if last == 0 and left:
        outcome = "slip"
    elif first != 0:
        outcome = "caught"
    else:
        outcome = "unflagged"
    return MutationResult(case.id, outcome, *codes, left, "")


def coverage_of(out: str) -> float | None:
    match = _COVERAGE.search(out)
    return float(match.group(1)) if match else None


def run_planted(p: Planted, scratch: Path) -> PlantedResult:
    root = copy_case_repo(scratch / p.id)
    line = plant(p)(root)
    try:
        code, out = run("--verbose", "check", "--root", str(root))
    except Exception as exc:
        return PlantedResult(p.id, False, None, None, f"{type(exc).__name__}: {exc}"[:200])
    rules = tuple(re.findall(rf"(?m)^{re.escape(p.file)}:{line}: \[([\w-]+)\]", out))
    return PlantedResult(p.id, code == 1 and bool(rules), code, coverage_of(out), "", rules)


def baseline_coverage(scratch: Path) -> float | None:
    root = copy_case_repo(scratch / "unplanted")
    return coverage_of(run("--verbose", "check", "--root", str(root))[1])

# re-exported for the case modules: the edit helpers come from tests/test_mutations.py
__all__ = ["BAKE", "DOCKERFILE", "REPO", "SNAPSHOT", "Case", "Exclusion", "Planted", "actor", "all_of",
           "check_ids_unique", "copy_case_repo", "drop_actors", "drop_extra", "drop_member", "edit", "edits",
           "install_in", "keep_conflicts", "move_actor", "new_file", "plant", "project_key", "reader_text",
           "remaining", "rename_actor", "run_mutation", "run_planted", "baseline_coverage", "load", "rename_extra", "replace_package", "requirement", "snap", "split"]
