"""The storefront customer's account: the account page, my orders and an order's page (with
its delivery), and the newsletter subscription. They need the login."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    path_int,
    read_form,
    redirect,
    require_user,
)
from .views import field, form, link, money, pager, pager_view, table


def customer_id(conn: Any, user: str) -> int:
    """The logged-in ``user``'s customer id (403 for an account without a customer profile)."""
    row = conn.execute("SELECT customer_id FROM users WHERE username = ?", (user,)).fetchone()
    if row is None or row[0] is None:
        raise HTTPException(403, "this account has no customer profile")
    return int(row[0])


SHIPPING_DAYS = {"pending": 7, "processing": 5, "complete": 4}
"""Days from the order date to its (estimated) delivery, per status."""
NEWSLETTER = (("no", "Not subscribed"), ("yes", "Subscribed"))


def delivery(order: Any) -> str:
    """What the order page says about the order's delivery."""
    if order["status"] not in SHIPPING_DAYS:
        return "Canceled: it will not be delivered"
    day = (date.fromisoformat(order["created"]) +
           timedelta(days=SHIPPING_DAYS[order["status"]])).isoformat()
    return f"Delivered on {day}" if order["status"] == "complete" else f"Estimated {day}"


def account_pages(site: Site) -> Pages:
    """The account pages' endpoints by name."""

    async def account(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            c = conn.execute("SELECT * FROM customers WHERE id = ?",
                             (customer_id(conn, user),)).fetchone()
        return site.render(request, "page.html", title="My Account", facts=[
            ("Name", f"{c['first_name']} {c['last_name']}"), ("Email", c["email"]),
            ("Address", f"{c['city']}, {c['state']}"), ("Phone", c["phone"])], sections=[
            {"heading": "Account", "links": [("/account/orders", "My Orders", False),
                                             ("/wishlist", "My Wish List", False),
                                             ("/newsletter/manage", "Newsletter Subscriptions",
                                              False)]}])

    async def orders(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            total = conn.execute("SELECT COUNT(*) FROM orders WHERE customer_id = ?",
                                 (cid,)).fetchone()[0]
            p = pager(request, total, 10)
            rows = conn.execute("SELECT * FROM orders WHERE customer_id = ? ORDER BY created DESC"
                                ", id DESC LIMIT ? OFFSET ?",
                                (cid, p.per_page, p.offset)).fetchall()
        return site.render(request, "page.html", title="My Orders", sections=[
            {"heading": "Orders", "table": table(["Order #", "Date", "Order Total", "Status"], [
                [link(r["number"], f"/account/orders/{r['number']}"), r["created"],
                 money(r["total"]), r["status"].title()] for r in rows])}],
            pager=pager_view(request, p))

    async def order(request: Request) -> Response:
        user = require_user(request, site.name)
        number = str(path_int(request, "number"))
        with site.db(request) as conn:
            o = conn.execute("SELECT * FROM orders WHERE number = ? AND customer_id = ?",
                             (number, customer_id(conn, user))).fetchone()
            if o is None:
                raise HTTPException(404, "no such order")
            items = conn.execute("SELECT i.*, p.name FROM order_items i JOIN products p ON "
                                 "p.id = i.product_id WHERE order_id = ?", (o["id"],)).fetchall()
        return site.render(request, "page.html", title=f"Order # {number}", facts=[
            ("Status", o["status"].title()), ("Order Date", o["created"]),
            ("Order Total", money(o["total"])), ("Delivery", delivery(o))], sections=[
            {"heading": "Items Ordered", "table": table(["Product", "Price", "Qty"], [
                [link(i["name"], f"/product/{i['product_id']}"), money(i["price"]), i["qty"]]
                for i in items])}])

    async def newsletter(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            if request.method == "POST":
                choice = form_choice(await read_form(request), "subscribed",
                                     tuple(k for k, _ in NEWSLETTER))
                conn.execute("UPDATE customers SET newsletter = ? WHERE id = ?", (choice, cid))
                return redirect("/newsletter/manage?msg=We saved the subscription.")
            current = conn.execute("SELECT newsletter FROM customers WHERE id = ?",
                                   (cid,)).fetchone()[0]
        return site.render(request, "page.html", title="Newsletter Subscription",
                           message=request.query_params.get("msg", "")[:80], sections=[
            {"heading": "Subscription option", "forms": [form(
                "/newsletter/manage", "Save", [field(
                    "subscribed", "General Subscription", "select", current,
                    list(NEWSLETTER))], id="newsletter")]}])

    return {"account": account, "orders": orders, "order": order, "newsletter": newsletter}
