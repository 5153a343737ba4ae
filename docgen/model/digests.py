"""Digests of the model's inputs, one short checksum per input, with line numbers and (for the image-size
record) comments left out: moving a Dockerfile line or rewording a comment changes nothing the docs say.

- `digest`: the short checksum itself, also what a block's end marker stamps (its own text; the stamp format
  and its version, `STAMP_VERSION`, belong to `docgen.blocks`);
- `input_digest`: what `bench/image_size.py --record` stores beside a measured image, and what the
  image-size block and the lint compare that record with.
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING

from docgen.records import Memo

if TYPE_CHECKING:
    from collections.abc import Callable
    from docgen.model import ImageModel

DIGEST_CHARS = 8


def digest(text: str) -> str:
    """A short checksum for a stamp: it only has to notice a change (a hand edit, new facts), and CRC-32
    does so without loading OpenSSL, whose import every `docgen check` would pay (python -X importtime)."""
    return f"{zlib.crc32(text.encode('utf-8')):0{DIGEST_CHARS}x}"


def short_hash(value: object) -> str:
    """`digest` of a JSON projection (sets and tuples as lists, keys sorted)."""
    return digest(json.dumps(value, sort_keys=True, default=list, ensure_ascii=False))


# What each part of the snapshot contributes to its digest. Change one and every committed image-size record
# reads as measured from other inputs (tests/unit/test_stamps.py pins the digests of a fixture).

def _registry(model: "ImageModel") -> object:
    reg = model.snapshot.registry
    return [reg.executables, [(e.actor, e.member, e.command, e.command_system, e.source) for e in reg.entries]]


def _lock(model: "ImageModel") -> object:
    snap = model.snapshot
    # tuples, not dataclasses.asdict: this runs on every check over ~500 packages
    return [[(k, p.name, p.version, p.source_kind, p.source, p.source_built, p.editable)
             for k, p in snap.packages.items()], snap.install_sets,
            [(s.key, s.extras) for s in snap.shared_builds]]


def _pyproject(model: "ImageModel") -> object:
    s = model.snapshot
    return [s.project_name, s.extra_requirements, s.conflicts, s.default_groups, s.groups, s.overrides,
            s.sources, s.workspace_members]


_PROJECTIONS: dict[str, Callable[["ImageModel"], object]] = {
    "registry": _registry, "lock": _lock, "pyproject": _pyproject,
}

# Digests kept per model: the image-size block and the lint both ask for input_digest, and the lock (most
# of the snapshot) should be hashed once per run.
_MODEL_DIGESTS = Memo()


def model_digest(model: "ImageModel", name: str) -> str:
    """The digest of one part of the model's snapshot (registry, lock or pyproject), once per model."""
    return _MODEL_DIGESTS.answer(model, name, lambda: short_hash(_PROJECTIONS[name](model)))


def input_digest(model: "ImageModel") -> dict[str, str]:
    """Short digests of what a measured image was built from: the Dockerfile's instructions (comments
    left out: they build nothing) and the snapshot (registry, lock, pyproject). `bench/image_size.py
    --record` stores them beside the figures; `check` reports the record as stale when they move."""
    def compute() -> dict[str, str]:
        instructions = [(i.keyword, i.args, i.stage, [h.body for h in i.heredocs])
                        for i in model.dockerfile.instructions]
        return {"dockerfile": short_hash(instructions),
                "snapshot": "-".join(model_digest(model, k) for k in ("registry", "lock", "pyproject"))}

    # the image-size block and its check ask for the same model's
    return _MODEL_DIGESTS.answer(model, "input_digest", compute)
