"""The plain-data codec: every plain value round-trips; nothing else is read back."""

from __future__ import annotations

import math

import pytest

from agentgym.envs.code.plain import MAX_TEXT, PlainDataError, decode, encode

VALUES = [
    None, True, False, 0, -7, 2**200, 1.5, -0.0, 1e-300, 3j, (1 - 2j), "", "a\nb'\"", "é\ud800",
    b"\x00\xff", [], (), {}, set(), frozenset(), [1, [2, (3,)]], (1,), {"a": [1, 2], 3: None},
    {(1, 2): frozenset({1, 2})}, {1, "x", (2, 3)}, [math.inf, -math.inf],
]  # fmt: skip


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_plain_values_round_trip_with_their_types(value: object) -> None:
    back = decode(encode(value))
    assert back == value and ascii(back) == ascii(value) and type(back) is type(value)


def test_nan_reads_back_as_nan() -> None:
    assert math.isnan(decode(encode(math.nan)))


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True


STR_SUBCLASS = type("S", (str,), {})


@pytest.mark.parametrize(
    "value", [AlwaysEqual(), [AlwaysEqual()], {"k": AlwaysEqual()}, object(), STR_SUBCLASS("x")]
)
def test_encode_refuses_anything_but_plain_data(value: object) -> None:
    with pytest.raises(PlainDataError):
        encode(value)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "{'a': 1}",
        "(1, 2)",
        "NaN",
        "Infinity",
        '{"$t": [1], "extra": 2}',
        '{"$eval": "1"}',
        '{"$t": "abc"}',
        '{"$s": [[1]]}',
        '{"$d": [[[1], 2]]}',
        '{"$d": [[1]]}',
        '{"$b": "zz"}',
        '{"$c": [true, 1]}',
        '{"$x": "1e999"}',
        "[1, 2",
        "",
        "9" * 5000,
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_decode_refuses_anything_but_the_wire_form(text: str) -> None:
    with pytest.raises(PlainDataError):
        decode(text)


def test_the_wire_form_is_json_with_tags() -> None:
    assert encode([1, "a", None, True]) == '[1, "a", null, true]'
    assert encode((1, {2: b"\x01"}, {"$k": 1.0})) == (
        '{"$t": [1, {"$d": [[2, {"$b": "01"}]]}, {"$d": [["$k", 1.0]]}]}'
    )
    with pytest.raises(PlainDataError):
        encode(10**5000)


def test_decode_refuses_oversized_text() -> None:
    with pytest.raises(PlainDataError, match="longer than"):
        decode(" " * (MAX_TEXT + 1))
