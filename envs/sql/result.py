"""The result of one query, and how to show it to a model as a compact text table."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

__all__ = ["QueryResult", "format_value", "render_result"]


@dataclass(frozen=True)
class QueryResult:
    """Rows returned by one statement, capped by the executor's row and byte limits."""

    columns: tuple[str, ...]
    """Column names, as the engine reports them."""
    rows: tuple[tuple[Any, ...], ...]
    """The rows fetched, in the order the engine returned them."""
    truncated: bool = False
    """True when the statement had more rows than the caps let through."""
    elapsed_s: float = 0.0
    """Wall time spent executing and fetching, in seconds."""

    @property
    def width(self) -> int:
        """Number of columns."""
        return len(self.columns)

    def scalar(self) -> Any:
        """The single value of a one-row, one-column result (``None`` otherwise)."""
        if len(self.rows) == 1 and len(self.rows[0]) == 1:
            return self.rows[0][0]
        return None


def format_value(value: Any, max_cell: int = 40) -> str:
    """Text for one cell: ``NULL`` for None, floats without noise, long text cut with ``…``."""
    if value is None:
        text = "NULL"
    elif isinstance(value, float):
        text = f"{value:.10g}"
    elif isinstance(value, Decimal):
        text = f"{float(value):.10g}" if value != value.to_integral_value() else str(int(value))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        text = f"<blob {len(bytes(value))} bytes>"
    else:
        text = str(value)
    text = text.replace("\n", " ").replace("|", "/")
    if len(text) > max_cell:
        text = text[: max(max_cell - 1, 1)] + "…"
    return text


def render_result(
    result: QueryResult, *, max_rows: int = 20, max_chars: int = 2000, max_cell: int = 40
) -> str:
    """Format ``result`` as a ``|``-separated table the model can read.

    At most ``max_rows`` rows are shown and the text never exceeds ``max_chars`` characters; a
    last line says how many rows were left out (or that the executor truncated the result).
    """
    if not result.columns:
        return "(statement returned no columns)"
    header = [format_value(name, max_cell) for name in result.columns]
    body = [[format_value(v, max_cell) for v in row] for row in result.rows[:max_rows]]
    widths = [len(h) for h in header]
    for row in body:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=False)]

    def line(cells: list[str]) -> str:
        return " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)).rstrip()

    lines = [line(header), "-+-".join("-" * w for w in widths)]
    shown = 0
    budget = max_chars - sum(len(x) + 1 for x in lines) - 60  # keep room for the footer
    for row in body:
        text = line(row)
        if len(text) + 1 > budget:
            break
        lines.append(text)
        budget -= len(text) + 1
        shown += 1
    total = len(result.rows)
    if total == 0:
        lines.append("(0 rows)")
    elif shown < total or result.truncated:
        more = "more than " if result.truncated else ""
        lines.append(f"({shown} of {more}{total} rows shown)")
    else:
        lines.append(f"({total} row{'s' if total != 1 else ''})")
    return "\n".join(lines)[:max_chars]
