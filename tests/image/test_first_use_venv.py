"""An actor the image did not prefetch gets its venv on the node at first use, as the runtime user.

The in-image uv cache is read-only to that user (the prefetched venvs link into it), so uv refuses to
start on it; the documented recipe points UV_CACHE_DIR at writable storage. In the hermetic image every
package is a local stand-in, so the recipe can be run offline here, the way NeMo-RL's create_local_venv
runs it (`uv venv`, then `uv sync`, then the actor's own `uv run --extra ...`)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.image, pytest.mark.docker]

ACTOR = "nemo_rl.models.value.workers.dtensor_value_worker_v2.DTensorValueWorkerV2"  # critic-free: not prefetched


def test_the_read_only_cache_refuses_uv(sh):
    code, out = sh("uv venv --allow-existing /tmp/probe-venv")
    assert code != 0 and "/opt/uv_cache" in out and "Permission denied" in out, out


def test_a_first_use_venv_builds_with_a_writable_cache(sh):
    venv = f"$NEMO_RL_VENV_DIR/{ACTOR}"
    code, out = sh(
        "set -e; export UV_CACHE_DIR=/tmp/uv-cache UV_OFFLINE=1; "
        f"test ! -e {venv}; "
        f"uv venv --allow-existing {venv}; "
        f"UV_PROJECT_ENVIRONMENT={venv} uv sync --frozen --directory /opt/nemo-rl; "
        f"UV_PROJECT_ENVIRONMENT={venv} uv run --locked --extra automodel --directory /opt/nemo-rl "
        "python -c 'import importlib.metadata as m, sys; print(sys.prefix); print(m.version(\"transformer-engine\"))'; "
        f"stat -c '%u:%g' {venv}")
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[-3:] == [f"/opt/ray_venvs/{ACTOR}", "2.15.0+42b8400", "1000:1000"], out
