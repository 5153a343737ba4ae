"""Run a synthetic Markdown page through the console Sybil, in this process (`run_page`) or in a child pytest
where the process itself is the point (`run_child`, `start_page`: signals, two sessions at once, the plugin's
collection); read per-block outcomes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CONFTEST = textwrap.dedent(
    """
    import json
    from pathlib import Path
    from docgen.console.pytest_plugin import console_session, docs_collector

    HERE = Path(__file__).resolve().parent
    pytest_collect_file = docs_collector(anchor=Path(__file__), root=HERE, pages=lambda: sorted(HERE.glob("*.md")))

    def pytest_runtest_logreport(report):
        if report.when == "call" or report.outcome != "passed":
            key = report.nodeid if report.when != "teardown" else report.nodeid + "@teardown"
            message = report.longrepr[2] if report.skipped else report.longreprtext
            with open(HERE / "outcomes.jsonl", "a") as out:
                out.write(json.dumps({"id": key, "outcome": report.outcome, "message": message}) + "\\n")
    """
)


@dataclass
class Outcome:
    outcome: str        # passed, failed, skipped, error
    message: str


def prepare(workdir: Path, page: str, extra_pages: dict[str, str] | None = None) -> None:
    """A directory the child pytest collects: the conftest, page.md (plus other pages) and a git repo."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "conftest.py").write_text(CONFTEST)
    # the child's own configuration: without one, pytest takes the first it finds above the folder (a stray
    # pyproject.toml in /tmp once gave every child `-x`)
    (workdir / "pytest.ini").write_text("[pytest]\n")
    (workdir / "page.md").write_text(page)
    for name, text in (extra_pages or {}).items():
        (workdir / name).write_text(text)
    (workdir / "outcomes.jsonl").unlink(missing_ok=True)
    if not (workdir / ".git").exists():   # where=host copies the git worktree
        subprocess.run(["git", "init", "-q"], cwd=workdir, check=True)


def child_command(workdir: Path) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-c", str(workdir / "pytest.ini"),
            "--rootdir", str(workdir), str(workdir)]


def session_env(runner_image: str, **extra: str) -> tuple[str, dict[str, str]]:
    """A fresh session id, and the environment that runs a page's console blocks in `runner_image` under it."""
    session_id = f"docgen-test-{uuid.uuid4().hex}"
    return session_id, {"NMP_IMAGE": runner_image, "DOCGEN_CONSOLE_SESSION_ID": session_id, **extra}


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """This environment without the console's and the image's settings. The child pytest loads only what its conftest imports (the console plugin): the installed plugins it would load
    by itself (xdist, hypothesis, timeout) take no part in a page's run and cost 0.8 CPU-s per child, of
    about 1.2."""
    out = {k: v for k, v in os.environ.items() if not k.startswith(("DOCGEN_CONSOLE", "NMP_"))}
    out["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    out.update(env or {})
    return out


def read_outcomes(workdir: Path) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    results = workdir / "outcomes.jsonl"
    for line in results.read_text().splitlines() if results.exists() else []:
        entry = json.loads(line)
        outcomes[entry["id"]] = Outcome(entry["outcome"], entry["message"])
    return outcomes


def run_child(workdir: Path, page: str, env: dict[str, str] | None = None,
              extra_pages: dict[str, str] | None = None) -> tuple[dict[str, Outcome], subprocess.CompletedProcess[str]]:
    """Outcomes keyed by node id (`page.md::<heading>::<n>`; teardown problems get `@teardown`)."""
    prepare(workdir, page, extra_pages)
    proc = subprocess.run(child_command(workdir), cwd=workdir, env=child_env(env), capture_output=True, text=True, timeout=600)
    return read_outcomes(workdir), proc


def start_page(workdir: Path, page: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The same child pytest, not waited for (read its outcomes with read_outcomes after it ends)."""
    prepare(workdir, page)
    return subprocess.Popen(child_command(workdir), cwd=workdir, env=child_env(env),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def at_once(run: Callable[..., object], *arguments: Iterable) -> list:
    """`run` over the zipped `arguments`, every call in a thread of its own at the same time (sessions that
    wait on the engine and on child processes, not on this process's CPU); their results, or the first
    failure once all have ended."""
    calls = list(zip(*arguments))
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(run, *args) for args in calls]
    return [f.result() for f in futures]


def wait_for_container(docker_client, session_id: str, child: subprocess.Popen, seconds: float = 120):
    """The first container of a session started in a child process, once the engine lists it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = docker_client.containers.list(all=True, filters={"label": f"org.nmp-rl-base.docs-session={session_id}"})
        if found:
            return found[0]
        assert child.poll() is None, child.stdout.read() if child.stdout else "the session ended"
        time.sleep(0.02)   # a list call: the SIGINT sweep aims at the moment the container appears
    raise AssertionError("the docs session never started its container")


def wait_until_started(container, child: subprocess.Popen, seconds: float = 120) -> None:
    """Once the page's first block has touched /tmp/ready in its container. One exec waits inside the container
    for the file (its appearance is the event); it is asked again only while the engine cannot run it yet (the
    container is being created or started)."""
    import docker

    deadline = time.monotonic() + seconds
    wait = ["timeout", str(int(seconds)), "sh", "-c", "until [ -e /tmp/ready ]; do sleep 0.02; done"]
    while True:
        try:
            if container.exec_run(wait).exit_code == 0:
                return
        except docker.errors.APIError:   # not running yet
            pass
        assert child.poll() is None, child.stdout.read() if child.stdout else "the session ended"
        assert time.monotonic() < deadline, "the page's first block never started"
        time.sleep(0.02)


@dataclass
class Run:
    stdout: str         # every block's message, as the child's output would show them
    returncode: int     # 1 when a block failed, as pytest's


def run_page(workdir: Path, page: str, env: dict[str, str] | None = None,
             extra_pages: dict[str, str] | None = None) -> tuple[dict[str, Outcome], Run]:
    """The pages' blocks through the console's own Sybil and one ConsoleSession in this process, with `env`
    set for the run: what a child pytest would report, without a child interpreter's start (about 1.2 CPU-s
    each). Pages run in name order; each page's shells end after its last block, the session at the end."""
    import pytest
    from sybil.example import SybilFailure

    from docgen.console.evaluator import ConsoleSession, ConsoleSybil

    prepare(workdir, page, extra_pages)
    saved, wanted = dict(os.environ), child_env(env)
    os.environ.clear()
    os.environ.update(wanted)
    outcomes: dict[str, Outcome] = {}
    try:
        session = ConsoleSession(repo=workdir)
        sybil = ConsoleSybil(workdir)
        try:
            for path in sorted(workdir.glob("*.md")):
                document = sybil.parse(path)
                document.namespace["console_session"] = session
                for example in document.examples():
                    key = f"{path.name}::{example.parsed.test_id}"
                    try:
                        example.evaluate()
                        outcomes[key] = Outcome("passed", "")
                    except SybilFailure as failure:
                        outcomes[key] = Outcome("failed", str(failure))
                    except pytest.skip.Exception as skipped:
                        outcomes[key] = Outcome("skipped", str(skipped))
                session.close_document(str(path))
        finally:
            leftovers = session.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert not leftovers, f"containers of this docs session still exist after removal: {leftovers}"
    failed = any(o.outcome == "failed" for o in outcomes.values())
    return outcomes, Run("\n".join(o.message for o in outcomes.values()), int(failed))
