"""A tiny in-tree PEP 517 build backend for the docgen stand-in packages.

Every stand-in package carries this file and names it in `[build-system]` with
`backend-path = ["."]` and `requires = []`, so building one needs nothing from a package
index. Metadata comes from the package's own pyproject.toml; the importable top-level
packages are listed in `[tool.standin] packages`.
"""

import base64
import hashlib
import io
import os
import tarfile
import tomllib
import zipfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# Fixed zip timestamps: the same tree always builds the same wheel bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    with open(_HERE / "pyproject.toml", "rb") as fh:
        data = tomllib.load(fh)
    return data["project"], data.get("tool", {}).get("standin", {})


def _dist(name):
    return name.replace("-", "_").replace(".", "_")


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {req}" for req in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for req in reqs:
            name, sep, marker = req.partition(";")
            cond = f'({marker.strip()}) and extra == "{extra}"' if sep else f'extra == "{extra}"'
            lines.append(f"Requires-Dist: {name.strip()} ; {cond}")
    return "\n".join(lines) + "\n"


def _dist_info(project):
    return f"{_dist(project['name'])}-{project['version']}.dist-info"


def _files(project, tool, editable):
    """(archive name, bytes) of the wheel's payload, dist-info excluded."""
    if editable:
        pth = f"{_dist(project['name'])}_standin.pth"
        return [(pth, (str(_HERE) + "\n").encode())]
    out = []
    for pkg in tool.get("packages", []):
        for path in sorted((_HERE / pkg).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                out.append((path.relative_to(_HERE).as_posix(), path.read_bytes()))
    return out


def _write_wheel(wheel_directory, editable):
    project, tool = _project()
    info = _dist_info(project)
    files = _files(project, tool, editable)
    files.append((f"{info}/METADATA", _metadata(project).encode()))
    files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: standin_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    wheel = f"{_dist(project['name'])}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            zinfo = zipfile.ZipInfo(name, _EPOCH)
            zinfo.external_attr = 0o644 << 16
            zf.writestr(zinfo, data)
    return wheel


def _prepare(metadata_directory):
    project, _ = _project()
    info = Path(metadata_directory) / _dist_info(project)
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(project))
    return info.name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _prepare(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    project, _ = _project()
    stem = f"{_dist(project['name'])}-{project['version']}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for path in sorted(_HERE.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                tf.add(path, arcname=f"{stem}/{path.relative_to(_HERE).as_posix()}")
    (Path(sdist_directory) / f"{stem}.tar.gz").write_bytes(buf.getvalue())
    return f"{stem}.tar.gz"
