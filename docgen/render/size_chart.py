"""Size by layer and by venv as mermaid bar charts, from the image-size record (bench/image_size.py).

The record names the image it measured and the inputs it was built from (`inputs`, see
docgen.model.digests.input_digest); the image-size block says when those inputs have moved since
(`not_current_note`). That is a note, not a finding: figures measured from a built image are not derived
from the inputs, so a change to the Dockerfile or the snapshot never fails `docgen check` over them.
"""

from __future__ import annotations

from math import floor, log10
from typing import TYPE_CHECKING

from docgen.model.digests import input_digest
from docgen.render.markdown import literal, table

if TYPE_CHECKING:
    from docgen.model import ImageModel

# the value axis reaches this far past the longest bar, so the value printed at the bar's end fits the chart
LABEL_ROOM = 1.2


def _axis_top(top: float) -> str:
    """The value axis runs from zero (a bar's length is its size) to a round number at or above the largest bar."""
    step = 10.0 ** floor(log10(top))
    nice = next(n for n in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if top <= n * step * (1 + 1e-9))
    return f"{nice * step:.6g}"


def _chart(title: str, unit: str, what: str, bars: list[tuple[str, float]]) -> str:
    """A zero-based bar chart whose bars are numbered, and a table under it with each number's full name and
    size: mermaid cuts long labels off at a narrow chart's edge, and a table of names never does. A name
    is shown whole and character for character (`literal`)."""
    digits = 3 if unit == "MB" else 1
    numbers = ", ".join(f'"{n}"' for n in range(1, len(bars) + 1))
    values = ", ".join(f"{size:.{digits}f}" for _, size in bars)
    top = max((size for _, size in bars), default=0) or 1
    chart = ("```mermaid\nxychart-beta horizontal\n"
             f'    title "{title} ({unit})"\n    x-axis [{numbers}]\n'
             f'    y-axis "{unit}" 0 --> {_axis_top(top * LABEL_ROOM)}\n    bar [{values}]\n```\n')
    rows = [(n, literal(name), f"{size:.{digits}f}") for n, (name, size) in enumerate(bars, 1)]
    return chart + "\n" + table(("#", what, unit), rows)


def _venv_name(path: str) -> str:
    leaf = path.rstrip("/").rsplit("/", 1)[-1]
    return leaf.rsplit(".", 1)[-1] if "." in leaf else leaf


def size_charts(model: "ImageModel", measurement: dict, image: str, provenance: bool = True) -> str:
    """The two charts of one measurement, titled with the image they measured (`image`: which one, in the
    reader's words), and, with `provenance`, a sentence tying them to the image ID and the inputs; empty
    when the measurement has neither layers nor venvs."""
    # layers in MB: kB tick labels of a 200 MB image run into each other at the page's width
    layers = [(str(l["step"]), l["bytes"] / 1e6) for l in measurement.get("layers") or () if l.get("bytes")]
    venvs = sorted(((_venv_name(p), b / 1e3) for p, b in (measurement.get("venvs") or {}).items()),
                   key=lambda item: (-item[1], item[0]))
    if not layers and not venvs:
        return ""
    out = []
    if layers:
        out.append("Size by layer, in build order (layers that add nothing left out):\n\n"
                   + _chart(f"{image}: layers", "MB", "Dockerfile step", layers))
    if venvs:
        out.append("Size by venv (`du`: a venv that links into the uv cache counts only its links):\n\n"
                   + _chart(f"{image}: venvs", "kB", "venv", venvs))
    if provenance:
        inputs = measurement.get("inputs") or {}
        image_id = measurement.get("image_id", "an unrecorded image ID")
        built_from = ", ".join(f"{k} `{v}`" for k, v in sorted(inputs.items())) or "unrecorded inputs"
        out.append(f"Measured on image `{image_id}`, built from {built_from}.\n")
    return "\n".join(out)


_INPUT_TITLES = {"dockerfile": "Dockerfile", "snapshot": "NeMo-RL snapshot"}


def not_current_note(model: "ImageModel", measurement: dict) -> str:
    """A quoted note when the record was measured from other inputs than the model's (or names none); empty
    when it describes them. Its text depends only on the record and the model, so `write` renders it once
    and `check` agrees with it afterwards."""
    now = input_digest(model)
    measured = measurement.get("inputs")
    if not isinstance(measured, dict):
        return ("> **Not current:** the record names no inputs it was measured from, so nothing ties these "
                "figures to the Dockerfile and snapshot these pages describe.\n\n")
    moved = [k for k in now if measured.get(k) != now[k]]
    if not moved:
        return ""
    was = " and ".join(_INPUT_TITLES.get(k, k) for k in moved)
    date = measurement.get("measured_at") or "an unrecorded date"
    commit = measurement.get("commit")
    at = f"commit `{commit[:12]}`" if isinstance(commit, str) and commit else "a commit the record does not name"
    return (f"> **Not current:** these figures were measured on {date} at {at}, from an earlier {was}; "
            f"{'it has' if len(moved) == 1 else 'both have'} changed since, so they describe the image as it was "
            "then. "
            "The docs workflow measures the image it builds (`bench/image_size.py --record`) and publishes "
            "the site with those figures.\n\n")
