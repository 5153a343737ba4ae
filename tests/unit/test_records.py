"""docgen.records.Memo answers once per record, by identity, and keeps only the last few records."""

from __future__ import annotations

from typing import NamedTuple

from docgen.records import Memo


class Point(NamedTuple):
    x: int
    y: int = 0


def test_memo_answers_once_per_record_by_identity_and_keeps_a_few():
    memo, calls = Memo(keep=2), []

    def answer(record, question):
        return memo.answer(record, question, lambda: calls.append((record, question)) or len(calls))

    a, b, c = Point(1), Point(1), Point(2)     # a == b, but they are different records
    assert answer(a, "q") == answer(a, "q") == 1
    assert answer(b, "q") == 2                  # equal is not the same: answered again
    assert answer(a, "other") == 3
    answer(c, "q")                              # a third record: the oldest (a) is forgotten
    assert answer(b, "q") == 2
    assert answer(a, "q") == 5
