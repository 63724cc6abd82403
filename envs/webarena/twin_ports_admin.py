"""Official WebArena-Lite admin panel templates on the bundled panel's orders, invoices, sales
reports, search terms and themes (see :mod:`.twin_ports_shop` for the shape of a port)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date
from typing import Any

from .sites.data_shop import BRANDS
from .sites.shopping_admin_reports import REPORTS, TOP_TERMS, invoice_number, short_date
from .taskgen import Candidate, click, html_check, stop, type_, value_of
from .twin_ports_shop import A, Dbs, Port, port

TODAY = date(2023, 3, 15)
"""The day template 268's intent names."""
SPANS = {"for last month": (date(2023, 2, 1), date(2023, 2, 28)),
         "for last year": (date(2022, 1, 1), date(2022, 12, 31)),
         "for the year to date": (date(2023, 1, 1), TODAY),
         "for the first quarter of 2022": (date(2022, 1, 1), date(2022, 3, 31))}
"""Template 268's time spans, as seen from :data:`TODAY`."""
REPORT_WORDS = {"sales": "sales order report", "shipping": "shipping report",
                "invoiced": "sales invoice report", "refunded": "refunds report"}
RANGES = [(date(2022, 8, 5), date(2023, 3, 1)), (date(2022, 1, 1), date(2022, 6, 30)),
          (date(2023, 4, 15), date(2023, 9, 30)), (date(2022, 10, 1), date(2023, 1, 31))]
"""Template 271's date ranges."""


def _orders(dbs: Dbs) -> list[Any]:
    return dbs["shopping_admin"].execute(
        "SELECT o.*, c.first_name || ' ' || c.last_name AS customer FROM orders o JOIN "
        "customers c ON c.id = o.customer_id ORDER BY o.created DESC, o.id DESC").fetchall()


def order_attribute(dbs: Dbs) -> Iterator[Candidate]:
    """an attribute of the most recent (or oldest) order of a status, when one is (string)."""
    orders = _orders(dbs)
    attributes = {"date": lambda o: o["created"], "grand total": lambda o: f"{o['total']:,.2f}",
                  "customer name": lambda o: o["customer"], "order number": lambda o: o["number"]}
    for status in ("canceled", "pending", "processing", "complete"):
        mine = [o for o in orders if o["status"] == status]
        for which, ranked, sort in (("most recent", mine, None),
                                    ("oldest", mine[::-1], "Sort by Purchase Date (oldest)")):
            if len(ranked) > 1 and ranked[0]["created"] == ranked[1]["created"]:
                continue
            for attribute, get in attributes.items():
                value = get(ranked[0])
                steps = [click("Orders", "link"), click(status.title(), "link")]
                if sort:
                    steps.append(click(sort, "link"))
                yield port({"attribute": attribute, "status": f"{which} {status}"}, A, [
                    *steps, stop(value)], answers={"must_include": [value]})


def invoice_total(dbs: Dbs) -> Iterator[Candidate]:
    """the grand total of an invoice (string_match; invoices list and search)."""
    for o in _orders(dbs)[::-1]:
        if o["status"] == "complete":
            number = invoice_number(o["id"])
            total = f"{o['total']:,.2f}"
            yield port({"id": number}, A, [
                click("Invoices", "link"), type_("Invoice number", number, enter=True),
                stop(f"${total}")], answers={"must_include": [total]})


def _report(kind: str, start: str, end: str, first: date, last: date) -> Candidate:
    """Steps and checks of a report drawn from ``start`` to ``end`` (as typed)."""
    return {"expert": [click("Reports", "link"), click(REPORTS[kind], "link"),
                       type_("From", start), type_("To", end), click("Show Report", "button"),
                       stop()],
            "url": f"{A}/reports/report_sales/{kind}",
            "html": [html_check("last", value_of("sales_report-from"), exact=short_date(first)),
                     html_check("last", value_of("sales_report-to"), exact=short_date(last))]}


def relative_report(dbs: Dbs) -> Iterator[Candidate]:
    """a sales report over a span relative to a given day (url + program_html on its dates)."""
    for kind, words in REPORT_WORDS.items():
        for span, (first, last) in SPANS.items():
            r = _report(kind, short_date(first), short_date(last), first, last)
            yield port({"report": words, "time_span": span}, A, r["expert"], url=r["url"],
                       html=r["html"])


def dated_report(dbs: Dbs) -> Iterator[Candidate]:
    """a sales report between two dates (url + program_html on its dates)."""
    for kind in REPORTS:
        for first, last in RANGES:
            start, end = first.strftime("%m/%d/%Y"), last.strftime("%m/%d/%Y")
            r = _report(kind, start, end, first, last)
            yield port({"type": REPORT_WORDS[kind].removesuffix(" report"),
                        "start_date": start, "end_date": end}, A, r["expert"], url=r["url"],
                       html=r["html"])


def _terms(dbs: Dbs) -> list[Any]:
    return dbs["shopping_admin"].execute("SELECT * FROM search_terms ORDER BY hits DESC, query"
                                         ).fetchall()


def top_terms(dbs: Dbs) -> Iterator[Candidate]:
    """the n most used search terms (string_match; the search terms report)."""
    terms = _terms(dbs)
    for n in range(2, 9):
        if terms[n - 1]["hits"] == terms[n]["hits"]:
            continue
        top = [t["query"] for t in terms[:n]]
        yield port({"n": n}, A, [click("Reports", "link"), click("Search Terms", "link"),
                                 stop(", ".join(top))], answers={"must_include": top})


def top_brand(dbs: Dbs) -> Iterator[Candidate]:
    """the brand most frequent among the dashboard's top search terms, when one is (string)."""
    count = Counter(b for t in _terms(dbs)[:TOP_TERMS] for b in BRANDS
                    if b.lower() in t["query"].split())
    ranked = count.most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        yield port({}, A, [stop(ranked[0][0])], answers={"must_include": [ranked[0][0]]})


def preview_theme(dbs: Dbs) -> Iterator[Candidate]:
    """a storefront theme's page (url_match)."""
    for t in dbs["shopping_admin"].execute("SELECT * FROM themes ORDER BY id"):
        yield port({"name": t["title"]}, A, [click("Themes", "link"),
                                             click(t["title"], "link"), stop()],
                   url=f"{A}/themes/{t['id']}")


PORTS_ADMIN: dict[int, Port] = {
    366: order_attribute, 274: invoice_total, 268: relative_report, 271: dated_report,
    285: top_terms, 1001: top_brand, 266: preview_theme,
}
"""Official template id -> port."""
