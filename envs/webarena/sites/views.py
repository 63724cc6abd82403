"""Small view-model helpers the site modules share: links, tables, forms, pagers, sort menus.

Pages are rendered by one generic template (``page.html``) from plain dicts, so each site module
only decides what a page shows.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request

from .common import Pager, query_int


def link(text: Any, href: str) -> dict[str, Any]:
    """A table cell or fact value that links to ``href``."""
    return {"text": str(text), "href": href}


def table(columns: list[str], rows: list[list[Any]], caption: str = "") -> dict[str, Any]:
    """A table view model."""
    return {"columns": columns, "rows": rows, "caption": caption}


def field(name: str, label: str, type: str = "text", value: Any = "",
          options: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """A form field view model (``text``, ``textarea``, ``number``, ``select``, ``hidden``...)."""
    return {"name": name, "label": label, "type": type, "value": value, "options": options or []}


def form(action: str, submit: str, fields: list[dict[str, Any]], method: str = "post",
         label: str = "", id: str = "f") -> dict[str, Any]:
    """A form view model."""
    return {"action": action, "submit": submit, "fields": fields, "method": method,
            "label": label or submit, "id": id}


def with_params(request: Request, **changes: Any) -> str:
    """The request's URL path and query with ``changes`` applied (None removes a key)."""
    params = dict(request.query_params)
    for k, v in changes.items():
        if v is None:
            params.pop(k, None)
        else:
            params[k] = str(v)
    query = urlencode(params)
    return f"{request.url.path}?{query}" if query else request.url.path


def pager(request: Request, total: int, per_page: int = 20) -> Pager:
    """The pager of a listing from its ``page`` parameter (404 past the last page)."""
    return Pager(query_int(request, "page", 1, 1, 100000), total, per_page).check()


def pager_view(request: Request, p: Pager) -> dict[str, Any]:
    """What ``page.html`` needs to draw Previous/Next links."""
    base = with_params(request, page=None)
    base += "&" if "?" in base else "?"
    return {"page": p.page, "pages": p.pages, "base": base}


def sort_links(request: Request, key: str, options: dict[str, str],
               current: str) -> list[tuple[str, str, bool]]:
    """Links to the same listing sorted by each option (page reset to 1)."""
    return [(with_params(request, **{key: value, "page": None}), f"Sort by {label}",
             value == current) for value, label in options.items()]


def filter_links(request: Request, key: str, options: dict[str, str],
                 current: str) -> list[tuple[str, str, bool]]:
    """Links to the same listing filtered by each option (page reset to 1)."""
    return [(with_params(request, **{key: value, "page": None}), label, value == current)
            for value, label in options.items()]


def money(value: float) -> str:
    """``12.5`` -> ``$12.50``."""
    return f"${value:,.2f}"
