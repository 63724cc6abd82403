"""The admin panel's reports and documents: invoices, sales reports over a date range, the search
terms report and the storefront themes. Every page needs the admin login.

Invoices are those of complete orders (one each, numbered after the order id). A report's date
fields accept ``M/D/YY``, ``M/D/YYYY`` or ``YYYY-MM-DD`` and show the dates back as ``M/D/YY``;
a date they cannot read is said on the page, and no report is drawn."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import Pages, Site, path_int, query_text, require_user
from .views import field, form, link, money, pager, pager_view, table

REPORTS = {"sales": "Sales Orders", "shipping": "Shipping", "invoiced": "Invoiced",
           "refunded": "Refunds"}
"""Report path -> its name; each counts the orders of :data:`_REPORT_STATUS` placed in range."""
_REPORT_STATUS = {"sales": ("pending", "processing", "complete"), "shipping": ("complete",),
                  "invoiced": ("complete",), "refunded": ("canceled",)}
TOP_TERMS = 5
"""Search terms the dashboard lists."""


def invoice_number(order_id: int) -> str:
    """The invoice number of an order: its id on nine digits."""
    return f"{order_id:09d}"


def parse_date(text: str) -> date | None:
    """``M/D/YY``, ``M/D/YYYY`` or ``YYYY-MM-DD`` as a date; None when it is none of these."""
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})", text)
    iso = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", text)
    try:
        if m:
            year = int(m.group(3))
            return date(year + 2000 if year < 100 else year, int(m.group(1)), int(m.group(2)))
        if iso:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
    except ValueError:
        return None
    return None


def short_date(d: date) -> str:
    """``date(2023, 2, 1)`` -> ``2/1/23``."""
    return f"{d.month}/{d.day}/{d.year % 100:02d}"


def top_terms_section(conn: Any) -> dict[str, Any]:
    """The dashboard's "Top Search Terms" section."""
    rows = conn.execute("SELECT * FROM search_terms ORDER BY hits DESC, query LIMIT ?",
                        (TOP_TERMS,)).fetchall()
    return {"heading": "Top Search Terms", "table": table(["Search Term", "Results", "Uses"], [
        [r["query"], r["results"], r["hits"]] for r in rows])}


def report_pages(site: Site) -> Pages:
    """The report, invoice and theme pages' endpoints by name."""

    def page(request: Request, **ctx: Any) -> Response:
        return site.render(request, "page.html", **ctx)

    async def invoices(request: Request) -> Response:
        require_user(request, site.name)
        q = query_text(request, "q", max_len=20)
        where, args = "o.status = 'complete'", ()  # type: tuple[str, tuple[Any, ...]]
        if q:  # an invoice number: the order id, zero-padded
            where, args = ("o.status = 'complete' AND o.id = ?", (int(q),)) if q.isdigit() \
                else ("0", ())
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM orders o WHERE {where}",
                                 args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(
                "SELECT o.*, c.first_name || ' ' || c.last_name AS customer FROM orders o JOIN "
                f"customers c ON c.id = o.customer_id WHERE {where} ORDER BY o.id LIMIT ? "
                "OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        return page(request, title="Invoices", intro=f"{total} records found", sections=[
            {"heading": "Find an invoice", "forms": [form("/sales/invoice", "Search", [
                field("q", "Invoice number", value=q)],
                method="get", id="invoice")]},
            {"heading": "Invoices", "table": table(
                ["Invoice", "Invoice Date", "Order #", "Bill-to Name", "Grand Total"],
                [[link(invoice_number(r["id"]), f"/sales/invoice/{r['id']}"), r["created"],
                  link(r["number"], f"/orders/{r['id']}"), r["customer"], money(r["total"])]
                 for r in rows])}], pager=pager_view(request, p))

    async def invoice(request: Request) -> Response:
        require_user(request, site.name)
        oid = path_int(request, "oid")
        with site.db(request) as conn:
            o = conn.execute("SELECT o.*, c.first_name || ' ' || c.last_name AS customer FROM "
                             "orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ? "
                             "AND o.status = 'complete'", (oid,)).fetchone()
        if o is None:
            raise HTTPException(404, "no such invoice")
        return page(request, title=f"Invoice # {invoice_number(oid)}", facts=[
            ("Order #", link(o["number"], f"/orders/{oid}")), ("Invoice Date", o["created"]),
            ("Bill-to Name", o["customer"]), ("Grand Total", money(o["total"]))])

    async def reports(request: Request) -> Response:
        require_user(request, site.name)
        return page(request, title="Reports", sections=[
            {"heading": "Sales", "links": [(f"/reports/report_sales/{k}", v, False)
                                           for k, v in REPORTS.items()]},
            {"heading": "Marketing", "links": [("/reports/search_terms", "Search Terms",
                                                False)]}])

    async def report(request: Request) -> Response:
        require_user(request, site.name)
        kind = str(request.path_params["kind"])
        if kind not in REPORTS:
            raise HTTPException(404, "no such report")
        raw = {k: query_text(request, k, max_len=20) for k in ("from", "to")}
        dates = {k: parse_date(v) for k, v in raw.items()}
        shown = {k: short_date(d) if d else raw[k] for k, d in dates.items()}
        sections: list[dict[str, Any]] = [{"heading": "Filter", "forms": [form(
            f"/reports/report_sales/{kind}", "Show Report", [
                field("from", "From", value=shown["from"]), field("to", "To", value=shown["to"])],
            method="get", id="sales_report")]}]
        start, end = dates["from"], dates["to"]
        if any(raw.values()) and (start is None or end is None):
            sections.append({"heading": "Error", "text": "Dates must look like 2/1/23."})
        elif start and end:
            statuses = _REPORT_STATUS[kind]
            with site.db(request) as conn:
                rows = conn.execute(
                    "SELECT substr(created, 1, 7) AS period, COUNT(*) AS n, SUM(total) AS s FROM "
                    f"orders WHERE status IN ({','.join('?' * len(statuses))}) AND created "
                    "BETWEEN ? AND ? GROUP BY period ORDER BY period",
                    (*statuses, start.isoformat(), end.isoformat())).fetchall()
            sections.append({"heading": "Report", "table": table(
                ["Interval", "Orders", "Total"],
                [[r["period"], r["n"], money(r["s"])] for r in rows])})
        return page(request, title=f"{REPORTS[kind]} Report", sections=sections)

    async def search_terms(request: Request) -> Response:
        require_user(request, site.name)
        with site.db(request) as conn:
            rows = conn.execute("SELECT * FROM search_terms ORDER BY hits DESC, query"
                                ).fetchall()
        return page(request, title="Search Terms Report", sections=[
            {"heading": "Search Terms", "table": table(["Search Query", "Results", "Hits"], [
                [r["query"], r["results"], r["hits"]] for r in rows])}])

    async def themes(request: Request) -> Response:
        require_user(request, site.name)
        with site.db(request) as conn:
            rows = conn.execute("SELECT * FROM themes ORDER BY id").fetchall()
        return page(request, title="Themes", sections=[
            {"heading": "Themes", "table": table(["Theme Title", "Parent Theme", "Theme Path"], [
                [link(r["title"], f"/themes/{r['id']}"), r["parent"], r["path"]]
                for r in rows])}])

    async def theme(request: Request) -> Response:
        require_user(request, site.name)
        tid = path_int(request, "tid")
        with site.db(request) as conn:
            r = conn.execute("SELECT * FROM themes WHERE id = ?", (tid,)).fetchone()
        if r is None:
            raise HTTPException(404, "no such theme")
        return page(request, title=f"Theme: {r['title']}", facts=[
            ("Theme Title", r["title"]), ("Parent Theme", r["parent"] or "none"),
            ("Theme Path", r["path"])])

    return {"invoices": invoices, "invoice": invoice, "reports": reports, "report": report,
            "search_terms": search_terms, "themes": themes, "theme": theme}
