"""What the image must hold, for the tests that check it, derived and never typed by hand.

Two sources, chosen so that no test compares docgen's model with itself:

- `Truth` is worked out from the raw inputs without docgen's readers or model: the Dockerfile's text (the
  prefetch call, the warm-up syncs, ARG and ENV defaults, found with a few plain patterns), the snapshot's
  JSON as `json.load` gives it, and the selection rules of the stand-in's own `prefetch_venvs.py` (the script
  the hermetic image runs), taken from that file. Tests of the model (inventory, reader) compare with it.
- `model_facts()` is the model built from the repository's inputs. Tests of the built image use it: there the
  observed side (the image, through `docker exec`) is independent of the model.

When an input changes, both follow it; a test goes red only when docgen, the stand-in or the image disagree.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "Dockerfile.nmp-rl-base"
SNAPSHOT = REPO / "snapshot/nemo-rl.json"
STANDIN_PREFETCH = REPO / "docgen/standin/files/prefetch_venvs.py"
SYSTEM_COMMAND = "sys.executable"   # how the snapshot spells an actor on the system interpreter
TE = "transformer-engine"


@cache
def _standin_rules() -> dict:
    """`selected` and `extra_flags` as the stand-in's prefetch script defines them (the module itself imports
    the registry, so only these two functions are taken from its source)."""
    tree = ast.parse(STANDIN_PREFETCH.read_text())
    wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("selected", "extra_flags")]
    assert len(wanted) == 2, f"{STANDIN_PREFETCH} no longer defines selected() and extra_flags()"
    namespace: dict = {"shlex": shlex}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), str(STANDIN_PREFETCH), "exec"), namespace)
    return namespace


def _logical_lines(text: str) -> list[str]:
    """The Dockerfile's lines with backslash continuations joined and comment lines inside them dropped."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if pending and line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


class Truth:
    """The facts a Dockerfile and a snapshot state, read directly (see the module's docstring)."""

    def __init__(self, dockerfile: Path = DOCKERFILE, snapshot: Path = SNAPSHOT) -> None:
        self.dockerfile_text = dockerfile.read_text()
        self.snapshot = json.loads(snapshot.read_text())
        self.lines = _logical_lines(self.dockerfile_text)

    # -- the Dockerfile's text
    def arg(self, name: str) -> str:
        values = [m.group(1).strip('"') for line in self.lines
                  if (m := re.match(rf"ARG {name}=(\S+)\s*$", line))]
        assert len(set(values)) == 1, f"ARG {name} has defaults {values}"
        return values[0]

    def env(self, name: str) -> str:
        values = [m.group(1) for line in self.lines if line.startswith("ENV ")
                  for m in [re.search(rf"(?:^ENV |\s){name}=(\S+)", line)] if m]
        assert len(set(values)) == 1, f"ENV {name} is set to {values}"
        return values[0]

    def _prefetch_words(self) -> list[str]:
        calls = [line for line in self.lines if "prefetch_venvs.py" in line and "nemo_gym/prefetch" not in line]
        assert len(calls) == 1, calls
        words = shlex.split(calls[0].split("prefetch_venvs.py", 1)[1], comments=True)
        return words

    @property
    def filters(self) -> tuple[str, ...]:
        words = self._prefetch_words()
        return tuple(words[: words.index("--negative-filters")] if "--negative-filters" in words else words)

    @property
    def negative_filters(self) -> tuple[str, ...]:
        words = self._prefetch_words()
        return tuple(words[words.index("--negative-filters") + 1:]) if "--negative-filters" in words else ()

    @property
    def warm_extras(self) -> tuple[str, ...]:
        return tuple(m.group(1) for line in self.lines if re.match(r"\s*uv sync\b", line)
                     for m in re.finditer(r"--extra[ =](\S+)", line.split("#", 1)[0]))

    @property
    def venv_dir(self) -> str:
        return self.env("NEMO_RL_VENV_DIR")

    # -- the snapshot's JSON, with the stand-in's rules
    @property
    def actors(self) -> dict[str, str]:
        """FQN -> executable command, NEMO_RL_PY_EXECUTABLES_SYSTEM unset."""
        return {a["actor"]: a["command"] for a in self.snapshot["registry"]["actors"]}

    @property
    def prefetched_venvs(self) -> dict[str, tuple[str, ...]]:
        """FQN -> the extras its venv is synced with, for every actor the prefetch call gives a venv."""
        rules = _standin_rules()
        out = {}
        for fqn, command in self.actors.items():
            if command == SYSTEM_COMMAND or not rules["selected"](fqn, list(self.filters), list(self.negative_filters)):
                continue
            flags = rules["extra_flags"](command)
            out[fqn] = tuple(sorted(set(flags[1::2])))
        return out

    def filter_actors(self, text: str) -> tuple[str, ...]:
        return tuple(fqn for fqn in self.prefetched_venvs if text in fqn)

    def install_set(self, extra: str) -> set[str]:
        return set(self.snapshot["lock"]["install_sets"][extra.replace("_", "-")])

    @property
    def shared_builds(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Package name -> (version, warmed extras that install it, in warm order) for every source build two
        or more warmed extras add to the base install set."""
        out = {}
        base = set(self.snapshot["lock"]["install_sets"][""])
        for key, pkg in self.snapshot["lock"]["packages"].items():
            if not pkg["source_built"] or key in base:
                continue
            extras = tuple(e for e in self.warm_extras if key in self.install_set(e))
            if len(extras) >= 2:
                out[pkg["name"]] = (pkg["version"], extras)
        return out

    def versions(self, name: str) -> set[str]:
        return {p["version"] for p in self.snapshot["lock"]["packages"].values() if p["name"] == name}


@cache
def truth() -> Truth:
    return Truth()


class ModelFacts:
    """What the model of this repository says the image holds, in the shapes the image tests compare."""

    def __init__(self, model) -> None:
        self.model = model
        self.venv_dir = model.venv_dir
        self.prefetched_venvs = {v.actor: tuple(v.extras) for v in model.venvs}
        self.prefetched = tuple(self.prefetched_venvs)
        self.vllm_venvs = {a for a, extras in self.prefetched_venvs.items() if "vllm" in extras}
        te = [b for b in model.shared_builds if b.package == TE]
        assert len(te) == 1, f"the model gives {len(te)} shared Transformer-Engine builds"
        self.te_version = te[0].version
        self.te_venvs = tuple(a for a, extras in self.prefetched_venvs.items() if set(extras) & set(te[0].extras))
        args = {a.name: a.default for a in model.dockerfile.args if a.default is not None}
        self.build_uid = args["BUILD_UID"]
        self.runtime_uid = args["RUNTIME_UID"]
        self.runtime_gid = args["RUNTIME_GID"]


@cache
def model_facts() -> ModelFacts:
    from docgen.model.build import load_model
    from docgen.project import find_project
    project = find_project(root=REPO)
    return ModelFacts(load_model(project.dockerfile, project.snapshot))
