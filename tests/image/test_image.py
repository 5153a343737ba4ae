"""The built hermetic image has the venvs, cache sharing and permissions the Dockerfile promises."""

import pytest

pytestmark = [pytest.mark.image, pytest.mark.docker]

from tests.expected import model_facts

FACTS = model_facts()   # the model of this checkout; the image, read through docker exec, is the other side
PREFETCHED = FACTS.prefetched
VENV_DIR = FACTS.venv_dir
VLLM_EXTRA = FACTS.vllm_venvs
TE_VENVS = FACTS.te_venvs


def site_packages(actor: str) -> str:
    return f"{VENV_DIR}/{actor}/lib/python3*/site-packages"


def test_exactly_the_prefetched_venvs(sh):
    code, out = sh(f"ls -1 {VENV_DIR}")
    assert code == 0, out
    assert sorted(out.split()) == sorted(PREFETCHED)
    for actor in PREFETCHED:
        code, out = sh(f'test -x "{VENV_DIR}/{actor}/bin/python" && "{VENV_DIR}/{actor}/bin/python" -c "print(1)"')
        assert (code, out.strip()) == (0, "1"), f"{actor}: {out}"


def test_transformer_engine_built_once_and_shared_through_the_cache(sh):
    seen = {}
    for actor in TE_VENVS:
        code, out = sh(f'"{VENV_DIR}/{actor}/bin/python" -c '
                       '"import os, transformer_engine as te; print(te.__version__); print(os.path.realpath(te.__file__))"')
        assert code == 0, out
        version, real = out.split()
        assert version == FACTS.te_version
        assert real.startswith("/opt/uv_cache/"), real
        seen[actor] = real
    assert len(set(seen.values())) == 1, seen


def test_vllm_is_a_private_real_copy_in_exactly_the_vllm_venvs(sh):
    with_vllm = set()
    for actor in PREFETCHED:
        code, _ = sh(f"test -e {site_packages(actor)}/vllm")
        if code != 0:
            continue
        with_vllm.add(actor)
        code, out = sh(f"d=$(echo {site_packages(actor)}/vllm); test -d \"$d\" && test ! -L \"$d\" "
                       f"&& find \"$d\" -type l | wc -l && find \"$d\" -type f | wc -l")
        assert code == 0, f"{actor}: vllm/ is not a real directory: {out}"
        links, files = map(int, out.split())
        assert links == 0 and files > 1, f"{actor}: {links} symlinks, {files} files in vllm/"
        # NeMo-RL patches vLLM in place at worker start, as the runtime user
        code, out = sh(f"test -w $(echo {site_packages(actor)})/vllm/__init__.py")
        assert code == 0, f"{actor}: runtime user cannot patch vllm/: {out}"
    assert with_vllm == VLLM_EXTRA


def test_default_user_is_the_runtime_user(sh):
    assert sh("id -u")[1].strip() == FACTS.runtime_uid
    assert sh("id -g")[1].strip() == FACTS.runtime_gid


def test_runtime_user_cannot_write_the_cache_or_a_prefetched_venv(sh):
    actor = PREFETCHED[1]
    for target in ("/opt/uv_cache/probe", f"{VENV_DIR}/{actor}/probe", f"{VENV_DIR}/{actor}/bin/probe",
                   f"$(echo {site_packages(actor)})/probe"):
        code, out = sh(f"touch {target}")
        assert code != 0, f"runtime user could write {target}"
        assert "Permission denied" in out


def test_runtime_user_can_add_a_venv_dir(sh):
    code, out = sh(f"mkdir {VENV_DIR}/probe-new-venv && rmdir {VENV_DIR}/probe-new-venv")
    assert code == 0, out


def test_no_git_metadata_in_the_source_tree(sh):
    code, out = sh("find /opt/nemo-rl -name .git | wc -l")
    assert code == 0 and out.strip() == "0", out


def test_fingerprint_written_by_the_rl_tool(sh):
    code, out = sh("cat /opt/nemo_rl_container_fingerprint")
    assert code == 0 and out.startswith("nemo-rl-fingerprint sha256:"), out
    assert "uv.lock" in out and "3rdparty/" in out


def test_actor_wrappers_run_their_venv(sh):
    code, out = sh('python-MegatronPolicyWorker -c "import sys; print(sys.prefix)"')
    assert code == 0, out
    assert out.strip() == f"{VENV_DIR}/nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker"
