"""docgen.records: Record builds what typing.NamedTuple builds; Memo answers once per record, by identity."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from docgen.records import Memo, Record


class Point(Record):
    """A point."""
    x: int
    y: int = 0
    label: str = ""

    def norm1(self) -> int:
        return abs(self.x) + abs(self.y)


class TypedPoint(NamedTuple):
    x: int
    y: int = 0
    label: str = ""


def test_a_record_is_the_named_tuple_typing_would_make():
    p = Point(3, -4)
    assert p == (3, -4, "") and p == TypedPoint(3, -4)
    assert Point._fields == TypedPoint._fields and Point._field_defaults == TypedPoint._field_defaults
    assert p._replace(label="a") == Point(3, -4, "a") and p.norm1() == 7
    x, y, label = p
    assert (x, y, label) == (3, -4, "")
    assert repr(p) == "Point(x=3, y=-4, label='')"
    assert Point.__doc__ == "A point." and Point.__module__ == __name__
    assert Point.__annotations__ == {"x": "int", "y": "int", "label": "str"}
    assert isinstance(p, tuple) and hash(p) == hash((3, -4, ""))
    with pytest.raises(AttributeError):
        p.x = 1


def test_a_field_without_default_after_one_with_default_is_refused():
    with pytest.raises(TypeError, match="without a default follows"):
        class Bad(Record):
            a: int = 0
            b: int


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
