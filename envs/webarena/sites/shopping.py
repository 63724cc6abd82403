"""The shopping storefront (``__SHOPPING__``): catalogue, search, product pages, reviews, cart,
checkout, wish list and the customer's account with its orders."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .common import (
    Site,
    build_app,
    form_choice,
    form_int,
    form_text,
    path_int,
    query_choice,
    query_text,
    read_form,
    redirect,
    require_user,
)
from .shopping_more import delivery, more_routes
from .state import SessionStore
from .views import (
    field,
    filter_links,
    form,
    link,
    money,
    pager,
    pager_view,
    sort_links,
    table,
)

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


def _customer(conn, user: str) -> int:  # type: ignore[no-untyped-def]
    row = conn.execute("SELECT customer_id FROM users WHERE username = ?", (user,)).fetchone()
    if row is None or row[0] is None:
        raise HTTPException(403, "this account has no customer profile")
    return int(row[0])


def make_app(store: SessionStore) -> Starlette:
    """The storefront app over ``store``."""
    site = Site("shopping", "One Stop Market", store,
                nav=[("/categories", "Categories"), ("/cart", "My Cart"),
                     ("/wishlist", "My Wish List"), ("/account", "My Account")],
                search=("/search", "Search entire store here..."))

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

    async def cart_add(request: Request) -> Response:
        user = require_user(request, site.name)
        f = await read_form(request)
        pid, qty = form_int(f, "product_id", 1), form_int(f, "qty", 1, 99)
        with site.db(request) as conn:
            cid = _customer(conn, user)
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
            cid = _customer(conn, user)
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
                                (item, _customer(conn, user))).rowcount:
                raise HTTPException(404, "no such cart item")
        return redirect("/cart")

    async def checkout(request: Request) -> Response:
        user = require_user(request, site.name)
        await read_form(request)
        with site.db(request) as conn:
            cid = _customer(conn, user)
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
            cid = _customer(conn, user)
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
                                (_customer(conn, user),)).fetchall()
        return site.render(request, "page.html", title="My Wish List", sections=[
            {"heading": "Items", "table": table(["Product", "Price"], [
                [link(r["name"], f"/product/{r['id']}"), money(r["price"])] for r in rows])}])

    async def account(request: Request) -> Response:
        user = require_user(request, site.name)
        with site.db(request) as conn:
            c = conn.execute("SELECT * FROM customers WHERE id = ?",
                             (_customer(conn, user),)).fetchone()
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
            cid = _customer(conn, user)
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
                             (number, _customer(conn, user))).fetchone()
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

    async def categories(request: Request) -> Response:
        return await home(request)

    return build_app(site, [
        Route("/", home), Route("/categories", categories), Route("/search", search),
        Route("/contact", contact, methods=["GET", "POST"]),
        Route("/category/{slug}", category), Route("/product/{pid}", product),
        Route("/product/{pid}/review", review, methods=["POST"]),
        Route("/cart", cart), Route("/cart/add", cart_add, methods=["POST"]),
        Route("/cart/remove", cart_remove, methods=["POST"]),
        Route("/checkout", checkout, methods=["POST"]),
        Route("/wishlist", wishlist), Route("/wishlist/add", wishlist_add, methods=["POST"]),
        Route("/account", account), Route("/account/orders", orders),
        Route("/account/orders/{number}", order), *more_routes(site, _customer),
    ])
