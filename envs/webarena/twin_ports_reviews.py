"""Official WebArena-Lite templates on what the store's reviewers said, on the bundled data:
dissatisfied and most unhappy reviewers, criticisms, likes and dislikes, what was said about a
product, and summaries (see :mod:`.twin_port_shape` for the shape of a port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .taskgen import (
    Candidate,
    click,
    stop,
)
from .twin_port_shape import A, Dbs, Port, port


def _reviews(dbs: Dbs) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in dbs["shopping_admin"].execute(
            "SELECT r.*, p.name AS product FROM reviews r JOIN products p ON p.id = r.product_id "
            "ORDER BY r.id"):
        out.setdefault(r["product"], []).append(r)
    return out


def dissatisfied(dbs: Dbs) -> Iterator[Candidate]:
    """the reviewers who rated a product 1 or 2 stars (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        low = sorted({r["nickname"] for r in revs if r["rating"] <= 2})
        if low and len(low) < len(revs):
            yield port({"product": product}, A, [click("Reviews", "link"), stop(", ".join(low))],
                       answers={"must_include": low})


def most_unhappy(dbs: Dbs) -> Iterator[Candidate]:
    """the name of the reviewer who rated a product lowest, when one did (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        ranked = sorted(revs, key=lambda r: r["rating"])
        if len(ranked) >= 2 and ranked[0]["rating"] < ranked[1]["rating"]:
            name = ranked[0]["nickname"]
            yield port({"information": "name", "product": product}, A, [
                click("Reviews", "link"), stop(name)], answers={"must_include": [name]})


def _said(dbs: Dbs, low: bool) -> Iterator[tuple[str, list[str], int]]:
    """``(product, distinct review bodies, product id)`` of the 1-2 star (``low``) or 5 star
    reviews of products that have 1 to 3 such bodies and other reviews too."""
    ids = {r[0]: r[1] for r in dbs["shopping"].execute("SELECT name, id FROM products")}
    for product, revs in sorted(_reviews(dbs).items()):
        picked = [r for r in revs if (r["rating"] <= 2 if low else r["rating"] == 5)]
        bodies = sorted({r["body"] for r in picked})
        if bodies and len(bodies) <= 3 and len(picked) < len(revs) and product in ids:
            yield product, bodies, ids[product]


def criticisms(dbs: Dbs) -> Iterator[Candidate]:
    """the criticisms (1-2 star review texts) of the product whose page is open (string)."""
    for _product, bodies, pid in _said(dbs, low=True):
        yield port({}, f"__SHOPPING__/product/{pid}", [stop(" ".join(bodies))],
                   answers={"must_include": bodies}, login=False)


def dislikes(dbs: Dbs) -> Iterator[Candidate]:
    """what customers dislike about a product: its 1-2 star review texts (string_match)."""
    for product, bodies, _pid in _said(dbs, low=True):
        yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                   answers={"must_include": bodies})


def likes(dbs: Dbs) -> Iterator[Candidate]:
    """why customers like a product: its 5 star review texts (string_match)."""
    for product, bodies, _pid in _said(dbs, low=False):
        yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                   answers={"must_include": bodies})


def said_about(dbs: Dbs) -> Iterator[Candidate]:
    """what customers say about a brand's product type: its review texts (string_match)."""
    rows = {r[0]: r for r in dbs["shopping"].execute("SELECT name, brand FROM products")}
    for product, revs in sorted(_reviews(dbs).items()):
        bodies = sorted({r["body"] for r in revs})
        if product in rows and len(bodies) <= 3:
            kind = product.split(" ", 2)[2].lower()
            yield port({"product_type": kind, "manufature": rows[product]["brand"]}, A, [
                click("Reviews", "link"), stop(" ".join(bodies))],
                answers={"must_include": bodies})


def summarize(dbs: Dbs) -> Iterator[Candidate]:
    """a product's reviews summed up: its distinct review texts (string_match)."""
    for product, revs in sorted(_reviews(dbs).items()):
        bodies = sorted({r["body"] for r in revs})
        if len(bodies) <= 3:
            yield port({"product": product}, A, [click("Reviews", "link"), stop(" ".join(bodies))],
                       answers={"must_include": bodies})


PORTS_REVIEWS: dict[int, Port] = {
    245: dissatisfied, 244: most_unhappy, 136: criticisms, 249: dislikes, 250: likes,
    135: said_about, 182: summarize,
}
"""Official template id -> port."""
