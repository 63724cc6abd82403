"""The storefront's catalogue pages: the home page, categories, search results (sorted and
filtered by price), product pages with their reviews, the review form, and the contact page."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .views import field, filter_links, form, link, money, pager, pager_view, sort_links, table

SORTS = {"relevance": "Relevance", "price_asc": "Price: Low to High",
         "price_desc": "Price: High to Low", "name": "Name", "rating": "Rating"}
_ORDER_SQL = {"relevance": "p.id", "price_asc": "p.price, p.id", "price_desc": "p.price DESC, p.id",
              "name": "p.name, p.id", "rating": "rating DESC, p.id"}
CONTACT_PHONE = "+1 800 555 0142"
"""The customer service number on the contact page."""
PRICE_CAPS = {"": "Any price", "25": "Under $25", "50": "Under $50", "100": "Under $100",
              "200": "Under $200"}
"""The listings' price filter (``price_max``): products priced below the cap."""
_PRODUCT_COLS = ("SELECT p.*, ROUND(COALESCE(AVG(r.rating), 0), 1) AS rating, COUNT(r.id) AS n "
                 "FROM products p LEFT JOIN reviews r ON r.product_id = p.id ")


def catalog_pages(site: Site) -> Pages:
    """The catalogue pages' endpoints by name."""

    def listing(request: Request, title: str, where: str, args: tuple) -> Response:  # type: ignore[type-arg]
        sort = query_choice(request, "sort", tuple(SORTS))
        cap = query_choice(request, "price_max", tuple(PRICE_CAPS))
        if cap:
            where, args = f"({where}) AND p.price < ?", (*args, float(cap))
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM products p WHERE {where}",
                                 args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(
                f"{_PRODUCT_COLS} WHERE {where} GROUP BY p.id ORDER BY {_ORDER_SQL[sort]} "
                "LIMIT ? OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        items = [[link(r["name"], f"/product/{r['id']}"), money(r["price"]),
                  f"{r['rating']} out of 5", r["n"]] for r in rows]
        return site.render(request, "page.html", title=title,
                           intro=f"{total} items", sections=[
                               {"heading": "Sort",
                                "links": sort_links(request, "sort", SORTS, sort)},
                               {"heading": "Filter by price",
                                "links": filter_links(request, "price_max", PRICE_CAPS, cap)},
                               {"heading": "Products", "table": table(
                                   ["Product", "Price", "Rating", "Reviews"], items)}],
                           pager=pager_view(request, p))

    async def home(request: Request) -> Response:
        with site.db(request) as conn:
            cats = conn.execute("SELECT slug, name FROM categories ORDER BY id").fetchall()
        return site.render(request, "page.html", title="Welcome to One Stop Market", sections=[
            {"heading": "Shop by category",
             "links": [(f"/category/{c['slug']}", c["name"], False) for c in cats]},
            {"heading": "Customer service", "links": [("/contact", "Contact Us", False)]}])

    async def contact(request: Request) -> Response:
        message = ""
        if request.method == "POST":
            await read_form(request)  # the store keeps no messages: the page thanks the sender
            message = "Thanks for contacting us with your comments and questions."
        return site.render(request, "page.html", title="Contact Us", message=message,
                           facts=[("Customer service phone", CONTACT_PHONE)], sections=[
                               {"heading": "Write us", "forms": [form("/contact", "Submit", [
                                   field("name", "Name"), field("email", "Email"),
                                   field("phone", "Phone Number"),
                                   field("comment", "What's on your mind?", "textarea")],
                                   id="contact")]}])

    async def search(request: Request) -> Response:
        q = query_text(request, "q")
        like = f"%{q}%"
        return listing(request, f"Search results for: '{q}'",
                       "p.status = 'enabled' AND (p.name LIKE ? OR p.description LIKE ?)",
                       (like, like))

    async def category(request: Request) -> Response:
        slug = str(request.path_params["slug"])
        with site.db(request) as conn:
            cat = conn.execute("SELECT * FROM categories WHERE slug = ?", (slug,)).fetchone()
        if cat is None:
            raise HTTPException(404, "no such category")
        return listing(request, cat["name"], "p.status = 'enabled' AND p.category_id = ?",
                       (cat["id"],))

    async def product(request: Request) -> Response:
        pid = path_int(request, "pid")
        with site.db(request) as conn:
            r = conn.execute(f"{_PRODUCT_COLS} WHERE p.id = ? AND p.status = 'enabled' "
                             "GROUP BY p.id", (pid,)).fetchone()
            if r is None:
                raise HTTPException(404, "no such product")
            reviews = conn.execute("SELECT * FROM reviews WHERE product_id = ? ORDER BY id",
                                   (pid,)).fetchall()
            cat = conn.execute("SELECT * FROM categories WHERE id = ?",
                               (r["category_id"],)).fetchone()
        stars = [(str(i), f"{i} stars") for i in range(5, 0, -1)]
        return site.render(request, "page.html", title=r["name"], message=request.query_params
                           .get("msg", "")[:80], facts=[
            ("Price", money(r["price"])), ("SKU", r["sku"]), ("Brand", r["brand"]),
            ("Color", r["color"]), ("Category", link(cat["name"], f"/category/{cat['slug']}")),
            ("Availability", "In stock" if r["stock"] > 0 else "Out of stock"),
            ("Rating", f"{r['rating']} out of 5 ({r['n']} reviews)")], intro=r["description"],
            sections=[
                {"heading": "Buy", "forms": [
                    form("/cart/add", "Add to Cart", [field("product_id", "", "hidden", pid),
                                                      field("qty", "Qty", "number", 1)], id="cart"),
                    form("/wishlist/add", "Add to Wish List",
                         [field("product_id", "", "hidden", pid)], id="wish")]},
                {"heading": "Customer Reviews", "table": table(
                    ["Nickname", "Rating", "Title", "Review", "Date"],
                    [[v["nickname"], f"{v['rating']} stars", v["title"], v["body"], v["created"]]
                     for v in reviews])},
                {"heading": "Write Your Own Review", "forms": [form(
                    f"/product/{pid}/review", "Submit Review",
                    [field("nickname", "Nickname"),
                     field("rating", "Rating", "select", "5", stars), field("title", "Summary"),
                     field("body", "Review", "textarea")], id="review")]},
            ])

    async def review(request: Request) -> Response:
        pid = path_int(request, "pid")
        require_user(request, site.name)
        f = await read_form(request)
        nickname, title = form_text(f, "nickname", 60), form_text(f, "title", 120)
        body = form_text(f, "body", 2000)
        rating = int(form_choice(f, "rating", ("1", "2", "3", "4", "5")))
        with site.db(request) as conn:
            if conn.execute("SELECT 1 FROM products WHERE id = ?", (pid,)).fetchone() is None:
                raise HTTPException(404, "no such product")
            conn.execute("INSERT INTO reviews (product_id, nickname, rating, title, body, created)"
                         " VALUES (?,?,?,?,?, '2024-01-01')", (pid, nickname, rating, title, body))
        return redirect(f"/product/{pid}?msg=You submitted your review.")

    async def categories(request: Request) -> Response:
        return await home(request)

    return {"home": home, "contact": contact, "search": search, "category": category,
            "product": product, "review": review, "categories": categories}
