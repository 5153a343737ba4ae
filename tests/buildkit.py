"""BuildKit's own reading of Dockerfiles, for the tests that hold docgen's reader to it
(tests/image/test_buildkit_reader.py, tests/test_dockerfile_corpus.py).

A test module gathers every question its tests ask (a Dockerfile, `targets` or `outline`, the stage and the
build args) and `ask` answers them all with one `docker buildx bake --call=<call>,format=json` per kind of
call: each bake target is one question, and its answer is the record `docker buildx build --call=...` prints
for that Dockerfile alone. A CLI start costs the same whatever the number of targets; one build call per
question cost that start for each. A command-line `--call` overrides the targets' own, hence one bake per call.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from docgen.inputs.syntax import parse_syntax

# scripts/bootstrap installs and starts the Docker engine (scripts/docker-engine start) with buildx
SETUP = "set up with `bash scripts/bootstrap`"


def run(*command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def require_buildx() -> None:
    """Skip, saying what is missing, without a docker CLI, its buildx plugin or an engine answering."""
    if shutil.which("docker") is None:
        pytest.skip(f"docker CLI not on PATH; {SETUP}")
    version = run("docker", "buildx", "version", timeout=30)
    if version.returncode != 0:
        pytest.skip(f"`docker buildx version` failed ({(version.stderr or version.stdout).strip()[:200]}); {SETUP}")
    info = run("docker", "info", "--format", "{{.ServerVersion}}", timeout=30)
    if info.returncode != 0 or not info.stdout.strip():
        pytest.skip(f"no Docker engine answers `docker info`; {SETUP}")


def field(record: dict, name: str):
    """BuildKit's JSON keys changed case across versions ('Name' vs 'name'): look up case-insensitively."""
    return {key.lower(): value for key, value in record.items()}.get(name.lower())


def first_line(record: dict) -> int | None:
    """The line a target or ARG record starts at (its location's first range)."""
    ranges = field(field(record, "location") or {}, "ranges") or [{}]
    return field(field(ranges[0], "start") or {}, "line")


@dataclass(frozen=True)
class Question:
    call: str                                   # "targets" or "outline"
    dockerfile: Path                            # its folder is the build context
    target: str | None = None                   # the stage asked about (`--target`); None: the default one
    args: tuple[tuple[str, str], ...] = ()      # build args (`--build-arg NAME=VALUE`)


def bake_name(key: str) -> str:
    """A bake target's name (`[a-zA-Z0-9_-]+`) for a question's key: bake's error names it."""
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", key)


def offline(text: str) -> str:
    """`text` with its `# syntax=` parser directive (the line docgen's reader finds it on) made a plain comment:
    the directive makes BuildKit pull a frontend image, which this machine cannot. Every line stays where it
    is, and so does whatever comes before the `#` (a byte-order mark)."""
    line = parse_syntax(text, "Dockerfile").syntax_directive
    if line is None:
        return text
    lines = text.split("\n")
    lines[line - 1] = lines[line - 1].replace("#", "# (dropped for the offline cross-check)", 1)
    return "\n".join(lines)


def write_case(folder: Path, key: str, text: str) -> Path:
    """`text` as the Dockerfile of a folder of its own (a build context per case), named from `key`."""
    case = folder / bake_name(key)
    case.mkdir(parents=True, exist_ok=True)
    dockerfile = case / "Dockerfile"
    dockerfile.write_text(text, encoding="utf-8")
    return dockerfile


@dataclass(frozen=True)
class Answers:
    """BuildKit's answer to each question, by the question's key: `answers[key]`."""
    questions: Mapping[str, Question]
    records: Mapping[str, dict]

    def __getitem__(self, key: str) -> dict:
        return self.records[key]


def ask(questions: Mapping[str, Question], folder: Path, timeout: float = 600) -> Answers:
    """Every question answered: one bake per kind of call, its definition written into `folder`. A Dockerfile
    BuildKit rejects fails the lot, the message naming its question's key."""
    names = {bake_name(key): key for key in questions}
    assert len(names) == len(questions), f"two questions' keys give one bake target name: {sorted(questions)}"
    answers: dict[str, dict] = {}
    for call in sorted({q.call for q in questions.values()}):
        asked = {name: questions[key] for name, key in names.items() if questions[key].call == call}
        definition = {"target": {name: {
            "context": str(q.dockerfile.parent), "dockerfile": str(q.dockerfile),
            **({"target": q.target} if q.target else {}), **({"args": dict(q.args)} if q.args else {}),
        } for name, q in asked.items()}}
        bake_file = folder / f"bake-{call}.json"
        bake_file.write_text(json.dumps(definition, indent=1), encoding="utf-8")
        # bake reads a context outside its working directory only when allowed to
        allow = [f"--allow=fs.read={context}" for context in sorted({str(q.dockerfile.parent) for q in asked.values()})]
        result = subprocess.run(
            ["docker", "buildx", "bake", "-f", str(bake_file), *allow, "--progress=plain",
             f"--call={call},format=json", *asked],
            cwd=folder, capture_output=True, text=True, timeout=timeout, check=False)
        failed = re.findall(r"^ERROR: target ([a-zA-Z0-9_-]+):", result.stderr, re.MULTILINE)
        assert result.returncode == 0, (
            f"bake --call={call} ({bake_file}) failed"
            + "".join(f"; target {name} is the question {names[name]!r} ({asked[name].dockerfile})"
                      for name in failed if name in asked)
            + f":\n{result.stderr[-2000:]}")
        output = json.loads(result.stdout[result.stdout.index("{"):])
        for name in asked:
            answers[names[name]] = field(field(output, "target")[name], call)
            assert answers[names[name]] is not None, f"bake --call={call} printed no {call} for target {name}"
    return Answers(questions, answers)


def built_configs(builds: Mapping[str, tuple[Path, str]], folder: Path, owner: str = "docgen-tests",
                  timeout: float = 600) -> dict[str, dict]:
    """The image config BuildKit writes for each (Dockerfile, target) by key: its `Labels`, `Env` and `User`,
    every value as BuildKit expanded it. One bake builds them all into the engine (each Dockerfile must build
    without a registry: FROM scratch); each image is removed again once read."""
    names = {bake_name(key): key for key in builds}
    tags = {name: f"docgen-test/scope-{name.lower()}:probe" for name in names}
    definition = {"target": {name: {
        "context": str(builds[key][0].parent), "dockerfile": str(builds[key][0]), "target": builds[key][1],
        "tags": [tags[name]], "labels": {"owner": owner}, "output": ["type=docker"],
    } for name, key in names.items()}}
    bake_file = folder / "bake-build.json"
    bake_file.write_text(json.dumps(definition, indent=1), encoding="utf-8")
    allow = [f"--allow=fs.read={context}" for context in sorted({str(d.parent) for d, _ in builds.values()})]
    try:
        result = subprocess.run(["docker", "buildx", "bake", "-f", str(bake_file), *allow, "--progress=plain", *names],
                                cwd=folder, capture_output=True, text=True, timeout=timeout, check=False)
        assert result.returncode == 0, f"bake ({bake_file}) failed:\n{result.stderr[-2000:]}"
        inspected = run("docker", "image", "inspect", *tags.values(), timeout=60)
        assert inspected.returncode == 0, inspected.stderr
        configs = {record["RepoTags"][0]: record["Config"] for record in json.loads(inspected.stdout)}
        return {key: configs[tags[name]] for name, key in names.items()}
    finally:
        run("docker", "image", "rm", *tags.values(), timeout=120)
