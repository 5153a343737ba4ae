"""Generate a stand-in NeMo-RL workspace from the committed snapshot.

The real NeMo-RL checkout cannot be fetched here and its venvs take hours of CUDA builds, but the
image's build logic (warm-up syncs, per-actor prefetch, shared wheel cache, vLLM copies) can be
exercised against a workspace with the same shape: the same registry modules at the upstream paths,
the same extras and conflicts, a `nemo-gym` workspace member with a `vllm` extra, and tiny packages
named and versioned like the heavy ones. Every package builds with an in-tree PEP 517 backend, so
nothing is fetched from an index; `uv lock` runs fully offline.

Packages whose version differs between extras in the snapshot (transformers, flashinfer-python) have
no stand-in: one name at several versions would need per-extra sources, which the build does not test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from docgen.errors import InputError
from docgen.names import normalize
from docgen.standin.registry_py import render_registry_source

FILES = Path(__file__).resolve().parent / "files"
BACKEND = "standin_backend"
PROJECT = "nemo-rl"
REQUIRES_PYTHON = ">=3.11"  # the host's 3.11 locks it, the image's 3.13 runs it
DEFAULT_VERSION = "0.0.0"  # editable upstream members have dynamic versions the lock does not record
STANDIN_PACKAGES_DIR = "3rdparty/standin-packages"
GYM_NAME = "nemo-gym"
GYM_SERVER = "standin_echo"  # the one Gym environment server of the stand-in
GYM_SERVER_HELPER = "standin-echo-helper"  # its one requirement, a local package
GYM_PREFETCH = "examples/nemo_gym/prefetch_venvs.py"
# vLLM gets a few modules in sub-packages so a copied tree has depth (the image replaces it by a real copy).
VLLM_MODULES = ("engine/__init__.py", "engine/llm_engine.py", "model_executor/__init__.py",
                "model_executor/layers.py", "worker/__init__.py")


class StandinPackage(NamedTuple):
    name: str  # normalised distribution name
    version: str
    path: str  # relative to the workspace root
    editable: bool

    @property
    def module(self) -> str:
        return self.name.replace("-", "_")

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def _normalize(name: str) -> str:
    return normalize(name)


def _source_path(pkg) -> str | None:
    """A path source's directory from the snapshot's source string ('editable+DIR', 'directory+DIR')."""
    kind, _, rest = pkg.source.partition("+")
    return rest if kind in ("editable", "directory", "path") else None


def plan_packages(snapshot) -> tuple[tuple[StandinPackage, ...], dict[str, tuple[str, ...]]]:
    """The stand-in packages and, per extra ('' = base), the requirements that extra adds."""
    seen: dict[str, list] = {}
    per_extra: dict[str, list[str]] = {"": [p.name for p in snapshot.base_key_packages()]}
    for p in snapshot.base_key_packages():
        seen.setdefault(p.name, []).append(p)
    for extra in snapshot.extras:
        pkgs = snapshot.key_packages(extra)
        per_extra[extra] = [p.name for p in pkgs]
        for p in pkgs:
            seen.setdefault(p.name, []).append(p)

    plan: dict[str, StandinPackage] = {}
    for name, found in sorted(seen.items()):
        if name == PROJECT or len({p.version for p in found}) > 1:
            continue
        first = found[0]
        path = _source_path(first) or f"{STANDIN_PACKAGES_DIR}/{name}"
        plan[name] = StandinPackage(name, first.version or DEFAULT_VERSION, path, first.editable)
    requirements = {extra: tuple(dict.fromkeys(plan[n].requirement for n in names if n in plan))
                    for extra, names in per_extra.items()}
    return tuple(plan.values()), requirements


# ------------------------------------------------------------------------------------ TOML writing

def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _list(items) -> str:
    items = list(items)
    if not items:
        return "[]"
    return "[\n" + "".join(f"  {_q(i)},\n" for i in items) + "]"


def _build_system() -> str:
    return f'[build-system]\nrequires = []\nbuild-backend = "{BACKEND}"\nbackend-path = ["."]\n'


def _package_pyproject(name: str, version: str, modules: list[str], deps=(), extras=None) -> str:
    out = [_build_system(), "[project]", f"name = {_q(name)}", f"version = {_q(version)}",
           f"requires-python = {_q(REQUIRES_PYTHON)}", f"dependencies = {_list(deps)}", ""]
    if extras:
        out.append("[project.optional-dependencies]")
        out += [f"{_q(extra)} = {_list(reqs)}" for extra, reqs in extras.items()]
        out.append("")
    out += ["[tool.standin]", f"packages = {_list(modules)}", ""]
    return "\n".join(out)


def _root_pyproject(snapshot, packages, requirements, members: dict[str, str]) -> str:
    extras = {}
    for extra in snapshot.extras:
        reqs = list(requirements.get(extra, ()))
        if _normalize(extra) == _normalize(GYM_NAME):
            reqs = [GYM_NAME]  # the workspace member, as upstream's `nemo_gym = ["nemo_gym"]`
        extras[extra] = reqs
    out = [_build_system(), "[project]", f"name = {_q(PROJECT)}", f"version = {_q(DEFAULT_VERSION)}",
           f"requires-python = {_q(REQUIRES_PYTHON)}", f"dependencies = {_list(requirements[''])}", "",
           "[project.optional-dependencies]"]
    out += [f"{_q(extra)} = {_list(reqs)}" for extra, reqs in extras.items()]
    out += ["", "[dependency-groups]"]
    out += [f"{_q(group)} = []" for group in snapshot.groups]
    out += ["", "[tool.uv]", f"default-groups = {_list(snapshot.default_groups)}", "conflicts = ["]
    for group in snapshot.conflicts:
        items = ", ".join("{ " + (f"package = {_q(pkg)}, " if pkg else "") + f"extra = {_q(extra)}" + " }"
                          for pkg, extra in group)
        out.append(f"  [{items}],")
    out += ["]", "", "[tool.uv.workspace]", f"members = {_list(members)}", "", "[tool.uv.sources]"]
    for pkg in packages:
        editable = ", editable = true" if pkg.editable else ""
        out.append(f"{_q(pkg.name)} = {{ path = {_q(pkg.path)}{editable} }}")
    out.append(f"{_q(GYM_NAME)} = {{ workspace = true }}")
    out += ["", "[tool.standin]", 'packages = ["nemo_rl"]', ""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------ generation

def _files(snapshot) -> dict[str, str]:
    """{relative path: text} of the whole stand-in workspace (uv.lock excluded)."""
    backend = (FILES / f"{BACKEND}.py").read_text()
    packages, requirements = plan_packages(snapshot)
    files: dict[str, str] = {}

    def package_dir(path: str, text: str, module: str, version: str, extra_modules=()) -> None:
        files[f"{path}/pyproject.toml"] = text
        files[f"{path}/{BACKEND}.py"] = backend
        files[f"{path}/{module}/__init__.py"] = f'"""Stand-in for {module} (docgen)."""\n\n__version__ = {_q(version)}\n'
        for rel in extra_modules:
            files[f"{path}/{module}/{rel}"] = f'"""Stand-in module {module}/{rel}."""\n'

    gym = next((p for p in packages if p.name == GYM_NAME), None)
    gym_path = gym.path if gym else "3rdparty/Gym-workspace/Gym"
    members = {m: m for m in snapshot.workspace_members} or {gym_path: gym_path}
    vllm = next((p for p in packages if p.name == "vllm"), None)
    for member in members:
        if member == gym_path:
            extras = {"vllm": [vllm.requirement] if vllm else []}
            text = _package_pyproject(GYM_NAME, gym.version if gym else DEFAULT_VERSION, ["nemo_gym"], extras=extras)
            package_dir(member, text, "nemo_gym", gym.version if gym else DEFAULT_VERSION)
        else:
            name = _normalize(Path(member).name)
            package_dir(member, _package_pyproject(name, DEFAULT_VERSION, [name.replace("-", "_")]),
                        name.replace("-", "_"), DEFAULT_VERSION)
    for pkg in packages:
        if pkg.name == GYM_NAME:
            continue
        package_dir(pkg.path, _package_pyproject(pkg.name, pkg.version, [pkg.module]), pkg.module, pkg.version,
                    VLLM_MODULES if pkg.name == "vllm" else ())

    files["pyproject.toml"] = _root_pyproject(snapshot, [p for p in packages if p.name != GYM_NAME],
                                              requirements, members)
    files[f"{BACKEND}.py"] = backend
    files["README.md"] = "# NeMo-RL stand-in\n\nGenerated by `docgen standin` from the committed snapshot. Do not edit.\n"
    files["nemo_rl/__init__.py"] = f'"""NeMo-RL stand-in (docgen)."""\n\n__version__ = {_q(DEFAULT_VERSION)}\n'
    for pkg_init in ("nemo_rl/distributed/__init__.py", "nemo_rl/modelopt/__init__.py", "nemo_rl/utils/__init__.py"):
        files[pkg_init] = ""
    files.update(render_registry_source(snapshot.registry))
    files["nemo_rl/utils/prefetch_venvs.py"] = (FILES / "prefetch_venvs.py").read_text()
    files.update(_gym_server_files(gym_path, backend))
    files["tools/generate_fingerprint.py"] = (FILES / "generate_fingerprint.py").read_text()
    return files


def _gym_server_files(gym_path: str, backend: str) -> dict[str, str]:
    """One small Gym environment server with its own requirements, and the Gym venv prefetch tool.

    Laid out as NeMo-Gym lays out its servers (resources_servers/<server>/{app.py, requirements.txt,
    configs/<server>.yaml}), so the image's Gym venv step can be built and checked here. Its one
    requirement is a local package, so installing it needs no index.
    """
    server = f"{gym_path}/resources_servers/{GYM_SERVER}"
    helper = f"{server}/{GYM_SERVER_HELPER}"
    module = GYM_SERVER_HELPER.replace("-", "_")
    return {
        f"{server}/app.py": f'"""Stand-in Gym environment server: echoes the action as the observation."""\n\n'
                            f"import {module}\n\n\ndef step(action):\n    return {module}.echo(action)\n",
        f"{server}/requirements.txt": f"./{GYM_SERVER_HELPER}\n",
        f"{server}/configs/{GYM_SERVER}.yaml": (f"{GYM_SERVER}:\n  resources_servers:\n    {GYM_SERVER}:\n"
                                                 f"      entrypoint: app.py\n"),
        f"{helper}/pyproject.toml": _package_pyproject(GYM_SERVER_HELPER, "0.1.0", [module]),
        f"{helper}/{BACKEND}.py": backend,
        f"{helper}/{module}/__init__.py": '"""Stand-in dependency of the stand-in Gym server."""\n\n'
                                          "def echo(action):\n    return {'observation': action}\n",
        GYM_PREFETCH: (FILES / "gym_prefetch_venvs.py").read_text(),
    }


def _uv() -> str:
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if not found:
        raise InputError("uv", None, "uv not found beside the interpreter nor on PATH (install requirements/dev.txt)")
    return found


def _lock(workdir: Path) -> None:
    env = dict(os.environ, UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    proc = subprocess.run([_uv(), "lock", "--offline"], cwd=workdir, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise InputError(workdir / "pyproject.toml", None, f"uv lock failed on the stand-in:\n{proc.stderr.strip()}")


def generate(snapshot, out: Path, *, lock: bool = True) -> None:
    """Write the stand-in workspace to `out` (replaced as a whole, atomically) and lock it with uv."""
    out = Path(out)
    files = _files(snapshot)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for rel, text in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for script in ("nemo_rl/utils/prefetch_venvs.py", "tools/generate_fingerprint.py", GYM_PREFETCH):
            (tmp / script).chmod(0o755)
        if lock:
            _lock(tmp)
        tmp.chmod(0o755)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.replace(out, old / out.name)
            os.replace(tmp, out)
            shutil.rmtree(old)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
