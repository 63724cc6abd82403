"""Official WebArena-Lite storefront templates on the bundled store's newsletter subscription
and order deliveries (see :mod:`.twin_ports_shop` for the shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator

from .sites.shopping_account import delivery
from .taskgen import Candidate, click, html_check, select, stop, value_of
from .twin_ports_shop import Dbs, Port, S, port


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


PORTS_STORE: dict[int, Port] = {199: newsletter, 193: latest_delivery}
"""Official template id -> port."""
