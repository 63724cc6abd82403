"""The storefront's cart and wish list: adding, listing and removing items, and checking out
(which places an order). They need the login."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .common import (
    Pages,
    Site,
    form_int,
    read_form,
    redirect,
    require_user,
)
from .shopping_account import customer_id
from .views import field, form, link, money, table


def cart_pages(site: Site) -> Pages:
    """The cart and wish list pages' endpoints by name."""

    async def cart_add(request: Request) -> Response:
        user = require_user(request, site.name)
        f = await read_form(request)
        pid, qty = form_int(f, "product_id", 1), form_int(f, "qty", 1, 99)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            if conn.execute("SELECT 1 FROM products WHERE id = ? AND status = 'enabled'",
                            (pid,)).fetchone() is None:
                raise HTTPException(404, "no such product")
            row = conn.execute("SELECT id FROM cart_items WHERE customer_id=? AND product_id=?",
                               (cid, pid)).fetchone()
            if row:
                conn.execute("UPDATE cart_items SET qty = MIN(99, qty + ?) WHERE id = ?",
                             (qty, row[0]))
            else:
                conn.execute("INSERT INTO cart_items (customer_id, product_id, qty) "
                             "VALUES (?,?,?)", (cid, pid, qty))
        return redirect("/cart?msg=Product added to your shopping cart.")

    async def cart(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            rows = conn.execute("SELECT c.id, c.qty, p.id AS pid, p.name, p.price FROM cart_items"
                                " c JOIN products p ON p.id = c.product_id WHERE c.customer_id=?"
                                " ORDER BY c.id", (cid,)).fetchall()
        total = sum(r["qty"] * r["price"] for r in rows)
        items = [[link(r["name"], f"/product/{r['pid']}"), money(r["price"]), r["qty"],
                  money(r["qty"] * r["price"])] for r in rows]
        removes = [form("/cart/remove", f"Remove {r['name']}", [field("item_id", "", "hidden",
                        r["id"])], id=f"rm{r['id']}") for r in rows]
        checkout = [form("/checkout", "Proceed to Checkout", [], id="checkout")] if rows else []
        return site.render(request, "page.html", title="Shopping Cart",
                           message=request.query_params.get("msg", "")[:80], sections=[
                               {"heading": "Items", "table": table(
                                   ["Product", "Price", "Qty", "Subtotal"], items),
                                "forms": removes},
                               {"heading": "Summary", "facts": [("Order Total", money(total))],
                                "forms": checkout}])

    async def cart_remove(request: Request) -> Response:
        user = require_user(request, site.name)
        item = form_int(await read_form(request), "item_id", 1)
        with site.db(request) as conn:
            if not conn.execute("DELETE FROM cart_items WHERE id = ? AND customer_id = ?",
                                (item, customer_id(conn, user))).rowcount:
                raise HTTPException(404, "no such cart item")
        return redirect("/cart")

    async def checkout(request: Request) -> Response:
        user = require_user(request, site.name)
        await read_form(request)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            rows = conn.execute("SELECT c.product_id, c.qty, p.price FROM cart_items c JOIN "
                                "products p ON p.id = c.product_id WHERE customer_id = ?",
                                (cid,)).fetchall()
            if not rows:
                raise HTTPException(400, "your cart is empty")
            oid = conn.execute("SELECT MAX(id) + 1 FROM orders").fetchone()[0]
            total = round(sum(r["qty"] * r["price"] for r in rows), 2)
            conn.execute("INSERT INTO orders VALUES (?,?,?, 'pending', '2024-01-01', ?)",
                         (oid, str(100000000 + oid), cid, total))
            conn.executemany("INSERT INTO order_items (order_id, product_id, qty, price) "
                             "VALUES (?,?,?,?)", [(oid, r[0], r[1], r[2]) for r in rows])
            conn.execute("DELETE FROM cart_items WHERE customer_id = ?", (cid,))
        return redirect(f"/account/orders/{100000000 + oid}")

    async def wishlist_add(request: Request) -> Response:
        user = require_user(request, site.name)
        pid = form_int(await read_form(request), "product_id", 1)
        with site.db(request) as conn:
            cid = customer_id(conn, user)
            if conn.execute("SELECT 1 FROM products WHERE id = ?", (pid,)).fetchone() is None:
                raise HTTPException(404, "no such product")
            if not conn.execute("SELECT 1 FROM wishlist WHERE customer_id=? AND product_id=?",
                                (cid, pid)).fetchone():
                conn.execute("INSERT INTO wishlist (customer_id, product_id) VALUES (?,?)",
                             (cid, pid))
        return redirect("/wishlist")

    async def wishlist(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            rows = conn.execute("SELECT p.id, p.name, p.price FROM wishlist w JOIN products p ON"
                                " p.id = w.product_id WHERE w.customer_id = ? ORDER BY w.id",
                                (customer_id(conn, user),)).fetchall()
        return site.render(request, "page.html", title="My Wish List", sections=[
            {"heading": "Items", "table": table(["Product", "Price"], [
                [link(r["name"], f"/product/{r['id']}"), money(r["price"])] for r in rows])}])

    return {"cart_add": cart_add, "cart": cart, "cart_remove": cart_remove,
            "checkout": checkout, "wishlist_add": wishlist_add, "wishlist": wishlist}
