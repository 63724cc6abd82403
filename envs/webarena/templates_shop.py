"""Task templates of the shopping storefront and its admin panel (gold answers from the data)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from .taskgen import (
    ROWS,
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

S, A = "__SHOPPING__", "__SHOPPING_ADMIN__"
Dbs = dict[str, sqlite3.Connection]
NEW_ISSUE_WORDS = ("Kettle", "Tent", "Honey", "Planner", "Puzzle", "Webcam", "Shampoo")


def _products(db: sqlite3.Connection, extra: str = "") -> list[Any]:
    return db.execute("SELECT p.*, c.name AS cat, c.slug, ROUND(COALESCE(AVG(r.rating), 0), 1) "
                      "AS rating, COUNT(r.id) AS n FROM products p JOIN categories c ON c.id = "
                      "p.category_id LEFT JOIN reviews r ON r.product_id = p.id WHERE p.status = "
                      f"'enabled' {extra} GROUP BY p.id ORDER BY p.id").fetchall()


def _open_product(name: str) -> list[dict[str, Any]]:
    return [type_("Search", name, enter=True), click(name, "link")]


def price(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """What is the price of a product."""
    for p in _products(dbs["shopping"]):
        yield record(t, {"product": p["name"]}, S, [*_open_product(p["name"]),
                                                    stop(f"${p['price']:.2f}")],
                     answers={"must_include": [f"{p['price']:.2f}"]}, login=False)


def rating(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Average rating of a reviewed product."""
    for p in _products(dbs["shopping"]):
        if p["n"]:
            yield record(t, {"product": p["name"]}, S, [*_open_product(p["name"]),
                                                        stop(f"{p['rating']} out of 5")],
                         answers={"fuzzy_match": [str(p["rating"])]}, login=False)


def sku(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """SKU of a product."""
    for p in _products(dbs["shopping"]):
        yield record(t, {"product": p["name"]}, S, [*_open_product(p["name"]), stop(p["sku"])],
                     answers={"exact_match": p["sku"]}, login=False)


def order_total(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Total of one of my orders."""
    for o in dbs["shopping"].execute("SELECT * FROM orders WHERE customer_id = 1 ORDER BY id"):
        yield record(t, {"number": o["number"]}, S, [
            click("My Account"), click("My Orders"), goto(f"{S}/account/orders/{o['number']}"),
            stop(f"${o['total']:,.2f}")], answers={"must_include": [f"{o['total']:,.2f}"]})


def add_to_cart(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Add some quantity of a product to the cart."""
    for i, p in enumerate(_products(dbs["shopping"])):
        qty = 2 + i % 4
        yield record(t, {"qty": qty, "product": p["name"]}, S, [
            *_open_product(p["name"]), type_("Qty", str(qty)), click("Add to Cart", "button"),
            stop()], html=[html_check(f"{S}/cart", ROWS, include=[
                f"{p['name']} | ${p['price']:,.2f} | {qty}"])])


def wishlist(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Add a product to the wish list."""
    for p in _products(dbs["shopping"]):
        yield record(t, {"product": p["name"]}, S, [
            *_open_product(p["name"]), click("Add to Wish List", "button"), stop()],
            html=[html_check(f"{S}/wishlist", ROWS, include=[p["name"]])])


def sort_category(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Show a category sorted by price."""
    for c in dbs["shopping"].execute("SELECT * FROM categories ORDER BY id"):
        for way, key, label in (("high to low", "price_desc", "Price: High to Low"),
                                ("low to high", "price_asc", "Price: Low to High")):
            yield record(t, {"category": c["name"], "order": way}, S, [
                click(c["name"], "link"), click(f"Sort by {label}", "link"), stop()],
                url=query(f"{S}/category/{c['slug']}", sort=key), login=False)


def search_store(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Search the store for a term."""
    words = sorted({p["name"].split(" ", 2)[2] for p in _products(dbs["shopping"])})
    for w in words:
        yield record(t, {"term": w.lower()}, S, [type_("Search", w.lower(), enter=True), stop()],
                     url=query(f"{S}/search", q=w.lower()), login=False)


def buy(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Put a product in the cart and check out."""
    for p in _products(dbs["shopping"], "AND p.stock > 0"):
        yield record(t, {"product": p["name"]}, S, [
            *_open_product(p["name"]), click("Add to Cart", "button"),
            click("Proceed to Checkout", "button"), stop()],
            url=f"{S}/account/orders/", html=[
                html_check("last", ROWS, include=[p["name"]]),
                html_check("last", fact("Status"), exact="Pending")])


def cheapest(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Cheapest or dearest product of a category (answer and sorted page)."""
    db = dbs["shopping"]
    for c in db.execute("SELECT * FROM categories ORDER BY id").fetchall():
        for word, key, label, order in (
                ("cheapest", "price_asc", "Price: Low to High", "price, id"),
                ("most expensive", "price_desc", "Price: High to Low", "price DESC, id")):
            top = db.execute("SELECT name FROM products WHERE status = 'enabled' AND "
                             f"category_id = ? ORDER BY {order} LIMIT 1", (c["id"],)).fetchone()
            yield record(t, {"which": word, "category": c["name"]}, S, [
                click(c["name"], "link"), click(f"Sort by {label}", "link"), stop(top[0])],
                answers={"fuzzy_match": [top[0]]},
                url=query(f"{S}/category/{c['slug']}", sort=key), login=False)


# -- admin ---------------------------------------------------------------------------------------


def _customers(db: sqlite3.Connection) -> list[Any]:
    rows = db.execute("SELECT *, first_name || ' ' || last_name AS name FROM customers "
                      "ORDER BY id").fetchall()
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["name"]] = counts.get(r["name"], 0) + 1
    return [r for r in rows if counts[r["name"]] == 1]


def _find_customer(name: str) -> list[dict[str, Any]]:
    return [click("Customers", "link"), type_("Name, email or city", name, enter=True),
            click(name, "link")]


def customer_orders(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """How many orders a customer placed."""
    db = dbs["shopping_admin"]
    for c in _customers(db):
        n = db.execute("SELECT COUNT(*) FROM orders WHERE customer_id = ?", (c["id"],)).fetchone()
        yield record(t, {"customer": c["name"]}, A, [*_find_customer(c["name"]), stop(str(n[0]))],
                     answers={"must_include": [str(n[0])]})


def order_customer(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Who placed an order."""
    db = dbs["shopping_admin"]
    for o in db.execute("SELECT o.*, c.first_name || ' ' || c.last_name AS name FROM orders o "
                        "JOIN customers c ON c.id = o.customer_id ORDER BY o.id DESC"):
        yield record(t, {"number": o["number"]}, A, [
            click("Orders", "link"), goto(f"{A}/orders/{o['id']}"), stop(o["name"])],
            answers={"fuzzy_match": [o["name"]]})


def customer_email(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Email address of a customer."""
    for c in _customers(dbs["shopping_admin"]):
        yield record(t, {"customer": c["name"]}, A, [*_find_customer(c["name"]), stop(c["email"])],
                     answers={"exact_match": c["email"]})


def order_phone(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Phone number of the customer of an order."""
    db = dbs["shopping_admin"]
    for o in db.execute("SELECT o.*, c.phone, c.first_name || ' ' || c.last_name AS name FROM "
                        "orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id"):
        yield record(t, {"number": o["number"]}, A, [
            goto(f"{A}/orders/{o['id']}"), click(o["name"], "link"), stop(o["phone"])],
            answers={"must_include": [o["phone"]]})


def _edit_product(name: str) -> list[dict[str, Any]]:
    return [type_("Search", name, enter=True), click(name, "link")]


def set_price(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Change a product's price."""
    for p in dbs["shopping_admin"].execute("SELECT * FROM products ORDER BY id"):
        new = f"{round(p['price'] * 0.9, 2):.2f}"
        yield record(t, {"product": p["name"], "price": new}, A, [
            *_edit_product(p["name"]), type_("Price", new), click("Save", "button"), stop()],
            html=[html_check(f"{A}/products/{p['id']}", value_of("product-price"), exact=new)])


def set_stock(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Change a product's stock quantity."""
    for p in dbs["shopping_admin"].execute("SELECT * FROM products ORDER BY id"):
        new = str(p["stock"] + 25)
        yield record(t, {"product": p["name"], "qty": new}, A, [
            *_edit_product(p["name"]), type_("Quantity", new), click("Save", "button"), stop()],
            html=[html_check(f"{A}/products/{p['id']}", value_of("product-stock"), exact=new)])


def order_status(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Change an order's status."""
    cycle = {"pending": "processing", "processing": "complete", "complete": "on hold",
             "canceled": "pending"}
    for o in dbs["shopping_admin"].execute("SELECT * FROM orders ORDER BY id"):
        new = cycle[o["status"]]
        yield record(t, {"number": o["number"], "status": new}, A, [
            goto(f"{A}/orders/{o['id']}"), select("Status", new.title()),
            click("Update Status", "button"), stop()],
            html=[html_check(f"{A}/orders/{o['id']}", fact("Order Status"), exact=new.title())])


def order_filter(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Orders of one status in one sort order."""
    sorts = {"newest": ("newest first", "Purchase Date (newest)"),
             "oldest": ("oldest first", "Purchase Date (oldest)"),
             "total": ("highest total first", "Grand Total (highest)")}
    for status in ("pending", "processing", "complete", "canceled", "on hold"):
        for key, (words, label) in sorts.items():
            yield record(t, {"status": status, "order": words}, A, [
                click("Orders", "link"), click(status.title(), "link"),
                click(f"Sort by {label}", "link"), stop()],
                url=query(f"{A}/orders", status=status, sort=key))


def disable(t: Template, dbs: Dbs) -> Iterator[Candidate]:
    """Disable a product."""
    for p in dbs["shopping_admin"].execute("SELECT * FROM products WHERE status = 'enabled' "
                                           "ORDER BY id"):
        yield record(t, {"product": p["name"]}, A, [
            *_edit_product(p["name"]), select("Enable Product", "Disabled"),
            click("Save", "button"), stop()], url=f"{A}/products/{p['id']}",
            html=[html_check(f"{A}/products/{p['id']}", value_of("product-status"),
                             exact="disabled")])


SHOP_TEMPLATES = [
    Template(101, ("shopping",), "What is the price of {product}?", 6, price),
    Template(102, ("shopping",), "What is the average customer rating of {product}?", 5, rating),
    Template(103, ("shopping",), "What is the SKU of {product}?", 4, sku),
    Template(104, ("shopping",), "What was the order total of my order #{number}?", 5,
             order_total),
    Template(105, ("shopping",), "Add {qty} of the {product} to my cart.", 6, add_to_cart),
    Template(106, ("shopping",), "Add {product} to my wish list.", 4, wishlist),
    Template(107, ("shopping",), "Show me the {category} products sorted by price from {order}.",
             2, sort_category),
    Template(108, ("shopping",), "Search the store for '{term}'.", 3, search_store),
    Template(109, ("shopping",), "Buy one {product}: add it to the cart and place the order.", 8,
             buy),
    Template(110, ("shopping",), "What is the {which} product in {category}? Show it by sorting "
             "the category by price.", 2, cheapest),
    Template(201, ("shopping_admin",), "How many orders has customer {customer} placed?", 4,
             customer_orders),
    Template(202, ("shopping_admin",), "Who placed the order #{number}?", 4, order_customer),
    Template(203, ("shopping_admin",), "What is the email address of customer {customer}?", 3,
             customer_email),
    Template(204, ("shopping_admin",), "What is the phone number of the customer who placed "
             "order #{number}?", 4, order_phone),
    Template(205, ("shopping_admin",), "Change the price of {product} to ${price}.", 5, set_price),
    Template(206, ("shopping_admin",), "Set the stock quantity of {product} to {qty}.", 4,
             set_stock),
    Template(207, ("shopping_admin",), "Change the status of order #{number} to {status}.", 4,
             order_status),
    Template(208, ("shopping_admin",), "Show me the {status} orders, {order}.", 3, order_filter),
    Template(209, ("shopping_admin",), "Disable the product {product} in the catalog.", 4,
             disable),
]
"""Storefront (45 test tasks) and admin (35) templates."""
