"""Official WebArena-Lite templates of the storefront's catalogue and my orders, on the
bundled data: searches, wish lists, prices and ratings, price ranges, my first, latest and last
orders (see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from .taskgen import (
    Candidate,
    click,
    goto,
    query,
    stop,
    type_,
)
from .twin_port_shape import Dbs, Port, S, adapt, port


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


PORTS_SHOP: dict[int, Port] = {
    212: search_for, 186: wish, 189: wish, 137: by_price, 138: dearest, 1355: rating,
    159: price_range, 370: brand_range, 161: first_purchase, 213: latest_number, 214: latest_total,
    180: latest_page, 206: order_info, 169: last_ordered, 139: under_price, 208: sorted_search,
    222: reviewers,
}
"""Official template id -> port."""
