"""The admin panel's catalogue pages: the product grid (search, sort, paging), a product's
edit form (price, stock, status), and the reviews with their delete action. Every page needs the
admin login."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_choice,
    form_int,
    form_money,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .views import field, filter_links, form, link, money, pager, pager_view, sort_links, table

PRODUCT_SORTS = {"id": "ID", "name": "Name", "price": "Price", "stock": "Quantity"}
_PRODUCT_ORDER = {"id": "id", "name": "name, id", "price": "price, id", "stock": "stock, id"}


def catalog_pages(site: Site) -> Pages:
    """The catalogue pages' endpoints by name."""

    def page(request: Request, **ctx: Any) -> Response:
        return site.render(request, "page.html",
                           message=request.query_params.get("msg", "")[:80], **ctx)

    async def products(request: Request) -> Response:
        require_user(request, site.name)
        q = query_text(request, "q")
        sort = query_choice(request, "sort", tuple(PRODUCT_SORTS))
        direction = query_choice(request, "dir", ("asc", "desc"))
        order = _PRODUCT_ORDER[sort] + (" DESC" if direction == "desc" else "")
        where, args = "(name LIKE ? OR sku LIKE ?)", (f"%{q}%", f"%{q}%")
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM products WHERE {where}", args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(f"SELECT * FROM products WHERE {where} ORDER BY {order} "
                                "LIMIT ? OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        return page(request, title="Products", intro=f"{total} records found", sections=[
            {"heading": "Sort", "links": sort_links(request, "sort", PRODUCT_SORTS, sort)
             + [(f"/products?q={q}&sort={sort}&dir={'asc' if direction == 'desc' else 'desc'}",
                 "Reverse order", False)]},
            {"heading": "Catalog", "table": table(
                ["ID", "SKU", "Name", "Price", "Quantity", "Status"],
                [[r["id"], r["sku"], link(r["name"], f"/products/{r['id']}"), money(r["price"]),
                  r["stock"], r["status"].title()] for r in rows])}],
            pager=pager_view(request, p))

    async def product(request: Request) -> Response:
        require_user(request, site.name)
        pid = path_int(request, "pid")
        with site.db(request) as conn:
            r = conn.execute("SELECT * FROM products WHERE id = ?", (pid,)).fetchone()
            if r is None:
                raise HTTPException(404, "no such product")
            if request.method == "POST":
                f = await read_form(request)
                values = (form_text(f, "name", 120), form_money(f, "price"),
                          form_int(f, "stock", 0, 100000),
                          form_choice(f, "status", ("enabled", "disabled")), pid)
                conn.execute("UPDATE products SET name=?, price=?, stock=?, status=? WHERE id=?",
                              values)
                return redirect(f"/products/{pid}?msg=You saved the product.")
        return page(request, title=f"Edit Product: {r['name']}", facts=[("SKU", r["sku"])],
                    sections=[{"heading": "Product Details", "forms": [form(
                        f"/products/{pid}", "Save", [
                            field("name", "Product Name", value=r["name"]),
                            field("price", "Price", value=f"{r['price']:.2f}"),
                            field("stock", "Quantity", "number", r["stock"]),
                            field("status", "Enable Product", "select", r["status"],
                                  [("enabled", "Enabled"), ("disabled", "Disabled")])],
                        id="product")]}])

    async def reviews(request: Request) -> Response:
        require_user(request, site.name)
        rating = query_choice(request, "rating", ("all", "1", "2", "3", "4", "5"))
        where = "1" if rating == "all" else "r.rating = ?"
        args: tuple[Any, ...] = () if rating == "all" else (int(rating),)
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM reviews r WHERE {where}",
                                 args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(f"SELECT r.*, p.name FROM reviews r JOIN products p ON p.id = "
                                f"r.product_id WHERE {where} ORDER BY r.id LIMIT ? OFFSET ?",
                                (*args, p.per_page, p.offset)).fetchall()
        ratings = {"all": "All ratings", **{str(i): f"{i} stars" for i in range(1, 6)}}
        return page(request, title="Reviews", intro=f"{total} records found", sections=[
            {"heading": "Filter by rating", "links": filter_links(request, "rating", ratings,
                                                                  rating)},
            {"heading": "Reviews", "table": table(
                ["ID", "Product", "Nickname", "Rating", "Title"],
                [[r["id"], link(r["name"], f"/products/{r['product_id']}"), r["nickname"],
                  r["rating"], r["title"]] for r in rows]),
             "forms": [form(f"/reviews/{r['id']}/delete", f"Delete review {r['id']}", [],
                            id=f"del{r['id']}") for r in rows]}],
            pager=pager_view(request, p))

    async def delete_review(request: Request) -> Response:
        require_user(request, site.name)
        rid = path_int(request, "rid")
        await read_form(request)
        with site.db(request) as conn:
            if not conn.execute("DELETE FROM reviews WHERE id = ?", (rid,)).rowcount:
                raise HTTPException(404, "no such review")
        return redirect("/reviews?msg=The review has been deleted.")

    return {"products": products, "product": product, "reviews": reviews,
            "delete_review": delete_review}
