"""The one circuit breaker (archive/runtime/breaker.py, #40 4): closed, open after its
threshold of failures in a row, half-open once its time is over; a success closes it."""
from __future__ import annotations

from archive.runtime.breaker import CLOSED, HALF_OPEN, OPEN, Breaker


def test_it_opens_at_its_threshold_and_a_failure_half_open_opens_it_as_long_again():
    b = Breaker()
    assert b.failed(0.0, threshold=3, seconds=10) is False
    assert b.failed(1.0, threshold=3, seconds=10) is False
    assert (b.state(1.0, threshold=3), b.allows(1.0)) == (CLOSED, True)
    assert b.failed(2.0, threshold=3, seconds=10) is True
    assert (b.state(11.9, threshold=3), b.allows(11.9)) == (OPEN, False)
    assert (b.state(12.0, threshold=3), b.allows(12.0)) == (HALF_OPEN, True)
    assert b.failed(12.0, threshold=3, seconds=10) is True  # the try failed: open again
    assert b.state(21.9, threshold=3) == OPEN and b.failed(13.0, threshold=3, seconds=10) is False
    b.succeeded()
    assert (b.failures, b.state(13.0, threshold=3), b.allows(13.0)) == (0, CLOSED, True)


def test_one_failure_opens_a_breaker_of_threshold_one():
    b = Breaker()
    assert b.failed(5.0, seconds=10) is True and b.state(5.0) == OPEN
    assert b.state(15.0) == HALF_OPEN
