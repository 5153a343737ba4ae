"""Issue 27, part 7: cases written before the design, half of them set aside by a fixed rule.

THE HOLD-OUT RULE (fixed before any case was written; it is not to be changed afterwards):

    Within each kind (mutations; planted sentences), sort the cases by (date, id), both as strings.
    Number them from 1 in that order. Odd positions (1st, 3rd, 5th, ...) are the development set;
    even positions (2nd, 4th, 6th, ...) are held out.

`split` below is the rule as code; the dev and held-out modules are its output, written out by hand and
checked against it by `tests/test_generalise.py`, so a case cannot change sides without the test saying so.
A history case's date is the upstream commit's date (YYYY-MM-DD); a maintainer edit's date is an ordinal
"m-NNN" in the order the edits were written, and planted sentences are dated "p-NNN" the same way.

The held-out half is run once, before and after the design; whoever builds the design does not read it.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")


def split(cases: Sequence[T]) -> tuple[list[T], list[T]]:
    """(development, held out) by the rule above; a case is anything with `date` and `id` attributes."""
    ordered = sorted(cases, key=lambda c: (c.date, c.id))
    return ordered[0::2], ordered[1::2]
