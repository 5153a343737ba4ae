"""Every prefetched venv in the built image holds exactly what the model derives from the image's own lock.

Installed distributions are read inside the image (the image tests' shared container) with each venv's interpreter
(importlib.metadata); the expected set is `read_lock(<the image's uv.lock>).install_set(<venv extras>)`,
with each venv's extras from `docgen inventory --json`.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from docgen.names import normalize

pytestmark = [pytest.mark.docker, pytest.mark.image]

REPO = Path(__file__).resolve().parents[2]
CHECKOUT = "/opt/nemo-rl"
LIST_DISTRIBUTIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps(sorted({(d.metadata['Name'], d.version) for d in m.distributions()})))"
)


@pytest.fixture(scope="module")
def image_lock(container, tmp_path_factory):
    """uv.lock and pyproject.toml copied out of the image's NeMo-RL checkout, read by docgen."""
    from docgen.snapshot.lockfile import read_lock

    dest = tmp_path_factory.mktemp("image-lock")
    for name in ("uv.lock", "pyproject.toml"):
        stream, _ = container.get_archive(f"{CHECKOUT}/{name}")
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = tar.getmember(name)
            (dest / name).write_bytes(tar.extractfile(member).read())
    return read_lock(dest / "uv.lock")


@pytest.fixture(scope="module")
def model_venvs():
    """The model's venvs: {actor FQN: extras} and the venv directory, from `docgen inventory --json`."""
    proc = subprocess.run([sys.executable, "-m", "docgen", "inventory", "--json"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, f"docgen inventory --json failed:\n{proc.stderr}"
    inventory = json.loads(proc.stdout)
    return {v["actor"]: (tuple(v["extras"]), v["path"]) for v in inventory["venvs"]}


def image_venvs(container) -> list[str]:
    code, out = container.exec_run(["bash", "-c", 'ls -1 "$NEMO_RL_VENV_DIR"'])
    assert code == 0, out.decode()
    return out.decode().split()


def test_image_has_exactly_the_model_venvs(container, model_venvs):
    assert sorted(image_venvs(container)) == sorted(model_venvs)


def test_each_venv_matches_the_lock_install_set(container, image_lock, model_venvs):
    root = normalize(image_lock.root)
    mismatches = []
    for actor in image_venvs(container):
        assert actor in model_venvs, f"{actor}: a venv in the image that the model does not predict"
        extras, path = model_venvs[actor]
        code, out = container.exec_run([f"{path}/bin/python", "-c", LIST_DISTRIBUTIONS])
        assert code == 0, f"{actor}: {out.decode()}"
        installed = {normalize(n): v for n, v in json.loads(out) if normalize(n) != root}
        # the lock leaves out the version of a package whose version is dynamic; its name still counts
        expected = {normalize(p.id.name): p.id.version for p in image_lock.install_set(extras)}
        assert expected, f"{actor}: the lock gives an empty install set for extras {extras}"
        wrong = sorted(n for n in installed.keys() & expected.keys() if expected[n] not in (None, installed[n]))
        if installed.keys() != expected.keys() or wrong:
            mismatches.append(
                f"{actor} (extras {', '.join(extras) or 'none'}):\n"
                f"  only in the venv: {sorted(installed.keys() - expected.keys())}\n"
                f"  only in the lock's install set: {sorted(expected.keys() - installed.keys())}\n"
                f"  other version in the venv: {[(n, installed[n], expected[n]) for n in wrong]}"
            )
    assert not mismatches, "\n".join(mismatches)
