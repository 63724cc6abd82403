"""More official WebArena-Lite templates on the bundled data: periods and payments in the admin
panel, price changes, purchases chosen by rating, the contact form, my order history, my issues,
hotels within walking time (see :mod:`.twin_ports_shop` for the shape of a port)."""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from typing import Any

from .sites.data_map import format_minutes, route
from .sites.shopping_catalog import CONTACT_PHONE
from .taskgen import (
    ROWS,
    Candidate,
    click,
    fact,
    goto,
    html_check,
    stop,
    type_,
    value_of,
)
from .templates_more import _places
from .twin_ports_shop import A, Dbs, Port, S, port

G, M, R = "__GITLAB__", "__MAP__", "__REDDIT__"


def _month(ym: str) -> str:
    return f"{calendar.month_name[int(ym[5:7])]} {ym[:4]}"


def reviews_in_month(dbs: Dbs) -> Iterator[Candidate]:
    """how many reviews the shop received in a month (string_match)."""
    for ym, n in dbs["shopping_admin"].execute(
            "SELECT substr(created, 1, 7), COUNT(*) FROM reviews GROUP BY 1 ORDER BY 1"):
        yield port({"time": f"in {_month(ym)}"}, A, [click("Reviews", "link"), stop(str(n))],
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
        yield port({"product": row["name"], "time": f"in {_month(created)}"}, S, _buy(row),
                   **_bought(row["name"]))


COMMENT = "contact-comment"
"""Id of the contact form's message field."""
REASONS = ("a loyal customer", "a student", "a first-time buyer", "a teacher")


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
        yield port({"product": r["name"], "time": f"in {_month(r['created'])}"}, S,
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
        seen[(r["name"], _month(r["created"]))] = seen.get((r["name"], _month(r["created"])), 0) + 1
    for r in items:
        color = dbs["shopping"].execute("SELECT color FROM products WHERE name = ?",
                                        (r["name"],)).fetchone()[0]
        yield port({"option": "color", "product": r["name"], "time": f"in {_month(r['created'])}"},
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
            yield port({"time": _month(ym)}, S, [
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
        yield port({"time": f"in {_month(ym)}"}, S, [
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


def my_latest_issue(dbs: Dbs) -> Iterator[Candidate]:
    """my latest created issue with a keyword in its title: closed, Yes or No (string + url)."""
    db = dbs["gitlab"]
    mine = db.execute("SELECT i.*, p.namespace || '/' || p.name AS path FROM issues i JOIN "
                      "projects p ON p.id = i.project_id WHERE i.author_id = 1 ORDER BY "
                      "i.created DESC, i.id DESC").fetchall()
    words = sorted({w.strip(".,:").lower() for i in mine for w in i["title"].split()
                    if len(w) > 4})
    for w in words:
        hits = [i for i in mine if w in i["title"].lower()]
        if len(hits) >= 2 and hits[0]["created"] == hits[1]["created"]:
            continue
        i = hits[0]
        closed = "Yes" if i["state"] == "closed" else "No"  # "...to check if it is closed"
        url = f"{G}/{i['path']}/-/issues/{i['iid']}"
        yield port({"keyword": w}, G, [goto(url), stop(closed)],
                   answers={"exact_match": closed}, url=url)


def hotels_within(dbs: Dbs) -> Iterator[Candidate]:
    """hotels within n minutes' walk of a place, with their walking times (string_match)."""
    places = _places(dbs["map"])
    hotels = [h for h in places if h["category"] == "hotel"]
    for p in places[::4]:
        times = sorted((route(h["lat"], h["lon"], p["lat"], p["lon"], "foot")[1], h["name"])
                       for h in hotels if h["id"] != p["id"])
        for n in (30, 60, 120):
            near = [(t, name) for t, name in times if t <= n]
            if near and all(abs(t - n) > 2 for t, _ in times):
                yield port({"location": p["name"], "n": n}, M, [
                    type_("Search", p["name"], enter=True), click(p["name"], "link"),
                    click("Nearby places", "link"), click("Hotel", "link"),
                    stop(", ".join(f"{name} ({format_minutes(t)})" for t, name in near))],
                    answers={"must_include": [name for _t, name in near]}, login=False)


PORTS_EXTRA: dict[int, Port] = {
    248: reviews_in_month, 270: monthly_complete, 367: payment_difference, 247: price_by,
    287: out_of_stock, 172: best_within_budget, 216: best_cheapest, 156: reorder,
    500: my_latest_issue, 41: hotels_within, 134: service_phone,
    153: refund_form, 154: refund_draft, 163: coupon, 155: option_of_bought,
    162: spent_on_category, 160: canceled_refund, 147: discounted_spend, 197: fulfilled_since,
}
"""Official template id -> port."""
