"""The one stream driver: records and time points drive an engine the same way."""

from __future__ import annotations

import pytest

from ticker_py.errors import StreamError, UsageError
from ticker_py.stages.drive import Driver, Every, drive
from ticker_py.streams import Record, time_points


class Log:
    """A stand-in engine: records every call; ``evaluate`` returns (t, atoms appended so far)."""

    def __init__(self):
        self.calls, self.atoms = [], []

    def append(self, t, atoms):
        self.calls.append(("append", t, tuple(atoms)))
        self.atoms += atoms

    def evaluate(self, t):
        self.calls.append(("evaluate", t))
        return t, tuple(self.atoms)


RECORDS = [Record(0, (("a",),)), Record(0, (("a",), ("b",))), Record(3, (("c",),)), Record(3, (("d",),))]


@pytest.mark.parametrize("every", list(Every))
@pytest.mark.parametrize("until", [None, 5])
def test_time_points_drive_like_records(every, until):
    by_records, by_points = Log(), Log()
    out_records = list(drive(by_records, RECORDS, every, until))
    out_points = list(drive(by_points, time_points(RECORDS, until), every, until))
    assert out_records == out_points and by_records.calls == by_points.calls
    evaluated = [t for t, _ in out_records]
    if every is Every.TIME:
        assert evaluated == list(range((until or 3) + 1))
    else:  # after every new atom; an empty time point once
        assert evaluated == [0, 0, 1, 2, 3, 3] + ([4, 5] if until else [])
    assert out_records[-1][1] == (("a",), ("b",), ("c",), ("d",))  # duplicates count once


def test_an_error_evaluates_the_open_time_point_first():
    def records():
        yield Record(0, (("a",),))
        yield Record(1, (("b",),))
        raise StreamError.at(None, "bad record")

    got = []
    with pytest.raises(StreamError, match="bad record"):
        for result in drive(Log(), records()):
            got.append(result)
    assert got == [(0, (("a",),)), (1, (("a",), ("b",)))]


def test_driver_pushes_and_closes():
    log = Log()
    driver = Driver(log, "time", start=2)
    assert driver.push(2, [("a",)]) == [] and driver.touched
    assert driver.push(4, [("b",), ("b",)]) == [(2, (("a",),)), (3, (("a",),))]
    assert driver.close_open() == [(4, (("a",), ("b",)))] and driver.open == 5 and driver.evaluated == 3


def test_every_parses_time_and_signal_only():
    assert Every.parse("signal") is Every.SIGNAL and Every.parse(Every.TIME) is Every.TIME
    with pytest.raises(UsageError, match="unknown --every 'tick'"):
        Every.parse("tick")
