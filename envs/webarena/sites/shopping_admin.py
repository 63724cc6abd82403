"""The shop's admin panel (``__SHOPPING_ADMIN__``): products, orders, customers, reviews,
invoices, reports (bestsellers, sales, search terms) and themes. Every page needs the admin
login.

This module is the site's URL map; the pages are in :mod:`.shopping_admin_catalog`,
:mod:`.shopping_admin_sales` and :mod:`.shopping_admin_reports`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .common import Site, build_app
from .shopping_admin_catalog import PRODUCT_SORTS, catalog_pages
from .shopping_admin_reports import report_pages
from .shopping_admin_sales import ORDER_SORTS, ORDER_STATUSES, sales_pages
from .state import SessionStore


def make_app(store: SessionStore) -> Starlette:
    """The admin app over ``store``."""
    site = Site("shopping_admin", "Magento Admin", store,
                nav=[("/products", "Products"), ("/orders", "Orders"),
                     ("/customers", "Customers"), ("/reviews", "Reviews"),
                     ("/reports/bestsellers", "Bestsellers Report"), ("/sales/invoice", "Invoices"),
                     ("/reports", "Reports"), ("/themes", "Themes")],
                search=("/products", "Search products by name or SKU"))
    p = {**catalog_pages(site), **sales_pages(site), **report_pages(site)}
    return build_app(site, [
        Route("/", p["dashboard"]), Route("/products", p["products"]),
        Route("/products/{pid}", p["product"], methods=["GET", "POST"]),
        Route("/orders", p["orders"]), Route("/orders/{oid}", p["order"], methods=["GET", "POST"]),
        Route("/customers", p["customers"]),
        Route("/customers/{cid}", p["customer"], methods=["GET", "POST"]),
        Route("/reviews", p["reviews"]),
        Route("/reviews/{rid}/delete", p["delete_review"], methods=["POST"]),
        Route("/reports/bestsellers", p["bestsellers"]),
        Route("/sales/invoice", p["invoices"]), Route("/sales/invoice/{oid}", p["invoice"]),
        Route("/reports", p["reports"]), Route("/reports/report_sales/{kind}", p["report"]),
        Route("/reports/search_terms", p["search_terms"]), Route("/themes", p["themes"]),
        Route("/themes/{tid}", p["theme"]),
    ])


__all__ = ["ORDER_SORTS", "ORDER_STATUSES", "PRODUCT_SORTS", "make_app"]
