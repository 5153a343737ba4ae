"""Where the NeMo-RL reference (pyproject.toml, uv.lock, registry facts at the pinned ref) is: `$NEMO_RL_REF_DIR`,
else `shared/nemo-rl-ref` beside this checkout (how developers' machines and CI lay it out). Tests that need it
skip with that reason when it is absent, and fail instead under NMP_REQUIRE_REFERENCE=1 (CI sets it)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NEMO_RL_REF = Path(os.environ.get("NEMO_RL_REF_DIR") or REPO.parent / "shared" / "nemo-rl-ref")
REASON = f"needs the NeMo-RL reference at {NEMO_RL_REF} (set NEMO_RL_REF_DIR)"


def reference_present() -> bool:
    if (NEMO_RL_REF / "uv.lock").is_file():
        return True
    if os.environ.get("NMP_REQUIRE_REFERENCE") == "1":
        raise RuntimeError(REASON + " and NMP_REQUIRE_REFERENCE=1")
    return False


needs_reference = pytest.mark.skipif(not reference_present(), reason=REASON)
