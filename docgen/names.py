"""Package, extra and group names as uv.lock writes them (PEP 503 normalisation, PEP 685 for extras)."""

import re

_SEPARATORS = re.compile(r"[-_.]+")


# Small counts as prose spells them: the Dockerfile's count comments and the docs' values share this list.
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()


def normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()
