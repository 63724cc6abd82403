"""More of the storefront: newsletter subscriptions in my account, and an order's delivery
(estimated for open orders, the day it arrived for complete ones, none for canceled ones)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import Site, form_choice, read_form, redirect, require_user
from .views import field, form

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


def more_routes(site: Site, customer_of: Any) -> list[Route]:
    """The routes of these pages; ``customer_of(conn, user)`` is the user's customer id."""

    async def newsletter(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            cid = customer_of(conn, user)
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

    return [Route("/newsletter/manage", newsletter, methods=["GET", "POST"])]
