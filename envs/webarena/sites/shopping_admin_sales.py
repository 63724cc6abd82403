"""The admin panel's sales pages: the dashboard's figures, the order grid and an order's page
(with its status form), the customer grid and a customer's page, and the bestsellers report.
Every page needs the admin login."""

from __future__ import annotations

from typing import Any

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
from .shopping_admin_reports import top_terms_section
from .views import field, filter_links, form, link, money, pager, pager_view, sort_links, table

ORDER_STATUSES = ("pending", "processing", "complete", "canceled", "on hold")
ORDER_SORTS = {"newest": "Purchase Date (newest)", "oldest": "Purchase Date (oldest)",
               "total": "Grand Total (highest)"}
_ORDER_ORDER = {"newest": "o.created DESC, o.id DESC", "oldest": "o.created, o.id",
                "total": "o.total DESC, o.id"}


def sales_pages(site: Site) -> Pages:
    """The sales pages' endpoints by name."""

    def page(request: Request, **ctx: Any) -> Response:
        return site.render(request, "page.html",
                           message=request.query_params.get("msg", "")[:80], **ctx)

    async def dashboard(request: Request) -> Response:
        require_user(request, site.name)
        with site.db(request) as conn:
            n_orders, revenue = conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(total), 0) FROM orders WHERE status != 'canceled'"
            ).fetchone()
            n_customers = conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0]
            terms = top_terms_section(conn)
        return page(request, title="Dashboard", facts=[
            ("Orders (not canceled)", n_orders), ("Lifetime Sales", money(revenue)),
            ("Customers", n_customers)], sections=[terms])

    async def orders(request: Request) -> Response:
        require_user(request, site.name)
        status = query_choice(request, "status", ("all", *ORDER_STATUSES))
        sort = query_choice(request, "sort", tuple(ORDER_SORTS))
        where = "1" if status == "all" else "o.status = ?"
        args: tuple[Any, ...] = () if status == "all" else (status,)
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM orders o WHERE {where}", args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(
                "SELECT o.*, c.first_name || ' ' || c.last_name AS customer FROM orders o JOIN "
                f"customers c ON c.id = o.customer_id WHERE {where} ORDER BY {_ORDER_ORDER[sort]}"
                " LIMIT ? OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        statuses = {"all": "All", **{s: s.title() for s in ORDER_STATUSES}}
        return page(request, title="Orders", intro=f"{total} records found", sections=[
            {"heading": "Filter by status", "links": filter_links(request, "status", statuses,
                                                                  status)},
            {"heading": "Sort", "links": sort_links(request, "sort", ORDER_SORTS, sort)},
            {"heading": "Orders", "table": table(
                ["Order #", "Purchase Date", "Bill-to Name", "Grand Total", "Status"],
                [[link(r["number"], f"/orders/{r['id']}"), r["created"], r["customer"],
                  money(r["total"]), r["status"].title()] for r in rows])}],
            pager=pager_view(request, p))

    async def order(request: Request) -> Response:
        require_user(request, site.name)
        oid = path_int(request, "oid")
        with site.db(request) as conn:
            o = conn.execute("SELECT o.*, c.first_name || ' ' || c.last_name AS customer, "
                             "c.id AS cid FROM orders o JOIN customers c ON c.id = o.customer_id"
                             " WHERE o.id = ?", (oid,)).fetchone()
            if o is None:
                raise HTTPException(404, "no such order")
            if request.method == "POST":
                status = form_choice(await read_form(request), "status", ORDER_STATUSES)
                conn.execute("UPDATE orders SET status = ? WHERE id = ?", (status, oid))
                return redirect(f"/orders/{oid}?msg=You changed the order status.")
            items = conn.execute("SELECT i.*, p.name, p.sku FROM order_items i JOIN products p"
                                 " ON p.id = i.product_id WHERE order_id = ?", (oid,)).fetchall()
        return page(request, title=f"Order # {o['number']}", facts=[
            ("Order Status", o["status"].title()), ("Order Date", o["created"]),
            ("Customer", link(o["customer"], f"/customers/{o['cid']}")),
            ("Grand Total", money(o["total"]))], sections=[
            {"heading": "Items Ordered", "table": table(["Product", "SKU", "Price", "Qty"], [
                [i["name"], i["sku"], money(i["price"]), i["qty"]] for i in items])},
            {"heading": "Change Status", "forms": [form(f"/orders/{oid}", "Update Status", [
                field("status", "Status", "select", o["status"],
                      [(s, s.title()) for s in ORDER_STATUSES])], id="status")]}])

    async def customers(request: Request) -> Response:
        require_user(request, site.name)
        q = query_text(request, "q")
        where = "(first_name || ' ' || last_name LIKE ? OR email LIKE ? OR city LIKE ?)"
        args = (f"%{q}%",) * 3
        with site.db(request) as conn:
            total = conn.execute(f"SELECT COUNT(*) FROM customers WHERE {where}",
                                 args).fetchone()[0]
            p = pager(request, total)
            rows = conn.execute(f"SELECT * FROM customers WHERE {where} ORDER BY id LIMIT ? "
                                "OFFSET ?", (*args, p.per_page, p.offset)).fetchall()
        return page(request, title="Customers", intro=f"{total} records found", sections=[
            {"heading": "Search customers", "forms": [form("/customers", "Search Customers", [
                field("q", "Name, email or city", value=q)], method="get", id="cq")]},
            {"heading": "All Customers", "table": table(
                ["ID", "Name", "Email", "City", "State", "Group"],
                [[r["id"], link(f"{r['first_name']} {r['last_name']}", f"/customers/{r['id']}"),
                  r["email"], r["city"], r["state"], r["group_name"]] for r in rows])}],
            pager=pager_view(request, p))

    async def customer(request: Request) -> Response:
        require_user(request, site.name)
        cid = path_int(request, "cid")
        with site.db(request) as conn:
            c = conn.execute("SELECT * FROM customers WHERE id = ?", (cid,)).fetchone()
            if c is None:
                raise HTTPException(404, "no such customer")
            if request.method == "POST":
                f = await read_form(request)
                conn.execute("UPDATE customers SET phone = ?, city = ?, group_name = ? WHERE "
                             "id = ?", (form_text(f, "phone", 30), form_text(f, "city", 60),
                                        form_choice(f, "group", ("General", "Wholesale", "VIP")),
                                        cid))
                return redirect(f"/customers/{cid}?msg=You saved the customer.")
            rows = conn.execute("SELECT * FROM orders WHERE customer_id = ? ORDER BY created",
                                (cid,)).fetchall()
        name = f"{c['first_name']} {c['last_name']}"
        return page(request, title=name, facts=[
            ("Email", c["email"]), ("Phone", c["phone"]), ("City", c["city"]),
            ("State", c["state"]), ("Group", c["group_name"])], sections=[
            {"heading": "Orders", "table": table(["Order #", "Date", "Total", "Status"], [
                [link(o["number"], f"/orders/{o['id']}"), o["created"], money(o["total"]),
                 o["status"].title()] for o in rows])},
            {"heading": "Edit Customer", "forms": [form(f"/customers/{cid}", "Save Customer", [
                field("phone", "Phone", value=c["phone"]), field("city", "City", value=c["city"]),
                field("group", "Group", "select", c["group_name"],
                      [(g, g) for g in ("General", "Wholesale", "VIP")])], id="cust")]}])

    async def bestsellers(request: Request) -> Response:
        require_user(request, site.name)
        year = query_choice(request, "year", ("2023", "2022"))
        with site.db(request) as conn:
            rows = conn.execute(
                "SELECT p.name, p.sku, SUM(i.qty) AS qty FROM order_items i JOIN orders o ON "
                "o.id = i.order_id JOIN products p ON p.id = i.product_id WHERE o.status != "
                "'canceled' AND substr(o.created, 1, 4) = ? GROUP BY p.id ORDER BY qty DESC, "
                "p.name LIMIT 20", (year,)).fetchall()
        return page(request, title=f"Bestsellers Report {year}", sections=[
            {"heading": "Year", "links": filter_links(request, "year",
                                                      {"2023": "2023", "2022": "2022"}, year)},
            {"heading": "Bestsellers", "table": table(
                ["Rank", "Product", "SKU", "Quantity Ordered"],
                [[i, r["name"], r["sku"], r["qty"]] for i, r in enumerate(rows, 1)])}])

    return {"dashboard": dashboard, "orders": orders, "order": order, "customers": customers,
            "customer": customer, "bestsellers": bestsellers}
