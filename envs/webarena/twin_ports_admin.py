"""Official WebArena-Lite templates of the admin panel's grids, on the bundled data: customers,
orders (by status, by phone, the most orders or cancellations, an order's attribute, its
invoice), products (disabling, restocking, prices by an attribute, out of stock), canceling an
order and previewing a theme (see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .sites.shopping_admin_reports import invoice_number
from .taskgen import (
    Candidate,
    click,
    fact,
    goto,
    html_check,
    query,
    select,
    stop,
    type_,
    value_of,
)
from .twin_port_shape import A, Dbs, Port, adapt, port


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


def preview_theme(dbs: Dbs) -> Iterator[Candidate]:
    """a storefront theme's page (url_match)."""
    for t in dbs["shopping_admin"].execute("SELECT * FROM themes ORDER BY id"):
        yield port({"name": t["title"]}, A, [click("Themes", "link"),
                                             click(t["title"], "link"), stop()],
                   url=f"{A}/themes/{t['id']}")


def price_by(dbs: Dbs) -> Iterator[Candidate]:
    """raise or cut the price of the product whose edit page is open (program_html)."""
    for k, p in enumerate(dbs["shopping_admin"].execute("SELECT * FROM products ORDER BY id")):
        action = ("Increase", "Reduce")[k % 2]
        if k % 4 < 2:
            amount, delta = "$5", 5.0
        else:
            amount, delta = "15%", round(p["price"] * 0.15, 2)
        new = f"{round(p['price'] + (delta if action == 'Increase' else -delta), 2):.2f}"
        url = f"{A}/products/{p['id']}"
        yield port({"amount": amount, "action": action}, url, [
            type_("Price", new), click("Save", "button"), stop()],
            html=[html_check(url, value_of("product-price"), exact=new)])


def out_of_stock(dbs: Dbs) -> Iterator[Candidate]:
    """set the stock of every product of a kind to 0 (program_html on each product form)."""
    db = dbs["shopping_admin"]
    kinds: dict[str, list[Any]] = {}
    for p in db.execute("SELECT * FROM products ORDER BY id"):
        kinds.setdefault(p["name"].split(" ", 2)[2], []).append(p)
    for kind, ps in sorted(kinds.items()):
        if 2 <= len(ps) <= 4:
            steps = []
            for p in ps:
                steps += [goto(f"{A}/products/{p['id']}"), type_("Quantity", "0"),
                          click("Save", "button")]
            yield port({"product": kind.lower()}, A, [*steps, stop()], html=[
                html_check(f"{A}/products/{p['id']}", value_of("product-stock"), exact="0")
                for p in ps])


PORTS_ADMIN: dict[int, Port] = {
    255: all_customers, 253: orders_of_status, 242: disable, 241: restock, 257: cancel,
    276: most_orders, 234: most_cancellations, 364: by_phone, 366: order_attribute,
    274: invoice_total, 266: preview_theme, 247: price_by, 287: out_of_stock,
}
"""Official template id -> port."""
