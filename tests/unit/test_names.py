"""The number and count grammar prose is read with (docgen/names.py)."""

from __future__ import annotations

from docgen.names import COUNT, SHARE, number_value


def test_a_count_spelled_as_a_phrase_is_read_as_its_number():
    """"half a dozen actors", "a pair of filters": the count grammar reads them as 6 and 2, so a count typed by hand
    in those words is found like "six actors" (the prose lint), its words wrapping onto the next line too."""
    found = [(m.group(1), number_value(m.group(1)), m.group(3)) for m in COUNT.finditer(
        "half a dozen actors share it; a pair of prefetch filters; a\ndozen venvs")]
    assert [(n, v) for _, v, n in found] == [("actors", 6), ("filters", 2), ("venvs", 12)]


def test_a_share_of_a_counted_set_is_read_with_its_noun():
    """"most of the registry's actors", "all but one venv": the noun of the set a share speaks of; a share of
    no counted thing is none, and "both" points at two things just named, not at a share of a set."""
    found = [m.group(3) for m in SHARE.finditer("most of the registry's actors; all but one venv; both stages; "
                                               "none of the prefetch filters; most people; half the time")]
    assert found == ["actors", "venv", "filters"]
