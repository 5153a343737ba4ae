"""Package, extra and group names as uv.lock writes them (PEP 503 normalisation, PEP 685 for extras)."""

import re

_SEPARATORS = re.compile(r"[-_.]+")


# Small counts as prose spells them: the Dockerfile's count comments and the docs' values share this list.
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()


_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# A number written in words, up to ninety-nine ("thirty-one"): the one grammar the count comments, the prose lint
# and the mentions read numbers with.
NUMBER_WORD_PATTERN = ("(?:" + "|".join(_TENS) + ")(?:-(?:" + "|".join(NUMBER_WORDS[1:10]) + "))?|"
                       + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)))


def number_value(word: str) -> int | None:
    """"nine" -> 9, "thirty-one" -> 31, "12" -> 12; None for anything else."""
    word = word.lower()
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    tens, _, unit = word.partition("-")
    if tens in _TENS and (not unit or unit in NUMBER_WORDS[1:10]):
        return 20 + 10 * _TENS.index(tens) + (NUMBER_WORDS.index(unit) if unit else 0)
    return None


def normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()
