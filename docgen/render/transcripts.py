"""Console transcripts rendered from the model, for pages whose commands the test suite runs in the
built image (docgen/console). The expected output comes from the model, so a Dockerfile change moves the
transcript with `docgen write`, and the rebuilt image must then print exactly that."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docgen.model import class_name_of
from docgen.model.claims import build_user, package_in, venv_dir_access, vllm_copies
from docgen.model.stages import role_of
from docgen.render.markdown import code, shell
from docgen.render.values import render_value

if TYPE_CHECKING:
    from docgen.model import ImageModel


def console_venvs(model: "ImageModel") -> str:
    """The venv directory, its entries as `ls` lists them (C-locale byte order) and their count."""
    names = sorted(v.actor for v in model.venvs)
    lines = ["```console",
             '$ echo "$NEMO_RL_VENV_DIR"', model.venv_dir,
             f"$ ls {shell(model.venv_dir)}", *names,
             f"$ ls {shell(model.venv_dir)} | wc -l", str(len(names)),
             "```"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------- transcripts whose output is a model fact
# Each renders its lead sentence with it: the sentence states facts too (which venvs, how many).

def _uv_cache(model: "ImageModel") -> str:
    return render_value("paths.uv_cache", model)


def _console(lines: list[str]) -> str:
    return "\n".join(["```console", *lines, "```"]) + "\n"


def _venvs_with(model: "ImageModel", package: str):
    return [(v, package_in(model, package, v.extras)) for v in model.venvs]


def console_package(model: "ImageModel", package: str = "transformer-engine", absent: str = "no") -> str:
    """`version_in FQN PACKAGE` for every prefetched venv that has the package (`...` for an unversioned,
    editable one); with absent=yes also the error a venv without it gives."""
    have = [(v, p) for v, p in _venvs_with(model, package) if p is not None]
    lacking = [v for v, p in _venvs_with(model, package) if p is None]
    if not have:
        out = f"No prefetched venv has `{package}`.\n"
    else:
        have_extras = sorted({e for v, _ in have for e in v.extras})
        out = (f"`{package}` is in the prefetched venvs of " + ", ".join(code(v.class_name) for v, _ in have)
               + f" (extras {', '.join(code(e) for e in have_extras)}):\n\n")
        lines = []
        for venv, pkg in have:
            lines += [f"$ version_in {shell(venv.actor)} {shell(package)}", pkg.version or "..."]
        out += _console(lines)
    if absent == "yes" and lacking:
        pick = next((v for v in lacking if role_of(v.actor) == "policy"), lacking[0])
        extras = ", ".join(code(e) for e in pick.extras) or "the base"
        out += (f"\nThe {code(pick.class_name)} venv (extra {extras}) does not have it:\n\n"
                + _console([f"$ version_in {shell(pick.actor)} {shell(package)}", "Traceback (most recent call last):", "...",
                            "importlib.metadata.PackageNotFoundError: No package metadata was found for "
                            f"{package}", "[1]"]))
    return out


def console_te_shared(model: "ImageModel", package: str = "transformer-engine") -> str:
    """Every venv with a source-built package resolves its files into the one cache entry uv built."""
    have = [(v, p) for v, p in _venvs_with(model, package) if p is not None]
    if not have:
        return f"No prefetched venv has `{package}`, so there is no build to share.\n"
    module = package.replace("-", "_")
    cache = _uv_cache(model)
    lines = []
    for venv, _ in have:
        lines += [f"$ te_init {shell(venv.actor)}", f"{cache}/.../{module}/__init__.py"]
    calls = "; ".join(f"te_init {shell(v.actor)}" for v, _ in have)
    lines += [f"$ {{ {calls}; }} | sort -u | wc -l", str(len({p.key for _, p in have}))]
    intro = (f"The {code(package)} venvs (" + ", ".join(code(v.class_name) for v, _ in have)
             + ") resolve the same file to one place in the cache:\n\n")
    return intro + _console(lines)


def console_vllm_copies(model: "ImageModel") -> str:
    copies = vllm_copies(model)
    if copies is None or not copies.venvs:
        return ("The published stage makes no private vLLM copies: the vLLM venvs link `vllm/` from the cache "
                "like every other package.\n")
    lines = ["$ for actor in \\"]
    for n, path in enumerate(copies.venvs):
        lines.append(f">     {shell(path.rsplit('/', 1)[-1])}" + ("; do" if n == len(copies.venvs) - 1 else " \\"))
    lines += ['>   pkg=$(echo "$NEMO_RL_VENV_DIR"/$actor/lib/python3*/site-packages/vllm)',
              '>   echo "${actor##*.}: $(stat -c %F "$pkg"), $(find "$pkg" -type l | wc -l) symlinks"', "> done"]
    lines += [f"{class_name_of(p)}: directory, 0 symlinks" for p in copies.venvs]
    return ("vLLM is the exception: each vLLM venv holds its own copy of the `vllm/` package, real files rather "
            "than links into the cache, so those venvs never share it:\n\n" + _console(lines))


def console_runtime_user(model: "ImageModel") -> str:
    return _console(["$ id -u", render_value("runtime.uid", model)])


def console_ownership(model: "ImageModel") -> str:
    """Owner, group and mode of the venv directory (as the build creates it), of the cache and of one
    prefetched venv: the build user creates both with umask 022, and a venv made inside a set-group-ID
    directory takes that directory's group and bit."""
    cache, venv_dir = _uv_cache(model), model.venv_dir
    owner, group, mode = venv_dir_access(model)
    uid, gid = build_user(model)
    lines = [f"$ stat -c '%u:%g %A %n' {shell(venv_dir)} {shell(cache)}", f"{owner}:{group} {mode} {venv_dir}",
             f"{uid}:{gid} drwxr-xr-x {cache}"]
    if model.venvs:
        pick = next((v for v in model.venvs if role_of(v.actor) == "policy"), model.venvs[0])
        setgid = mode[6] in "sS"
        lines += [f"$ stat -c '%u:%g %A' \"$NEMO_RL_VENV_DIR\"/{shell(pick.actor)}",
                  f"{uid}:{group if setgid else gid} drwxr-{'s' if setgid else 'x'}r-x"]
    return _console(lines)


def console_writable(model: "ImageModel") -> str:
    copies = vllm_copies(model)
    gid, cache = render_value("runtime.gid", model), _uv_cache(model)
    lines = [f"$ find {shell(cache)} ! -type l -perm /go=w | wc -l", "0",
             "$ find \"$NEMO_RL_VENV_DIR\"/*/ ! -type l ! -name .lock -perm /go=w ! -path '*/site-packages/vllm' "
             "! -path '*/site-packages/vllm/*' | wc -l", "0",
             f"$ find \"$NEMO_RL_VENV_DIR\"/*/lib/python3*/site-packages/vllm -maxdepth 0 -group {shell(gid)} -perm -g=w "
             "2>/dev/null | wc -l", str(len(copies.venvs) if copies else 0)]
    return _console(lines)


def console_wrappers(model: "ImageModel") -> str:
    if not model.venvs:
        return "The image prefetches no venv, so it has no `python-<ClassName>` wrappers.\n"
    names = sorted(f"python-{v.class_name}" for v in model.venvs)
    pick = next((v for v in model.venvs if role_of(v.actor) == "policy"), model.venvs[0])
    return _console(["$ ls /usr/local/bin | grep '^python-'", *names,
                     f"$ {shell('python-' + pick.class_name)} -c 'import sys; print(sys.prefix)'", pick.path])
