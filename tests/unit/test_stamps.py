"""Input stamps: what a digest means is versioned, so a change to it must come with a new STAMP_VERSION."""

from __future__ import annotations

from docgen.blocks import STAMP_VERSION
from docgen.model.digests import InputDigests
from docgen.render.generators import INPUT_NAMES, RenderInputs

from tests.unit.blocks_fixtures import small_model

# The digests of the small fixture under STAMP_VERSION 2. When a reader or a projection in
# docgen/model/digests.py changes what is hashed, these move: bump STAMP_VERSION in docgen/blocks/__init__.py,
# update the pins here, and run `docgen write` (check then reports the old stamps once, as an older version).
PINNED = {2: {"dockerfile": "098f644d", "registry": "1ecd8e7d", "lock": "f9934ffd", "pyproject": "b8cf4b7d",
              "measurement": "fba18e97"}}


def test_digests_of_the_fixture_are_pinned_for_the_current_stamp_version(tmp_path):
    digests = InputDigests(RenderInputs(small_model(tmp_path), {"a": 1})).of(INPUT_NAMES)
    assert STAMP_VERSION in PINNED, f"no pinned digests for STAMP_VERSION {STAMP_VERSION}: add them"
    assert digests == PINNED[STAMP_VERSION], (
        "input digests changed without a new STAMP_VERSION: bump it in docgen/blocks/__init__.py and pin these")


def test_each_input_digest_moves_only_with_its_input(tmp_path):
    from tests.unit.blocks_fixtures import DOCKERFILE, snapshot_data

    base = InputDigests(RenderInputs(small_model(tmp_path))).of(("dockerfile", "registry", "lock", "pyproject"))
    data = snapshot_data(te_version="2.16.0+1")          # a lock-only change
    lock_moved = InputDigests(RenderInputs(small_model(tmp_path, data=data))).of(base)
    assert [k for k in base if base[k] != lock_moved[k]] == ["lock"]
    edited = DOCKERFILE.replace("# Interpreter for every venv.", "# The interpreter.")
    df_moved = InputDigests(RenderInputs(small_model(tmp_path, dockerfile=edited))).of(base)
    assert [k for k in base if base[k] != df_moved[k]] == ["dockerfile"]

