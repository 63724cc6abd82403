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
        "open('/etc/passwd')",
        "x",
        "True.__class__",
        "[1] * 10**9",
        "10**10**10",
        "lambda: 1",
        "(i for i in range(3))",
        "{**{}}",
        "set(1)",
        "frozenset('abc', x=1)",
        "-'a'",
        "1 + 2",
        "[1, 2",
        "",
        "'a' 'b' if 1 else 2",
        "{[1]: 2}",
        "{[1]}",
        "9" * 5000,
        "[" * 100_000,
        "Ellipsis",
        "...",
    ],
)
def test_decode_refuses_anything_but_a_plain_literal(text: str) -> None:
    with pytest.raises(PlainDataError):
        decode(text)


def test_decode_refuses_oversized_text() -> None:
    with pytest.raises(PlainDataError, match="longer than"):
        decode(" " * (MAX_TEXT + 1))
