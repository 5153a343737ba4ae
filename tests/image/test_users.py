"""Who owns what in the image: a build user made the heavy artifacts, the runtime user only uses them.

Run as the image's default (runtime) user, whose uid the Dockerfile's RUNTIME_UID sets, in a plain container (writable root filesystem,
so a refused write is refused by the permission bits).
"""

from __future__ import annotations

import pytest

from tests.expected import model_facts

pytestmark = [pytest.mark.image, pytest.mark.docker]

FACTS = model_facts()   # the model of this checkout; the image, read through docker exec, is the other side
BUILD_UID = FACTS.build_uid
RUNTIME = FACTS.runtime_uid
PREFETCHED_VENVS = FACTS.prefetched_venvs
VENV_DIR = FACTS.venv_dir
HEAVY = ("/opt/uv_cache", "/opt/nemo_rl_venv", "/opt/nemo-rl", *(f"{VENV_DIR}/{a}" for a in PREFETCHED_VENVS))
# Left out of the mode check on purpose: the private vLLM copies (group-writable, patched in place) and
# the empty .lock file uv makes world-writable in each venv so that any user can take the venv's lock.
NOT_SHARED = "! -path '*/site-packages/vllm' ! -path '*/site-packages/vllm/*' ! -name .lock"


def test_runtime_user_has_a_passwd_entry_and_a_writable_home(sh):
    code, out = sh("getent passwd $(id -u) | cut -d: -f1,3,6; echo \"HOME=$HOME\"; "
                   "python -c 'import getpass; print(getpass.getuser())'")
    assert code == 0, out
    entry, home, user = out.strip().splitlines()
    name, uid, passwd_home = entry.split(":")
    assert uid == RUNTIME and home == f"HOME={passwd_home}" and user == name, out
    code, out = sh('touch "$HOME/probe" && mkdir -p "$HOME/.cache/probe" && rm -r "$HOME/probe" "$HOME/.cache/probe"')
    assert code == 0, out


def test_heavy_artifacts_belong_to_the_build_user(sh):
    code, out = sh(f"find {' '.join(HEAVY)} ! -user {BUILD_UID} | head -n 5; stat -c %u {' '.join(HEAVY)} | sort -u")
    assert code == 0, out
    assert out.split() == [BUILD_UID], f"not owned by the build user (uid {BUILD_UID}):\n{out}"


def test_heavy_artifacts_were_created_with_umask_022(sh):
    code, out = sh(f"find {' '.join(HEAVY)} ! -type l {NOT_SHARED} -perm /go=w | head -n 5")
    assert code == 0 and out.strip() == "", f"group- or world-writable:\n{out}"
    # and the check itself sees such a file: the vLLM copies are group-writable on purpose
    code, out = sh(f"find {VENV_DIR}/*/lib/python3*/site-packages/vllm -maxdepth 0 -perm -g=w | wc -l")
    assert code == 0 and int(out) > 0, out


def test_runtime_user_reads_and_executes_everything(sh):
    code, out = sh(f"find {' '.join(HEAVY)} \\( ! -readable -o -type d ! -executable \\) | head -n 5")
    assert code == 0 and out.strip() == "", f"unreadable for uid {RUNTIME}:\n{out}"
    for actor in PREFETCHED_VENVS:
        code, out = sh(f'{VENV_DIR}/{actor}/bin/python -c "import sys; print(sys.prefix)"')
        assert (code, out.strip()) == (0, f"{VENV_DIR}/{actor}"), out


@pytest.mark.parametrize("group", [RUNTIME, BUILD_UID])
def test_runtime_user_cannot_write_the_artifacts_whatever_its_group(sh, group):
    actor = next(iter(PREFETCHED_VENVS))
    for target in ("/opt/uv_cache/probe", "/opt/nemo-rl/probe", "/opt/nemo_rl_venv/bin/probe",
                   f"{VENV_DIR}/{actor}/bin/probe"):
        code, out = sh(f"touch {target}", user=f"{RUNTIME}:{group}")
        assert code != 0 and "Permission denied" in out, f"uid {RUNTIME} (group {group}) could write {target}"


@pytest.mark.parametrize("parent", [VENV_DIR, "/opt/gym_venvs"])
def test_runtime_user_creates_a_venv_in_the_venv_parents(sh, parent):
    venv = f"{parent}/probe-runtime-venv"
    code, out = sh(f"set -e; UV_CACHE_DIR=/tmp/probe-uv-cache UV_OFFLINE=1 uv venv -q {venv}; "
                   f"{venv}/bin/python -c 'import sys; print(sys.prefix)'; stat -c '%u:%g' {venv}; "
                   f"rm -rf {venv} /tmp/probe-uv-cache")
    assert code == 0, out
    assert out.split() == [venv, f"{RUNTIME}:{RUNTIME}"], out
