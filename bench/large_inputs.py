"""Large inputs, before and after: each case must finish in under 2 s or exit 2 at a stated size cap.

    .venv/bin/python bench/large_inputs.py [--baseline REF] [--timeout 60] [--only NAME] [--json]

"before" runs the docgen package of git REF (default: bbed632, the re-layout this work started from),
extracted with `git archive`; "after" runs this checkout. Both run as whole processes with the same
interpreter, bytecode cache and inputs (bench/timing.py's environment). A run over --timeout is stopped and
reported as such. Cases:

- dockerfile-arg-1mb / -10mb: an `ARG` whose default value is 1 MB / 10 MB  (`docgen inventory`)
- dockerfile-backtick-2mb:   a 2 MB `RUN` line of backtick runs
- page-backtick-2mb:          a 2 MB prose line of unmatched backtick runs   (`docgen check PAGE`)
- registry-5000/50000-actors:  a snapshot whose registry holds 5,000 (the cap) / 50,000 actors  (`docgen check`)
- console-output-31mb:        a console command printing 31 MB, read and matched by the runner
- page-15mb/31mb-block:       a page with 15 MB / 31 MB of stale text inside a generated block (the
                              second is over docgen.io.MAX_INPUT_BYTES, 16 MiB)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.timing import bench_env, report  # noqa: E402

LIMIT_S = 2.0
RUNNER = "import sys; sys.path.insert(0, sys.argv.pop(1)); from docgen.cli import main; sys.exit(main(sys.argv[1:]))"
CONSOLE = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
try:
    from docgen.console.shell import HostShell
except ImportError:   # a tree from before the shell started its own process
    from docgen.console.shell import PersistentShell, HostProcessTransport
    HostShell = lambda cwd, env: PersistentShell(HostProcessTransport(cwd, env))
from docgen.console.parser import output_matches
shell = HostShell(os.getcwd(), {"PATH": os.environ["PATH"], "LC_ALL": "C"})
result = shell.run("head -c 32505856 /dev/zero | tr '\\\\0' x | fold -w 99", 600)
assert len(result.output) > 300000, len(result.output)
assert output_matches(["x" * 99, "..."], result.output)
assert not output_matches(["x" * 99, "...", "y"], result.output)
shell.close()
"""


def _fixture_dockerfile() -> str:
    return (REPO / "tests/fixtures/dockerfiles/eight-filters.Dockerfile").read_text()


def _project_dir(work: Path) -> Path:
    """A folder docgen accepts as a project (an empty docgen.toml: every setting at its default)."""
    (work / "docgen.toml").write_text("")
    return work


def _copy_repo(dest: Path) -> Path:
    from docgen.console.shell import copy_worktree
    return copy_worktree(REPO, dest)


def case_dockerfile_arg(work: Path, size: int) -> list[str]:
    text = _fixture_dockerfile()
    head, sep, rest = text.partition("\nFROM ")
    path = work / "Dockerfile"
    path.write_text(f"{head}\nARG HUGE={'a' * size}{sep}{rest}")
    return ["inventory", "--dockerfile", str(path), "--snapshot", str(REPO / "snapshot/nemo-rl.json")]


def case_dockerfile_backtick(work: Path) -> list[str]:
    text = _fixture_dockerfile()
    path = work / "Dockerfile"
    runs = " ".join("`" * i for i in range(1, 2000))   # 2 MB of backtick runs on one RUN line
    path.write_text(f"{text}RUN echo {runs}\n")
    return ["inventory", "--dockerfile", str(path), "--snapshot", str(REPO / "snapshot/nemo-rl.json")]


def _scratch_project(work: Path, page: str) -> Path:
    project = work / "proj"
    (project / "snapshot").mkdir(parents=True)
    shutil.copy(REPO / "Dockerfile.nmp-rl-base", project)
    shutil.copy(REPO / "snapshot/nemo-rl.json", project / "snapshot")
    (project / "docgen.toml").write_text('pages = ["page.md"]\n')
    (project / "page.md").write_text(page)
    return project


def case_page_backtick(work: Path) -> tuple[list[str], Path]:
    line = " ".join("`" * i for i in range(1, 2000))   # 2 MB of backtick runs, none closed: the worst case
    project = _scratch_project(work, f"# Page\n\n{line}\n\n<!-- docgen:begin filter-table -->\n<!-- docgen:end filter-table -->\n")
    return ["check", "page.md"], project


def case_page_block(work: Path, size: int) -> tuple[list[str], Path]:
    body = ("| stale | row |\n" * (size // 16))
    project = _scratch_project(work, f"# Page\n\n<!-- docgen:begin filter-table -->\n{body}<!-- docgen:end filter-table -->\n")
    return ["check", "page.md"], project


def case_registry_actors(work: Path, count: int) -> tuple[list[str], Path]:
    repo = _copy_repo(work / "repo")
    path = repo / "snapshot/nemo-rl.json"
    data = json.loads(path.read_text())
    actors = data["registry"]["actors"]
    template = actors
    data["registry"]["actors"] = [
        {**template[i % len(template)], "actor": f"{template[i % len(template)]['actor']}{i}"} for i in range(count)]
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return ["check"], repo


def run_one(code: Path, args: list[str], cwd: Path, timeout: float, script: str = RUNNER) -> dict:
    cmd = [sys.executable, "-c", script, str(code), *args]
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=bench_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "over_timeout_s": timeout}
    seconds = time.perf_counter() - start
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return {"seconds": round(seconds, 3), "exit": done.returncode, "traceback": "Traceback" in done.stderr,
            "last_line": last[:160]}


def baseline_tree(ref: str, dest: Path) -> Path:
    data = subprocess.run(["git", "archive", ref, "docgen"], cwd=REPO, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="bbed632")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--only", action="append", default=None)
    parser.add_argument("--skip-before", action="store_true", help="measure this checkout only")
    args = parser.parse_args()

    cases = {
        "dockerfile-arg-1mb": lambda w: (case_dockerfile_arg(w, 2**20), _project_dir(w)),
        "dockerfile-arg-10mb": lambda w: (case_dockerfile_arg(w, 10 * 2**20), _project_dir(w)),
        "dockerfile-backtick-2mb": lambda w: (case_dockerfile_backtick(w), _project_dir(w)),
        "page-backtick-2mb": case_page_backtick,
        "page-15mb-block": lambda w: case_page_block(w, 15 * 2**20),     # under the cap
        "page-31mb-block": lambda w: case_page_block(w, 31 * 2**20),
        "registry-5000-actors": lambda w: case_registry_actors(w, 5_000),     # at the cap
        "registry-50000-actors": lambda w: case_registry_actors(w, 50_000),
        "console-output-31mb": lambda w: ([], w),
    }
    results = {}
    with tempfile.TemporaryDirectory(prefix="docgen-bench-large-") as tmp:
        before = None if args.skip_before else baseline_tree(args.baseline, Path(tmp) / "before")
        for name, make in cases.items():
            if args.only and name not in args.only:
                continue
            work = Path(tmp) / name
            work.mkdir()
            cmd, cwd = make(work)
            script = CONSOLE if name == "console-output-31mb" else RUNNER
            entry = {}
            if before is not None:
                entry["before"] = run_one(before, cmd, cwd, args.timeout, script)
            entry["after"] = run_one(REPO, cmd, cwd, args.timeout, script)
            after = entry["after"]
            # in time with a real answer, or refused as bad input at a stated cap
            entry["ok"] = bool(after.get("seconds") is not None and not after["traceback"]
                               and ((after["seconds"] < LIMIT_S and after["exit"] in (0, 1))
                                    or (after["exit"] == 2 and "cap of" in after["last_line"])))
            results[name] = entry
            print(f"{name}: {json.dumps(entry)}", file=sys.stderr, flush=True)
    report("large_inputs", {"baseline": args.baseline, "limit_s": LIMIT_S, "cases": results})
    return 0 if all(e["ok"] for e in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
