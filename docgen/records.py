"""`Memo`: answers derived from immutable records, kept per record.

Record types are `typing.NamedTuple` classes: a tuple has no room of its own to keep an answer, so a module
that asks the same question of a model, snapshot or lock many times in a run keeps the answers in a Memo.
"""

from __future__ import annotations


class Memo:
    """Answers derived from immutable records, kept per record (by identity, never equality) for the last
    few records asked about: a run asks the same snapshot or model the same question dozens of times, and a
    record, being a tuple, has nowhere of its own to keep the answer. `docgen diff` holds two of each."""

    def __init__(self, keep: int = 4) -> None:
        self._keep = keep
        self._held: list[tuple[object, dict]] = []   # (record, its answers), most recent first

    def answer(self, record: object, question: object, compute):
        for held, answers in self._held:
            if held is record:
                break
        else:
            answers = {}
            self._held.insert(0, (record, answers))
            del self._held[self._keep:]
        if question not in answers:
            answers[question] = compute()
        return answers[question]
