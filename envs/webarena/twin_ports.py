"""Which official WebArena-Lite templates the twin instantiates (:data:`PORTS`), and why the
others cannot be (:data:`UNCOVERED`): the bundled sites lack the feature or the data the template
needs, or the gold answer is a judgement the site data does not fix."""

from __future__ import annotations

from .twin_port_shape import Port
from .twin_ports_account import PORTS_ACCOUNT
from .twin_ports_admin import PORTS_ADMIN
from .twin_ports_admin_reports import PORTS_ADMIN_REPORTS
from .twin_ports_forum import PORTS_FORUM
from .twin_ports_gitlab import PORTS_GITLAB
from .twin_ports_map import PORTS_MAP
from .twin_ports_map_routes import PORTS_MAP_ROUTES
from .twin_ports_reviews import PORTS_REVIEWS
from .twin_ports_shop import PORTS_SHOP

_GROUPS: tuple[dict[int, Port], ...] = (
    PORTS_SHOP, PORTS_ACCOUNT, PORTS_REVIEWS, PORTS_ADMIN, PORTS_ADMIN_REPORTS, PORTS_GITLAB,
    PORTS_MAP, PORTS_MAP_ROUTES, PORTS_FORUM)
PORTS: dict[int, Port] = {oid: p for group in _GROUPS for oid, p in group.items()}
"""Official ``intent_template_id`` -> the port that instantiates it on the bundled data (one
module per site and concern: ``twin_ports_<site>[_<concern>].py``)."""
if sum(map(len, _GROUPS)) != len(PORTS):  # a template id ported twice: one would be lost
    raise RuntimeError("a WebArena-Lite template id has two ports")

_WHY: dict[str, tuple[int, ...]] = {
    "needs facts the bundled map and wiki do not hold (US state borders, sports teams' "
    "stadiums, university rankings, the September 11 crash sites)": (67, 94, 120, 371),
    "the gold is a judgement on products (what alleviates jaw bruxism) the site data does not "
    "fix": (151,),
    "names products, brands or attributes the bundled store does not sell (EYZUTAK cases, "
    "Switch cards, storage capacity, XBox models, shirts)": (171, 207, 210, 237, 666, 1356),
    "the gold is 'N/A' (no item is discounted), which the twin's answer checks refuse as an "
    "answer anyone can give without looking": (188,),
    "needs several open browser tabs": (145,),
    "needs product options (sizes, configurable variants) and option editing": (252,),
    "needs account address editing or order address changes, missing from the bundled sites":
        (165, 191, 240),
    "needs shipments and tracking numbers the bundled orders lack": (284,),
    "needs admin features the bundled panel lacks (CMS pages, order comments, review "
    "statuses, description editing)": (251, 275, 277, 280),
    "needs GitLab features the bundled site lacks (merge request creation, merge request "
    "comments, following users, project creation and templates, due dates, issue update "
    "times; a dotfiles repository)": (292, 294, 310, 327, 330, 332, 335, 348, 360, 2100),
    "needs forum features the bundled forum lacks (forum creation, images, post editing)":
        (7, 11, 27),
    "cross-site tasks whose gold is written content (repository READMEs, posts linking "
    "repositories, review titles posted to a forum)": (84, 88, 101, 116),
}
UNCOVERED: dict[int, str] = {oid: why for why, ids in _WHY.items() for oid in ids}
"""Official template id -> why the twin does not instantiate it."""
