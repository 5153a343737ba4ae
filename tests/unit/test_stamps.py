"""Stamps: an end marker records the digest of its block's own text and nothing else (STAMP_VERSION 3), so
a page changes only where its text does; the image-size record keeps input digests, which must not move
silently either, or every record would read as measured from other inputs."""

from __future__ import annotations

from docgen.blocks import STAMP_VERSION, digest, parse_document, refresh
from docgen.model.digests import input_digest, model_digest
from docgen.render.generators import GENERATORS, RenderInputs, render_block
from docgen.render.values import VALUES, render_value

from tests.unit.blocks_fixtures import DOCKERFILE, small_model, snapshot_data

# The body digest of a fixed text under each marker version that stamps one. A new digest function moves
# these: bump STAMP_VERSION in docgen/blocks/__init__.py and teach the parser the old form.
PINNED_BODY = {3: "732f10d3"}
# The input digests of the small fixture, which bench/image_size.py stores with a measurement. When a reader
# or a projection in docgen/model/digests.py changes what is hashed, these move, and every committed record
# would read as measured from other inputs until the image is measured again: change them on purpose only.
PINNED_INPUTS = {"dockerfile": "1813f790", "snapshot": "1ecd8e7d-ad66cddd-b8cf4b7d"}
SNAPSHOT_PARTS = ("registry", "lock", "pyproject")


def test_the_body_digest_is_pinned_for_the_current_stamp_version():
    assert STAMP_VERSION in PINNED_BODY, f"no pinned body digest for STAMP_VERSION {STAMP_VERSION}: add one"
    assert digest("| a |\n|---|\n| 1 |") == PINNED_BODY[STAMP_VERSION], (
        "the body digest changed without a new STAMP_VERSION: bump it in docgen/blocks/__init__.py")


def test_input_digests_of_the_fixture_are_pinned(tmp_path):
    assert input_digest(small_model(tmp_path)) == PINNED_INPUTS


def test_each_input_digest_moves_only_with_its_input(tmp_path):
    model = small_model(_dir(tmp_path, "a"))
    base, parts = input_digest(model), {k: model_digest(model, k) for k in SNAPSHOT_PARTS}
    lock_model = small_model(_dir(tmp_path, "b"), data=snapshot_data(te_version="2.16.0+1"))   # a lock-only change
    lock_moved = input_digest(lock_model)
    assert [k for k in base if base[k] != lock_moved[k]] == ["snapshot"]
    assert [k for k in parts if parts[k] != model_digest(lock_model, k)] == ["lock"]
    edited = DOCKERFILE.replace("ENV UV_CACHE_DIR=/opt/uv_cache", "ENV UV_CACHE_DIR=/opt/cache")
    assert edited != DOCKERFILE
    df_moved = input_digest(small_model(_dir(tmp_path, "c"), dockerfile=edited))
    assert [k for k in base if base[k] != df_moved[k]] == ["dockerfile"]
    reworded = DOCKERFILE.replace("# Interpreter for every venv.", "# The interpreter.")   # builds nothing
    assert reworded != DOCKERFILE
    assert input_digest(small_model(_dir(tmp_path, "d"), dockerfile=reworded)) == base


def _dir(tmp_path, name: str):
    (tmp_path / name).mkdir()
    return tmp_path / name


def _page() -> str:
    return "# All\n\n" + "".join(f"<!-- docgen:begin {name} -->\n<!-- docgen:end {name} -->\n\n"
                                for name in GENERATORS if not GENERATORS[name].params)


def _write(text: str, model) -> tuple[str, list]:
    params = {name: g.params for name, g in GENERATORS.items()}
    doc = parse_document(text, "all.md", params, frozenset(VALUES))
    src = RenderInputs(model)
    new, changes, _ = refresh(doc, lambda b: render_block(b.generator, dict(b.args), src),
                              lambda v: render_value(v.key, model))
    return new, changes


def test_an_input_change_no_block_renders_changes_no_byte(tmp_path):
    page, _ = _write(_page(), small_model(_dir(tmp_path, "a")))
    # a comment no block shows: the Dockerfile's input digest moves, no block's text does
    env = "ENV UV_CACHE_DIR=/opt/uv_cache\n"
    quiet = DOCKERFILE.replace(env, env + "# a note no page shows\n")
    assert quiet != DOCKERFILE
    comments = lambda model: [i.comment for i in model.dockerfile.instructions]   # noqa: E731
    assert (comments(small_model(_dir(tmp_path, "c"), dockerfile=quiet))
            != comments(small_model(_dir(tmp_path, "d"))))   # the reader sees the new comment
    again, changes = _write(page, small_model(_dir(tmp_path, "b"), dockerfile=quiet))
    assert changes == [] and again == page


def _regions(text: str) -> list[tuple[str, str]]:
    """Each block's (text between the markers, end marker line), in page order."""
    doc = parse_document(text, "all.md", {n: g.params for n, g in GENERATORS.items()}, frozenset(VALUES))
    return [("".join(doc.lines[b.begin + 1: b.end]), doc.lines[b.end]) for b in doc.blocks]


def test_a_change_a_block_renders_moves_that_blocks_marker_and_no_other(tmp_path):
    page, _ = _write(_page(), small_model(_dir(tmp_path, "a")))
    moved = small_model(_dir(tmp_path, "b"), data=snapshot_data(te_version="2.16.0+1"))   # the lock alone
    again, changes = _write(page, moved)
    assert changes and all(c.text_changed for c in changes)
    before, after = _regions(page), _regions(again)
    assert len(before) == len(after)
    text_moved = [a[0] != b[0] for a, b in zip(before, after)]
    marker_moved = [a[1] != b[1] for a, b in zip(before, after)]
    assert any(text_moved) and not all(text_moved)
    assert marker_moved == text_moved
