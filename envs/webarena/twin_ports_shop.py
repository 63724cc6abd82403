"""Official WebArena-Lite templates of the storefront and its admin panel, on the bundled data.

Each port yields candidates (:func:`port`): the official template's slot values, the start page,
expert steps and the gold check computed from the template databases. The intent text is the
official template's, filled in by :mod:`.twin_official` at run time.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from .taskgen import (
    Candidate,
    Template,
    click,
    fact,
    goto,
    html_check,
    query,
    record,
    select,
    stop,
    type_,
    value_of,
)
from .templates_forum import FORUM_TEMPLATES, MULTI_TEMPLATES
from .templates_more import GITLAB_TEMPLATES, MAP_TEMPLATES
from .templates_shop import SHOP_TEMPLATES, A, Dbs, S

Port = Callable[[Dbs], Iterator[Candidate]]
_SHELL = Template(0, ("shopping",), "", 0, lambda t, d: iter(()))
TWIN = {t.id: t for t in [*SHOP_TEMPLATES, *GITLAB_TEMPLATES, *MAP_TEMPLATES, *FORUM_TEMPLATES,
                          *MULTI_TEMPLATES]}
"""The twin's own templates by id (ports reuse their generators)."""


def port(slots: dict[str, Any], start_url: str, expert: list[dict[str, Any]],
         **check: Any) -> Candidate:
    """A candidate for an official template: its slot values, start page, expert and gold."""
    rec = record(_SHELL, {}, start_url, expert, **check)
    rec["slots"] = {k: str(v) for k, v in slots.items()}
    return rec


def adapt(twin_id: int, dbs: Dbs, slots: Callable[[dict[str, str]], dict[str, Any] | None],
          keep: tuple[str, ...] = ("string_match", "url_match", "program_html")
          ) -> Iterator[Candidate]:
    """The twin template ``twin_id``'s candidates under an official template: ``slots`` maps
    the twin's slot values to the official ones (``None`` skips the candidate); only the
    evaluators in ``keep`` are kept."""
    t = TWIN[twin_id]
    for cand in t.generate(t, dbs):
        mapped = slots(cand["instantiation_dict"])
        if mapped is None:
            continue
        ev = cand["eval"]
        if "string_match" not in keep:
            ev["reference_answers"] = None
        if "url_match" not in keep:
            ev["reference_url"] = ""
        if "program_html" not in keep:
            ev["program_html"] = []
        ev["eval_types"] = [k for k in ev["eval_types"] if k in keep]
        cand["slots"] = {k: str(v) for k, v in mapped.items()}
        yield cand


def _mine(db: sqlite3.Connection) -> list[Any]:
    return db.execute("SELECT * FROM orders WHERE customer_id = 1 ORDER BY created DESC, id DESC"
                      ).fetchall()


def _my_orders() -> list[dict[str, Any]]:
    return [click("My Account", "link"), click("My Orders", "link")]


def _money(x: float) -> str:
    return f"{x:,.2f}"


def search_for(dbs: Dbs) -> Iterator[Candidate]:
    """twin 108: search the store for a term (url_match)."""
    yield from adapt(108, dbs, lambda s: {"keyword": s["term"]})


def wish(dbs: Dbs) -> Iterator[Candidate]:
    """twin 106: add a product to the wish list (program_html on the wish list)."""
    yield from adapt(106, dbs, lambda s: {"product": s["product"]})


def by_price(dbs: Dbs) -> Iterator[Candidate]:
    """twin 107: a category sorted by price, ascending or descending (url_match)."""
    words = {"low to high": "ascending", "high to low": "descending"}
    yield from adapt(107, dbs, lambda s: {"product_category": s["category"],
                                          "order": words[s["order"]]})


def dearest(dbs: Dbs) -> Iterator[Candidate]:
    """twin 110: a category sorted by price, most expensive first (url_match)."""
    yield from adapt(110, dbs, lambda s: {"product_category": s["category"]}
                     if s["which"] == "most expensive" else None, keep=("url_match",))


def rating(dbs: Dbs) -> Iterator[Candidate]:
    """twin 102: a product's average rating (string_match)."""
    yield from adapt(102, dbs, lambda s: {"product": s["product"]})


def price_range(dbs: Dbs) -> Iterator[Candidate]:
    """lowest and highest price of the search results for a product type (string_match)."""
    db = dbs["shopping"]
    words = sorted({r[0].split(" ", 2)[2] for r in db.execute(
        "SELECT name FROM products WHERE status = 'enabled'")})
    for w in words:
        like = f"%{w}%"
        lo, hi, n = db.execute("SELECT MIN(price), MAX(price), COUNT(*) FROM products WHERE "
                               "status = 'enabled' AND (name LIKE ? OR description LIKE ?)",
                               (like, like)).fetchone()
        if n >= 2 and lo != hi:
            yield port({"product": w.lower()}, S, [
                type_("Search", w.lower(), enter=True),
                click("Sort by Price: Low to High", "link"),
                stop(f"${_money(lo)} - ${_money(hi)}")],
                answers={"must_include": [_money(lo), _money(hi)]}, login=False)


def brand_range(dbs: Dbs) -> Iterator[Candidate]:
    """lowest and highest price of a brand's products (string_match)."""
    db = dbs["shopping"]
    for brand, lo, hi, n in db.execute(
            "SELECT brand, MIN(price), MAX(price), COUNT(*) FROM products WHERE status = "
            "'enabled' GROUP BY brand ORDER BY brand"):
        if n >= 2:
            yield port({"brand": brand}, S, [
                type_("Search", brand, enter=True), stop(f"${_money(lo)} - ${_money(hi)}")],
                answers={"must_include": [_money(lo), _money(hi)]}, login=False)


def under_price(dbs: Dbs) -> Iterator[Candidate]:
    """a category filtered by a price cap (url_match; the listings' price filter)."""
    for c in dbs["shopping"].execute("SELECT * FROM categories ORDER BY id").fetchall():
        for cap in ("25", "50", "100", "200"):
            yield port({"price": cap, "product_category": c["name"]}, S, [
                click(c["name"], "link"), click(f"Under ${cap}", "link"), stop()],
                url=query(f"{S}/category/{c['slug']}", price_max=cap), login=False)


def sorted_search(dbs: Dbs) -> Iterator[Candidate]:
    """search results in a sort order (url_match)."""
    db = dbs["shopping"]
    words = sorted({r[0].split(" ", 2)[2].lower() for r in db.execute(
        "SELECT name FROM products WHERE status = 'enabled'")})
    orders = (("price ascending", "price_asc", "Price: Low to High"),
              ("price descending", "price_desc", "Price: High to Low"),
              ("rating", "rating", "Rating"), ("name", "name", "Name"))
    for k, w in enumerate(words):
        words_, key, label = orders[k % len(orders)]
        yield port({"product": w, "sorting_order": words_}, S, [
            type_("Search", w, enter=True), click(f"Sort by {label}", "link"), stop()],
            url=query(f"{S}/search", q=w, sort=key), login=False)


def reviewers(dbs: Dbs) -> Iterator[Candidate]:
    """reviewers of a product whose review mentions a phrase (string_match, from its page)."""
    db = dbs["shopping"]
    for p in db.execute("SELECT * FROM products WHERE status = 'enabled' ORDER BY id").fetchall():
        revs = db.execute("SELECT nickname, title, body FROM reviews WHERE product_id = ? "
                          "ORDER BY id", (p["id"],)).fetchall()
        for phrase in sorted({r["title"].lower() for r in revs}):
            who = sorted({r["nickname"] for r in revs
                          if phrase in f"{r['title']} {r['body']}".lower()})
            if 0 < len(who) < len(revs):
                yield port({"description": phrase}, f"{S}/product/{p['id']}",
                           [stop(", ".join(who))], answers={"must_include": who}, login=False)


def first_purchase(dbs: Dbs) -> Iterator[Candidate]:
    """the date of my first order (string_match)."""
    first = _mine(dbs["shopping"])[-1]
    yield port({}, S, [*_my_orders(), stop(first["created"])],
               answers={"must_include": [first["created"]]})


def _latest_by_status(db: sqlite3.Connection) -> dict[str, Any]:
    latest: dict[str, Any] = {}
    for o in _mine(db):
        latest.setdefault(o["status"], o)
    return latest


def latest_number(dbs: Dbs) -> Iterator[Candidate]:
    """the number of my most recent order of a status (string_match)."""
    for status, o in _latest_by_status(dbs["shopping"]).items():
        yield port({"status": status}, S, [*_my_orders(), stop(o["number"])],
                   answers={"must_include": [o["number"]]})


def latest_total(dbs: Dbs) -> Iterator[Candidate]:
    """the total of my latest order of a status (string_match)."""
    for status, o in _latest_by_status(dbs["shopping"]).items():
        yield port({"status": status}, S, [*_my_orders(), stop(f"${_money(o['total'])}")],
                   answers={"must_include": [_money(o["total"])]})


def latest_page(dbs: Dbs) -> Iterator[Candidate]:
    """my most recent order of a status, its page (url_match)."""
    for status, o in _latest_by_status(dbs["shopping"]).items():
        url = f"{S}/account/orders/{o['number']}"
        yield port({"status": status}, S, [*_my_orders(), goto(url), stop()], url=url)


def order_info(dbs: Dbs) -> Iterator[Candidate]:
    """an order's total, status or date (string_match)."""
    for o in _mine(dbs["shopping"]):
        for info, value in (("total", _money(o["total"])), ("status", o["status"].title()),
                            ("order date", o["created"])):
            yield port({"info": info, "order_number": o["number"]}, S, [
                *_my_orders(), goto(f"{S}/account/orders/{o['number']}"), stop(value)],
                answers={"must_include": [value]})


def last_ordered(dbs: Dbs) -> Iterator[Candidate]:
    """when I last ordered a product (string_match)."""
    db = dbs["shopping"]
    for name, when in db.execute(
            "SELECT p.name, MAX(o.created) FROM order_items i JOIN orders o ON o.id = i.order_id "
            "JOIN products p ON p.id = i.product_id WHERE o.customer_id = 1 GROUP BY p.id "
            "ORDER BY p.id"):
        yield port({"description": name}, S, [*_my_orders(), stop(when)],
                   answers={"must_include": [when]})


def all_customers(dbs: Dbs) -> Iterator[Candidate]:
    """the admin's customer grid (url_match)."""
    yield port({}, A, [click("Customers", "link"), stop()], url=f"{A}/customers")


def orders_of_status(dbs: Dbs) -> Iterator[Candidate]:
    """the admin's orders filtered by status (url_match)."""
    for status in ("pending", "processing", "complete", "canceled", "on hold"):
        yield port({"status": status}, A, [click("Orders", "link"), click(status.title(), "link"),
                                            stop()], url=query(f"{A}/orders", status=status))


def disable(dbs: Dbs) -> Iterator[Candidate]:
    """twin 209: disable a product (url_match + program_html)."""
    yield from adapt(209, dbs, lambda s: {"product": s["product"]})


def restock(dbs: Dbs) -> Iterator[Candidate]:
    """add arrived units to a product's stock (program_html on the product form)."""
    for k, p in enumerate(dbs["shopping_admin"].execute("SELECT * FROM products ORDER BY id")):
        qty = 5 + 5 * (k % 6)
        new = str(p["stock"] + qty)
        yield port({"quantity": qty, "product": p["name"]}, A, [
            type_("Search", p["name"], enter=True), click(p["name"], "link"),
            type_("Quantity", new), click("Save", "button"), stop()],
            html=[html_check(f"{A}/products/{p['id']}", value_of("product-stock"), exact=new)])


def cancel(dbs: Dbs) -> Iterator[Candidate]:
    """cancel an order (program_html on the order page)."""
    for o in dbs["shopping_admin"].execute("SELECT * FROM orders WHERE status != 'canceled' "
                                           "ORDER BY id"):
        yield port({"id": o["number"]}, A, [
            goto(f"{A}/orders/{o['id']}"), select("Status", "Canceled"),
            click("Update Status", "button"), stop()],
            html=[html_check(f"{A}/orders/{o['id']}", fact("Order Status"), exact="Canceled")])


def _customer_counts(db: sqlite3.Connection, status: str) -> list[tuple[int, str, Any]]:
    rows = db.execute("SELECT c.*, c.first_name || ' ' || c.last_name AS name, (SELECT COUNT(*) "
                      "FROM orders o WHERE o.customer_id = c.id AND o.status = ?) AS n FROM "
                      "customers c ORDER BY c.id", (status,)).fetchall()
    return sorted(((r["n"], r["name"], r) for r in rows), key=lambda x: x[0])


def most_orders(dbs: Dbs) -> Iterator[Candidate]:
    """the customer with the most (or fewest) completed orders, when one customer is (string)."""
    ranked = _customer_counts(dbs["shopping_admin"], "complete")
    for word, (n, name, _r), (n2, _, _) in (("most", ranked[-1], ranked[-2]),
                                            ("least", ranked[0], ranked[1])):
        if n != n2:
            yield port({"quantifier": word}, A, [
                click("Orders", "link"), click("Complete", "link"), stop(name)],
                answers={"must_include": [name]})


def most_cancellations(dbs: Dbs) -> Iterator[Candidate]:
    """an attribute of the customer with the most canceled orders, when unique (string)."""
    ranked = _customer_counts(dbs["shopping_admin"], "canceled")
    (n, name, r), (n2, _, _) = ranked[-1], ranked[-2]
    if n == n2:
        return
    for attribute, value in (("name", name), ("email", r["email"]), ("phone number", r["phone"]),
                             ("city", r["city"])):
        yield port({"attribute": attribute}, A, [
            click("Orders", "link"), click("Canceled", "link"), stop(value)],
            answers={"must_include": [value]})


def by_phone(dbs: Dbs) -> Iterator[Candidate]:
    """name and email of the customer with a phone number (string_match)."""
    db = dbs["shopping_admin"]
    phones = Counter(r[0] for r in db.execute("SELECT phone FROM customers"))
    for c in db.execute("SELECT *, first_name || ' ' || last_name AS name FROM customers "
                        "ORDER BY id"):
        if phones[c["phone"]] == 1:
            yield port({"PhoneNum": c["phone"]}, A, [
                click("Customers", "link"), stop(f"{c['name']}, {c['email']}")],
                answers={"must_include": [c["name"], c["email"]]})


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


PORTS_SHOP: dict[int, Port] = {
    212: search_for, 186: wish, 189: wish, 137: by_price, 138: dearest, 1355: rating,
    159: price_range, 370: brand_range, 161: first_purchase, 213: latest_number,
    214: latest_total, 180: latest_page, 206: order_info, 169: last_ordered,
    255: all_customers, 253: orders_of_status, 242: disable, 241: restock, 257: cancel,
    276: most_orders, 234: most_cancellations, 364: by_phone, 288: review_term,
    1002: items_sold, 279: bestsellers, 139: under_price, 208: sorted_search, 222: reviewers,
}
"""Official template id -> port, storefront and admin."""
