"""Official WebArena-Lite templates of the admin panel's reports and figures, on the bundled
data: bestsellers and items sold, sales reports over named or dated periods, top search terms
and brands, reviews with a term or in a month, monthly completed orders and payment
differences (see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

import calendar
from collections import Counter
from collections.abc import Iterator
from datetime import date
from typing import Any

from .sites.data_shop import BRANDS
from .sites.shopping_admin_reports import REPORTS, TOP_TERMS, short_date
from .taskgen import (
    Candidate,
    click,
    goto,
    html_check,
    query,
    stop,
    type_,
    value_of,
)
from .twin_port_shape import A, Dbs, Port, month_name, port

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


def review_term(dbs: Dbs) -> Iterator[Candidate]:
    """how many reviews mention a term (string_match)."""
    db = dbs["shopping_admin"]
    texts = [f"{r[0]} {r[1]}".lower() for r in db.execute("SELECT title, body FROM reviews")]
    words = Counter(w.strip(".,!?") for t in texts for w in set(t.split()) if len(w) > 4)
    for term, _n in sorted(words.items()):
        n = sum(term in t for t in texts)
        yield port({"term": term}, A, [click("Reviews", "link"), stop(str(n))],
                   answers={"must_include": [str(n)]})


def items_sold(dbs: Dbs) -> Iterator[Candidate]:
    """items sold in the most recent k orders (string_match)."""
    db = dbs["shopping_admin"]
    ids = [r[0] for r in db.execute("SELECT id FROM orders ORDER BY created DESC, id DESC")]
    for k in range(2, 9):
        if db.execute("SELECT created FROM orders WHERE id = ?", (ids[k - 1],)).fetchone()[0] == \
                db.execute("SELECT created FROM orders WHERE id = ?", (ids[k],)).fetchone()[0]:
            continue  # a tie at the cut: "the most recent k" is not defined
        n = db.execute(f"SELECT SUM(qty) FROM order_items WHERE order_id IN "
                       f"({','.join('?' * k)})", ids[:k]).fetchone()[0]
        yield port({"k": k}, A, [click("Orders", "link"), stop(str(n))],
                   answers={"must_include": [str(n)]})


def bestsellers(dbs: Dbs) -> Iterator[Candidate]:
    """the top-n best-selling products of a year, from the bestsellers report (string_match)."""
    db = dbs["shopping_admin"]
    for year in ("2022", "2023"):
        rows = db.execute(
            "SELECT p.name, SUM(i.qty) AS qty FROM order_items i JOIN orders o ON o.id = "
            "i.order_id JOIN products p ON p.id = i.product_id WHERE o.status != 'canceled' AND "
            "substr(o.created, 1, 4) = ? GROUP BY p.id ORDER BY qty DESC, p.name", (year,)
        ).fetchall()
        for n in range(1, 5):
            if len(rows) > n and rows[n - 1]["qty"] != rows[n]["qty"]:
                names = [r["name"] for r in rows[:n]]
                yield port({"n": n, "period": year}, A, [
                    goto(query(f"{A}/reports/bestsellers", year=year)), stop(", ".join(names))],
                    answers={"must_include": names})


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


def reviews_in_month(dbs: Dbs) -> Iterator[Candidate]:
    """how many reviews the shop received in a month (string_match)."""
    for ym, n in dbs["shopping_admin"].execute(
            "SELECT substr(created, 1, 7), COUNT(*) FROM reviews GROUP BY 1 ORDER BY 1"):
        yield port({"time": f"in {month_name(ym)}"}, A, [click("Reviews", "link"), stop(str(n))],
                   answers={"must_include": [str(n)]})


def monthly_complete(dbs: Dbs) -> Iterator[Candidate]:
    """complete orders per month over a quarter, as MM:COUNT (string_match)."""
    db = dbs["shopping_admin"]
    for year in ("2022", "2023"):
        for q in range(4):
            months = [f"{year}-{m:02d}" for m in range(3 * q + 1, 3 * q + 4)]
            counts = [db.execute("SELECT COUNT(*) FROM orders WHERE status = 'complete' AND "
                                 "substr(created, 1, 7) = ?", (m,)).fetchone()[0] for m in months]
            parts = [f"{m[5:]}:{n}" for m, n in zip(months, counts, strict=True)]
            period = (f"from {calendar.month_name[3 * q + 1]} to "
                      f"{calendar.month_name[3 * q + 3]} {year}")
            yield port({"period": period}, A, [
                click("Orders", "link"), click("Complete", "link"), stop(", ".join(parts))],
                answers={"must_include": parts})


def payment_difference(dbs: Dbs) -> Iterator[Candidate]:
    """total of the last N orders of one status minus that of another (string_match)."""
    db = dbs["shopping_admin"]
    statuses = ("complete", "canceled", "pending", "processing")

    def last(status: str, n: int) -> float:
        rows = db.execute("SELECT total FROM orders WHERE status = ? ORDER BY created DESC, id "
                          "DESC LIMIT ?", (status, n)).fetchall()
        return round(sum(r[0] for r in rows), 2)

    for n in (2, 3, 4, 5):
        for a in statuses:
            for b in statuses:
                if a != b:
                    diff = f"{abs(last(a, n) - last(b, n)):,.2f}"
                    yield port({"N": n, "status_1": a, "status_2": b}, A, [
                        click("Orders", "link"), click(a.title(), "link"), stop(f"${diff}")],
                        answers={"must_include": [diff]})


PORTS_ADMIN_REPORTS: dict[int, Port] = {
    288: review_term, 1002: items_sold, 279: bestsellers, 268: relative_report, 271: dated_report,
    285: top_terms, 1001: top_brand, 248: reviews_in_month, 270: monthly_complete,
    367: payment_difference,
}
"""Official template id -> port."""
