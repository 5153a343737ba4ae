"""`Record`: the class syntax of `typing.NamedTuple` at half its start-up cost.

    class Block(Record):
        generator: str
        begin: int
        indent: str = ""

makes exactly what `typing.NamedTuple` makes (a `collections.namedtuple` class with the body's methods and
annotations on it: tuples, `_replace`, unpacking, equality), but without type-checking each annotation as
the class is created, and without importing `typing`. `docgen check` creates some sixty record classes on
every run; `typing.NamedTuple` spent about 100 us on each, `collections.namedtuple` about 45 us (a class of
six fields, the mean of 200). Annotations stay as the module wrote them: strings, as every docgen module
has `from __future__ import annotations`.
"""

from __future__ import annotations

from collections import namedtuple

# what a class body holds besides fields and methods; the namedtuple sets its own
_BOOKKEEPING = frozenset({"__module__", "__qualname__", "__annotations__", "__doc__", "__dict__", "__weakref__"})


class _RecordType(type):
    def __new__(mcls, name: str, bases: tuple, namespace: dict):
        if not bases:   # `Record` itself
            return super().__new__(mcls, name, bases, namespace)
        if bases != (Record,):
            raise TypeError(f"{name}: a record derives from Record alone")
        annotations = namespace.get("__annotations__", {})
        fields = list(annotations)
        defaults = []
        for field in fields:
            if field in namespace:
                defaults.append(namespace[field])
            elif defaults:
                raise TypeError(f"{name}: field {field!r} without a default follows one with a default")
        cls = namedtuple(name, fields, defaults=defaults or None, module=namespace.get("__module__"))
        cls.__qualname__ = namespace.get("__qualname__", name)
        cls.__annotations__ = annotations
        if namespace.get("__doc__"):
            cls.__doc__ = namespace["__doc__"]
        for key, value in namespace.items():
            if key not in _BOOKKEEPING and key not in annotations:
                setattr(cls, key, value)
        return cls


class Record(metaclass=_RecordType):
    """Base of docgen's immutable records; see the module's docstring."""

    __slots__ = ()


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
