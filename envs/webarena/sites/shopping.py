"""The shopping storefront (``__SHOPPING__``): catalogue, search, product pages, reviews, cart,
checkout, wish list and the customer's account with its orders.

This module is the site's URL map; the pages are in :mod:`.shopping_catalog`,
:mod:`.shopping_cart` and :mod:`.shopping_account`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from .common import Site, build_app
from .shopping_account import account_pages, delivery
from .shopping_cart import cart_pages
from .shopping_catalog import CONTACT_PHONE, PRICE_CAPS, SORTS, catalog_pages
from .state import SessionStore


def make_app(store: SessionStore) -> Starlette:
    """The storefront app over ``store``."""
    site = Site("shopping", "One Stop Market", store,
                nav=[("/categories", "Categories"), ("/cart", "My Cart"),
                     ("/wishlist", "My Wish List"), ("/account", "My Account")],
                search=("/search", "Search entire store here..."))
    p = {**catalog_pages(site), **cart_pages(site), **account_pages(site)}
    return build_app(site, [
        Route("/", p["home"]), Route("/categories", p["categories"]),
        Route("/search", p["search"]), Route("/contact", p["contact"], methods=["GET", "POST"]),
        Route("/category/{slug}", p["category"]), Route("/product/{pid}", p["product"]),
        Route("/product/{pid}/review", p["review"], methods=["POST"]),
        Route("/cart", p["cart"]), Route("/cart/add", p["cart_add"], methods=["POST"]),
        Route("/cart/remove", p["cart_remove"], methods=["POST"]),
        Route("/checkout", p["checkout"], methods=["POST"]),
        Route("/wishlist", p["wishlist"]),
        Route("/wishlist/add", p["wishlist_add"], methods=["POST"]),
        Route("/account", p["account"]), Route("/account/orders", p["orders"]),
        Route("/account/orders/{number}", p["order"]),
        Route("/newsletter/manage", p["newsletter"], methods=["GET", "POST"]),
    ])


__all__ = ["CONTACT_PHONE", "PRICE_CAPS", "SORTS", "delivery", "make_app"]
