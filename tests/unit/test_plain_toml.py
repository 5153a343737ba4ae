"""docgen.plain_toml against tomllib: whatever the plain reader accepts, it reads exactly as tomllib does;
everything else it declines (None), valid TOML or not."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docgen.plain_toml import loads_plain

ROOT = Path(__file__).resolve().parents[2]


def same(a, b) -> bool:
    """Equal with types: True and 1 differ (json spells them differently)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_reads_this_repositorys_pyproject_exactly():
    text = (ROOT / "pyproject.toml").read_text()
    plain = loads_plain(text)
    assert plain is not None, "the repository's own configuration should stay plain"
    assert same(plain, tomllib.loads(text))
    assert plain["tool"]["docgen"]["pages"] == ["README.md", "docs/**/*.md"]


ACCEPTED = [
    "",
    "# only a comment\n\n",
    'a = "x"\nb = \'y\'\nc = 10\nd = -0\ne = true\nf = false\n',
    '[t]\nk = ["a", "b",]   # trailing comma\n',
    '[t]\nk = [\n  "a",  # one\n  # between\n  "b"\n]\n',
    '[ a . "b c" . \'d\' ]\nx = 1\r\n[a.e]\ny = []\n',
    '"" = 1\n"quoted key" = 2\n',
    'a = [[1, 2], ["x"], []]\n',
    '[a]\n[a.b]\n[a.c]\nx = "#not a comment"\n',
    "k = 'C:\\path\\to'\n",   # a literal string keeps backslashes
    'k = "tab\there"\n',
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_texts_read_as_tomllib_reads_them(text):
    plain = loads_plain(text)
    assert plain is not None
    assert same(plain, tomllib.loads(text))


DECLINED_VALID = [
    'a.b = 1\n',                       # dotted key
    'a = { b = 1 }\n',                 # inline table
    '[[a]]\nb = 1\n',                  # array of tables
    'a = """multi\nline"""\n',         # multi-line string
    "a = '''x'''\n",
    'a = "esc\\"aped"\n',              # escapes
    'a = 1.5\n', 'a = 1e3\n', 'a = 1_000\n', 'a = 0x1F\n', 'a = +1\n', 'a = inf\n',
    'a = 1979-05-27\n', 'a = 07:32:00\n',
    '[a.b]\n[a]\n',                    # a table implied first, defined later: valid, left to tomllib
    'a = 12345678901234567890\n',      # near the 64-bit limit
]


def test_deep_nesting_is_declined_without_recursing():
    assert loads_plain("a = " + "[" * 16 + "]" * 16 + "\n") == {"a": [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}
    assert loads_plain("a = " + "[" * 17 + "]" * 17 + "\n") is None
    assert loads_plain("a = " + "[" * 100_000 + "\n") is None


@pytest.mark.parametrize("text", DECLINED_VALID)
def test_valid_toml_outside_the_subset_is_declined(text):
    tomllib.loads(text)   # valid
    assert loads_plain(text) is None


INVALID = [
    'a = 1\na = 2\n', '[a]\n[a]\n', 'a = 1\n[a]\n', '[a]\nb = 1\n[a.b]\n', 'a = [1 2]\n', 'a = [1,,2]\n',
    'a = "x\n', 'a = truex\n', 'a = 01\n', 'a = -\n', 'a = \n', '= 1\n', 'a b = 1\n', 'a = 1 b = 2\n',
    '[a\n', '[a.]\n', '[]\n', 'a = "x"y\n', 'a = 1\rb = 2\n', 'a = 1 # bad \x01 comment\n',
    'a = "ctl\x01"\n', '\ufeffa = 1\n', 'a = [\n', 'a = 1,\n', 'a = 1]\n',
]


@pytest.mark.parametrize("text", INVALID)
def test_invalid_toml_is_declined_so_tomllib_reports_it(text):
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert loads_plain(text) is None


# -------------------------------------------------------------------------- generated documents
# Pieces in and out of the subset, valid and not, joined into documents: the reader must never accept a
# text tomllib rejects, nor read one differently.
_keys = st.one_of(st.sampled_from(["a", "b", "k-1", "x_y", "0", '"q k"', "'lit'", '""', "a.b", "é", "tool", "docgen"]),
                  st.text("ab_-.\"' ", min_size=0, max_size=4))
_scalars = st.one_of(
    st.sampled_from(['"s"', "'l'", '""', "1", "-3", "0", "01", "true", "false", "1.5", '"a\\nb"', "'''m'''",
                     "{x = 1}", "nan", "truex", '"#"', "1979-05-27"]),
    st.text("ab1\"'#\\ -.\t", min_size=0, max_size=5))
_values = st.recursive(_scalars, lambda inner: st.builds(
    lambda items, comma, nl: "[" + nl + ("," + nl).join(items) + ("," if comma else "") + nl + "]",
    st.lists(inner, max_size=3), st.booleans(), st.sampled_from(["", " ", "\n", " # c\n"])), max_leaves=6)
_lines = st.one_of(
    st.builds(lambda k, sp, v, c: f"{k}{sp}={sp}{v}{c}", _keys, st.sampled_from(["", " ", "\t"]), _values,
              st.sampled_from(["", "  # note", "#", " # \x01"])),
    st.builds(lambda ks, dbl: ("[[" if dbl else "[") + ".".join(ks) + ("]]" if dbl else "]"),
              st.lists(_keys, min_size=0, max_size=3), st.booleans()),
    st.sampled_from(["", "# comment", "   ", "\t# x"]),
    st.text("[]=.\"'#ab1 \t\r", max_size=6),
)
# and documents built mostly from plain pieces (keys and headers may still collide), so that many are accepted
_plain_keys = st.sampled_from(["a", "b", "c-d", "e_f", '"g h"', "'i'", "7"])
_plain_scalars = st.sampled_from(['"s"', "'l'", '""', "1", "-3", "0", "true", "false", '"é #"', "'C:\\x'"])
_plain_values = st.recursive(_plain_scalars, lambda inner: st.builds(
    lambda items, comma, nl: "[" + nl + ("," + nl).join(items) + ("," if comma and items else "") + nl + "]",
    st.lists(inner, max_size=3), st.booleans(), st.sampled_from(["", " ", "\n", " # c\n"])), max_leaves=5)
_plain_lines = st.one_of(
    st.builds(lambda k, v, c: f"{k} = {v}{c}", _plain_keys, _plain_values, st.sampled_from(["", "  # note"])),
    st.builds(lambda ks: "[" + ".".join(ks) + "]", st.lists(_plain_keys, min_size=1, max_size=3)),
    st.just(""),
)
_documents = st.builds(lambda lines, crlf: ("\r\n" if crlf else "\n").join(lines),
                       st.one_of(st.lists(_lines, max_size=8), st.lists(_plain_lines, min_size=1, max_size=10)),
                       st.booleans())


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents)
def test_generated_documents_never_read_differently(text):
    plain = loads_plain(text)
    if plain is None:
        return
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AssertionError(f"accepted what tomllib rejects ({exc}): {text!r}") from None
    assert same(plain, expected), text


def test_generated_documents_are_often_accepted():
    """The property above proves little if the generator rarely stays plain: count how often it does."""
    accepted = []

    @settings(max_examples=500, deadline=None, database=None, derandomize=True)
    @given(_documents)
    def count(text):
        plain = loads_plain(text)
        accepted.append(bool(plain))   # an empty result (blank lines, comments) proves little

    count()
    assert sum(accepted) >= len(accepted) // 5, f"{sum(accepted)} of {len(accepted)} generated documents accepted"
