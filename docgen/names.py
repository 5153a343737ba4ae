"""Package, extra and group names as uv.lock writes them (PEP 503 normalisation, PEP 685 for extras)."""

import re

_SEPARATORS = re.compile(r"[-_.]+")


# Small counts as prose spells them: the Dockerfile's count comments and the docs' values share this list.
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()


_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
# Counts prose spells as a phrase ("half a dozen venvs", "a pair of filters")
_NUMBER_PHRASES = {"half a dozen": 6, "a dozen": 12, "a pair of": 2, "a couple of": 2}
# A number written in words, up to ninety-nine ("thirty-one"), or one of those phrases: the one grammar the
# count comments, the prose lint and the mentions read numbers with.
NUMBER_WORD_PATTERN = ("|".join(p.replace(" ", r"\s+") for p in _NUMBER_PHRASES) + "|(?:" + "|".join(_TENS) + ")(?:-(?:"
                       + "|".join(NUMBER_WORDS[1:10]) + "))?|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)))


def number_value(word: str) -> int | None:
    """"nine" -> 9, "thirty-one" -> 31, "12" -> 12; None for anything else."""
    word = " ".join(word.lower().split())
    if word in _NUMBER_PHRASES:
        return _NUMBER_PHRASES[word]
    if word.isdigit():
        return int(word)
    if word in NUMBER_WORDS:
        return NUMBER_WORDS.index(word)
    tens, _, unit = word.partition("-")
    if tens in _TENS and (not unit or unit in NUMBER_WORDS[1:10]):
        return 20 + 10 * _TENS.index(tens) + (NUMBER_WORDS.index(unit) if unit else 0)
    return None


# A count as prose states it, matched against lower-cased text: a number, up to two words, and a noun that
# counts something of the image ("nine venvs", "8 prefetch filters", "three\nwarm steps": its words may wrap
# onto the next line, not across a paragraph). "one" is left out: "one venv per actor" states a rule.
_COUNT_NUMBER = r"\d+|(?!one\b)(?:" + NUMBER_WORD_PATTERN + ")"
_COUNT_NOUN = ("venvs?|filters?|extras?|actors?|workers?|stages?|warm[- ]steps?|steps?|syncs?|builds?|backends?|"
               "interpreters?|copies|wrappers?|executables?|consumers?|environments?")
_BLANKS = r"(?=\s)[ \t]*\n?[ \t]*"
COUNT = re.compile(rf"\b({_COUNT_NUMBER}){_BLANKS}((?:[a-z][\w-]*{_BLANKS}){{0,2}})({_COUNT_NOUN})\b")
# A share of a counted set ("most of the registry's actors", "all but one venv", "half the filters"): no number
# to compare, but it speaks of that set's count, which the mentions tie it to. Not "both": it points at two
# things just named ("both extras resolve to the same TE"), not at a share of all of them.
SHARE = re.compile(rf"\b(most|none|half|(?:a\s+)?(?:majority|minority)|all\s+but\s+(?:{_COUNT_NUMBER}|one))"
                   rf"(?:\s+of)?{_BLANKS}((?:[a-z][\w'-]*{_BLANKS}){{0,3}})({_COUNT_NOUN})\b")
# A count whose noun is a pronoun ("eight of them", "9 of these"): it counts what the text before it last named
# with a count noun (`antecedent`).
PRONOUN_COUNT = re.compile(rf"\b({_COUNT_NUMBER}){_BLANKS}of{_BLANKS}(?:them|these|those)\b")
_ANY_COUNT_NOUN = re.compile(rf"\b({_COUNT_NOUN})\b")
# A number word standing alone (not "-nine"), "one" left out as above.
NUMBER_WORD = re.compile(r"(?<![\w-])(?!one\b)(?:" + NUMBER_WORD_PATTERN + r")(?![\w-])")

# A count noun (singular) -> the counts it may be, by value key without ".count" (docgen/render/values.py), the
# one it most often means first: the prose lint, the mentions and the Dockerfile's count statements read nouns
# with this table.
COUNT_NOUNS: dict[str, tuple[str, ...]] = {
    "venv": ("venvs", "vllm_copies"), "filter": ("filters",), "extra": ("warm_extras", "extras", "extras_not_warmed"),
    "actor": ("actors", "uv_actors", "system_actors", "not_prefetched"),
    "worker": ("actors", "uv_actors", "not_prefetched", "venvs"), "stage": ("stages",),
    "warm step": ("warm_steps",), "step": ("warm_steps",), "sync": ("warm_steps",),
    "build": ("shared_builds",), "copy": ("vllm_copies",), "executable": ("py_executables",),
    "wrapper": ("venvs",), "interpreter": ("venvs",), "environment": ("venvs",), "backend": ("warm_extras",),
    "consumer": ("te_consumers",),
}


def singular(noun: str) -> str:
    """A noun's singular, lower case, a hyphen read as a blank: "Venvs" -> "venv", "copies" -> "copy",
    "warm-steps" -> "warm step"; a word of three letters or fewer stays as it is ("gbs")."""
    noun = noun.lower().replace("-", " ")
    if len(noun) <= 3 or not noun.endswith("s"):
        return noun
    return noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]


def antecedent(before: str) -> str | None:
    """The count noun (singular) a pronoun written after `before` stands for: the last one `before` holds."""
    nouns = _ANY_COUNT_NOUN.findall(before.lower())
    return singular(nouns[-1]) if nouns else None


def normalize(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()
