"""Official WebArena-Lite templates of the storefront customer's account, on the bundled data:
buying by rating and budget, reordering, the contact form (service phone, refund requests,
coupons), what I bought and spent, deliveries, the newsletter and my wish list
(see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .sites.shopping_account import delivery
from .sites.shopping_catalog import CONTACT_PHONE
from .taskgen import (
    ROWS,
    Candidate,
    click,
    fact,
    goto,
    html_check,
    select,
    stop,
    type_,
    value_of,
)
from .twin_port_shape import Dbs, Port, S, month_name, port

COMMENT = "contact-comment"
"""Id of the contact form's message field."""
REASONS = ("a loyal customer", "a student", "a first-time buyer", "a teacher")


def _buy(p: Any) -> list[dict[str, Any]]:
    return [goto(f"{S}/product/{p['id']}"), click("Add to Cart", "button"),
            click("Proceed to Checkout", "button"), stop()]


def _bought(name: str) -> dict[str, Any]:
    return {"url": f"{S}/account/orders/", "html": [
        html_check("last", ROWS, include=[name]), html_check("last", fact("Status"),
                                                             exact="Pending")]}


def _rated(dbs: Dbs) -> list[Any]:
    return dbs["shopping"].execute(
        "SELECT p.*, c.name AS cat, ROUND(AVG(r.rating), 2) AS rating, COUNT(r.id) AS n FROM "
        "products p JOIN categories c ON c.id = p.category_id JOIN reviews r ON r.product_id = "
        "p.id WHERE p.status = 'enabled' AND p.stock > 0 GROUP BY p.id").fetchall()


def best_within_budget(dbs: Dbs) -> Iterator[Candidate]:
    """buy the best-rated product of a category within a budget, when one is (program_html)."""
    rows = _rated(dbs)
    for cat in sorted({r["cat"] for r in rows}):
        for budget in (50, 100, 200, 400):
            fits = sorted((r for r in rows if r["cat"] == cat and r["price"] <= budget),
                          key=lambda r: -r["rating"])
            if len(fits) >= 2 and fits[0]["rating"] > fits[1]["rating"]:
                yield port({"product_category": cat, "dollar_value": f"${budget}"}, S,
                           _buy(fits[0]), **_bought(fits[0]["name"]))


def best_cheapest(dbs: Dbs) -> Iterator[Candidate]:
    """buy the best-rated, then cheapest, product of a category with 5+ reviews (program_html)."""
    rows = _rated(dbs)
    for cat in sorted({r["cat"] for r in rows}):
        fits = sorted((r for r in rows if r["cat"] == cat and r["n"] >= 5),
                      key=lambda r: (-r["rating"], r["price"]))
        if fits:
            yield port({"category": cat}, S, _buy(fits[0]), **_bought(fits[0]["name"]))


def reorder(dbs: Dbs) -> Iterator[Candidate]:
    """order again a product of one of my canceled orders (program_html)."""
    for p, created in dbs["shopping"].execute(
            "SELECT p.id, o.created FROM order_items i JOIN orders o ON o.id = i.order_id JOIN "
            "products p ON p.id = i.product_id WHERE o.customer_id = 1 AND o.status = "
            "'canceled' AND p.status = 'enabled' AND p.stock > 0 ORDER BY o.id").fetchall():
        row = dbs["shopping"].execute("SELECT * FROM products WHERE id = ?", (p,)).fetchone()
        yield port({"product": row["name"], "time": f"in {month_name(created)}"}, S, _buy(row),
                   **_bought(row["name"]))


def _contact(text: str) -> list[dict[str, Any]]:
    return [click("Contact Us", "link"), type_("What's on your mind?", text), stop()]


def _my_items(dbs: Dbs) -> list[Any]:
    return dbs["shopping"].execute(
        "SELECT p.name, i.price, i.qty, o.number, o.created FROM order_items i JOIN orders o ON "
        "o.id = i.order_id JOIN products p ON p.id = i.product_id WHERE o.customer_id = 1 "
        "ORDER BY o.id, i.id").fetchall()


def service_phone(dbs: Dbs) -> Iterator[Candidate]:
    """the customer service number, from the contact page (string_match)."""
    yield port({}, S, [click("Contact Us", "link"), stop(CONTACT_PHONE)],
               answers={"must_include": [CONTACT_PHONE]}, login=False)


def refund_form(dbs: Dbs) -> Iterator[Candidate]:
    """a refund request in the contact form with the order number and price (url + html)."""
    for r in _my_items(dbs):
        price = f"{r['price']:.2f}"
        text = (f"I request a refund for the {r['name']} (order #{r['number']}, ${price}): it "
                "broke after just three days of use.")
        yield port({"product": r["name"], "order_id": r["number"]}, S, _contact(text),
                   url=f"{S}/contact", html=[html_check("last", value_of(COMMENT),
                                                        include=[r["number"], price])])


def refund_draft(dbs: Dbs) -> Iterator[Candidate]:
    """a refund draft with the order id and the amount, not submitted (program_html)."""
    for r in _my_items(dbs):
        amount = f"{r['price'] * r['qty']:.2f}"
        text = (f"Order {r['number']}: the {r['name']} broke after three days of use. Please "
                f"refund ${amount}.")
        yield port({"product": r["name"], "time": f"in {month_name(r['created'])}"}, S,
                   _contact(text), html=[html_check("last", value_of(COMMENT),
                                                    include=[r["number"], amount])])


def coupon(dbs: Dbs) -> Iterator[Candidate]:
    """a coupon request drafted in the contact form (url_match)."""
    for reason in REASONS:
        yield port({"reason": reason}, S, _contact(f"Could I have a coupon as {reason}?"),
                   url=f"{S}/contact")


def _spent(dbs: Dbs, where: str, args: tuple[Any, ...]) -> list[Any]:
    return dbs["shopping"].execute(
        f"SELECT * FROM orders WHERE customer_id = 1 AND {where} ORDER BY id", args).fetchall()


def option_of_bought(dbs: Dbs) -> Iterator[Candidate]:
    """the color of a product I bought in a month (string_match; the product page's color)."""
    seen: dict[tuple[str, str], int] = {}
    items = _my_items(dbs)
    for r in items:
        key = (r["name"], month_name(r["created"]))
        seen[key] = seen.get(key, 0) + 1
    for r in items:
        color = dbs["shopping"].execute("SELECT color FROM products WHERE name = ?",
                                        (r["name"],)).fetchone()[0]
        yield port({"option": "color", "product": r["name"],
                    "time": f"in {month_name(r['created'])}"},
                   S, [click("My Account", "link"), click("My Orders", "link"),
                       goto(f"{S}/account/orders/{r['number']}"), stop(color)],
                   answers={"must_include": [color]})


def spent_on_category(dbs: Dbs) -> Iterator[Candidate]:
    """what I spent on a category in a year, canceled orders aside (string_match)."""
    for cat, year, total in dbs["shopping"].execute(
            "SELECT c.name, substr(o.created, 1, 4), SUM(i.price * i.qty) FROM order_items i "
            "JOIN orders o ON o.id = i.order_id JOIN products p ON p.id = i.product_id JOIN "
            "categories c ON c.id = p.category_id WHERE o.customer_id = 1 AND o.status != "
            "'canceled' GROUP BY 1, 2 ORDER BY 1, 2"):
        value = f"{total:,.2f}"
        yield port({"category": cat, "time": year}, S, [
            click("My Account", "link"), click("My Orders", "link"), stop(f"${value}")],
            answers={"must_include": [value]})


def canceled_refund(dbs: Dbs) -> Iterator[Candidate]:
    """the refund due for my order canceled in a month, when one is (string_match)."""
    months: dict[str, list[Any]] = {}
    for o in _spent(dbs, "status = 'canceled'", ()):
        months.setdefault(o["created"][:7], []).append(o)
    for ym, orders in sorted(months.items()):
        if len(orders) == 1:
            value = f"{orders[0]['total']:,.2f}"
            yield port({"time": month_name(ym)}, S, [
                click("My Account", "link"), click("My Orders", "link"), stop(f"${value}")],
                answers={"must_include": [value]})


def discounted_spend(dbs: Dbs) -> Iterator[Candidate]:
    """what I paid in a month after 20% off orders over $200, canceled aside (string_match)."""
    months: dict[str, float] = {}
    for o in _spent(dbs, "status != 'canceled'", ()):
        paid = o["total"] * 0.8 if o["total"] > 200 else o["total"]
        months[o["created"][:7]] = months.get(o["created"][:7], 0.0) + paid
    for ym, paid in sorted(months.items()):
        value = f"{paid:,.2f}"
        yield port({"time": f"in {month_name(ym)}"}, S, [
            click("My Account", "link"), click("My Orders", "link"), stop(f"${value}")],
            answers={"must_include": [value]})


def fulfilled_since(dbs: Dbs) -> Iterator[Candidate]:
    """my complete orders in a period before 6/12/2023, and their total (string_match)."""
    for period, start in (("over the past year", "2022-06-12"),
                          ("over the past six months", "2022-12-12"),
                          ("over the past three months", "2023-03-12")):
        orders = _spent(dbs, "status = 'complete' AND created > ? AND created <= '2023-06-12'",
                        (start,))
        value = f"{sum(o['total'] for o in orders):,.2f}"
        yield port({"period": period}, S, [
            click("My Account", "link"), click("My Orders", "link"),
            stop(f"{len(orders)} orders, ${value}")],
            answers={"must_include": [str(len(orders)), value]})


def newsletter(dbs: Dbs) -> Iterator[Candidate]:
    """subscribe to the store's newsletter (program_html on my subscription page)."""
    yield port({}, S, [click("My Account", "link"), click("Newsletter Subscriptions", "link"),
                       select("General Subscription", "Subscribed"), click("Save", "button"),
                       stop()],
               html=[html_check(f"{S}/newsletter/manage", value_of("newsletter-subscribed"),
                                exact="yes")])


def latest_delivery(dbs: Dbs) -> Iterator[Candidate]:
    """the status of my latest order and its delivery, from the order page (string_match)."""
    o = dbs["shopping"].execute("SELECT * FROM orders WHERE customer_id = 1 ORDER BY created "
                                "DESC, id DESC LIMIT 2").fetchall()
    if len(o) == 2 and o[0]["created"] == o[1]["created"]:
        return
    status, when = o[0]["status"].title(), delivery(o[0])
    day = when.rsplit(" ", 1)[1] if o[0]["status"] != "canceled" else "will not be delivered"
    yield port({}, S, [click("My Account", "link"), click("My Orders", "link"),
                       click(o[0]["number"], "link"), stop(f"{status}; {when}")],
               answers={"must_include": [status, day]})


def wish_this(dbs: Dbs) -> Iterator[Candidate]:
    """add the product whose page is open to the wish list (program_html on the wish list)."""
    for p in dbs["shopping"].execute("SELECT * FROM products WHERE status = 'enabled' ORDER BY "
                                     "id").fetchall()[::7]:
        yield port({}, f"__SHOPPING__/product/{p['id']}", [
            click("Add to Wish List", "button"), stop()],
            html=[html_check("__SHOPPING__/wishlist", ROWS, include=[p["name"]])])


PORTS_ACCOUNT: dict[int, Port] = {
    172: best_within_budget, 216: best_cheapest, 156: reorder, 134: service_phone,
    153: refund_form, 154: refund_draft, 163: coupon, 155: option_of_bought,
    162: spent_on_category, 160: canceled_refund, 147: discounted_spend, 197: fulfilled_since,
    196: wish_this, 199: newsletter, 193: latest_delivery,
}
"""Official template id -> port."""
