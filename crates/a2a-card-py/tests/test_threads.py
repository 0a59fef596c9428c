"""Threads: verification releases the GIL (another Python thread runs while a card is being
verified), a Verifier shared by many threads gives every thread the same reports, and hostile
values (deep nesting, huge numbers, odd dict keys) are refused without crashing the process."""

from __future__ import annotations

import json
import threading
import time
from typing import List, Tuple

import pytest

import a2a_card


def _samples_inside(calls: List[Tuple[float, float]], samples: List[float]) -> int:
    """How many of the main thread's timestamps fall well inside one of the calls: away from
    both ends by more than the few switch intervals (5 ms each) in which this thread may run
    between a timestamp of the other thread and its entering or leaving the call."""
    inside = 0
    for enter, leave in calls:
        margin = max(0.02, 0.15 * (leave - enter))
        inside += sum(1 for t in samples if enter + margin < t < leave - margin)
    return inside


def _run_beside(work) -> Tuple[List[Tuple[float, float]], List[float]]:  # type: ignore[no-untyped-def]
    """Runs `work(calls)` on a thread (it appends (enter, leave) around each call it makes) while
    this thread records timestamps as fast as it can; both lists."""
    calls: List[Tuple[float, float]] = []
    samples: List[float] = []
    thread = threading.Thread(target=work, args=(calls,))
    thread.start()
    while thread.is_alive():
        samples.append(time.perf_counter())
    thread.join()
    return calls, samples


def test_the_detector_sees_a_call_that_holds_the_gil() -> None:
    """The check below can fail: a call that holds the GIL (a regular expression backtracking in
    C) leaves this thread no timestamp inside it."""
    import re

    pattern, text = re.compile(r"(a+)+$"), "a" * 23 + "b"

    def work(calls: List[Tuple[float, float]]) -> None:
        enter = time.perf_counter()
        pattern.match(text)
        calls.append((enter, time.perf_counter()))

    calls, samples = _run_beside(work)
    assert calls[0][1] - calls[0][0] > 0.1
    assert _samples_inside(calls, samples) == 0


def test_verify_releases_the_gil() -> None:
    kp = a2a_card.keygen("ES256")
    big = json.dumps({"name": "A", "description": "x" * (40 << 20), "skills": []})
    signed = a2a_card.sign(big, kp, max_input_bytes=64 << 20).encode()
    verifier = a2a_card.Verifier(keys=kp, max_input_bytes=64 << 20)

    def work(calls: List[Tuple[float, float]]) -> None:
        for _ in range(3):
            enter = time.perf_counter()
            assert verifier.verify(signed).ok
            calls.append((enter, time.perf_counter()))

    calls, samples = _run_beside(work)
    longest = max(leave - enter for enter, leave in calls)
    assert longest > 0.05, f"the card verifies too fast ({longest * 1e3:.1f} ms) to show anything"
    # With the GIL held through a call, this thread could run no bytecode inside it.
    assert _samples_inside(calls, samples) > 0


def test_verify_many_releases_the_gil() -> None:
    kp = a2a_card.keygen("EdDSA")
    cards = [a2a_card.sign({"name": f"a{i}", "skills": []}, kp).encode() for i in range(5000)]

    def work(calls: List[Tuple[float, float]]) -> None:
        enter = time.perf_counter()
        reports = a2a_card.verify_many(cards, keys=kp, threads=1)
        calls.append((enter, time.perf_counter()))
        assert all(r.ok for r in reports)

    calls, samples = _run_beside(work)
    assert calls[0][1] - calls[0][0] > 0.05
    assert _samples_inside(calls, samples) > 0


def test_a_verifier_shared_by_threads() -> None:
    kp = a2a_card.keygen("ES256")
    verifier = a2a_card.Verifier(keys=kp)
    cards = [a2a_card.sign({"name": f"a{i}", "skills": []}, kp) for i in range(40)]
    cards[7] = cards[7].replace('"a7"', '"b7"')
    want = [verifier.verify(c).to_json() for c in cards]
    results: List[List[str]] = []
    errors: List[BaseException] = []

    def work() -> None:
        try:
            results.append([verifier.verify(c).to_json() for c in cards])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and results == [want] * 8


@pytest.mark.parametrize(
    "value,cls",
    [
        ({(1, 2): "tuple key"}, a2a_card.UsageError),
        ({"name": 2**80}, a2a_card.CardError),
        ({"name": 1e308 * 10}, a2a_card.UsageError),
    ],
)
def test_hostile_values(value: object, cls: type) -> None:
    with pytest.raises(cls):
        a2a_card.canonicalize(value)  # type: ignore[arg-type]


def test_a_dict_nested_deeper_than_python_can_write() -> None:
    deep: dict = {}
    node = deep
    for _ in range(100_000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(a2a_card.UsageError, match="cannot be written as JSON"):
        a2a_card.canonicalize(deep)
    text = '{"a":' * 100_000 + "1" + "}" * 100_000
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.verify(text, keys=a2a_card.keygen("EdDSA"))
    assert e.value.code == "nesting-too-deep"


def test_a_large_card_is_refused_at_the_limit() -> None:
    big = '{"name":"' + "x" * (9 << 20) + '"}'
    with pytest.raises(a2a_card.CardError) as e:
        a2a_card.verify(big, keys=a2a_card.keygen("EdDSA"))
    assert e.value.code == "input-too-large"
    assert a2a_card.canonicalize(big, max_input_bytes=10 << 20).startswith('{"name":"xxx')
