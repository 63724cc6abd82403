"""Which official WebArena-Lite templates the twin instantiates (:data:`PORTS`), and why the
others cannot be (:data:`UNCOVERED`): the bundled sites lack the feature or the data the template
needs, or the gold answer is a judgement the site data does not fix."""

from __future__ import annotations

from .twin_ports_admin import PORTS_ADMIN
from .twin_ports_extra import PORTS_EXTRA
from .twin_ports_forum import PORTS_FORUM
from .twin_ports_gitlab import PORTS_GITLAB
from .twin_ports_map import PORTS_MAP
from .twin_ports_misc import PORTS_MISC
from .twin_ports_more import PORTS_MORE
from .twin_ports_shop import PORTS_SHOP, Port
from .twin_ports_store import PORTS_STORE

PORTS: dict[int, Port] = {**PORTS_SHOP, **PORTS_MORE, **PORTS_EXTRA, **PORTS_FORUM,
                          **PORTS_MISC, **PORTS_MAP,
                          **PORTS_GITLAB, **PORTS_ADMIN, **PORTS_STORE}
"""Official ``intent_template_id`` -> the port that instantiates it on the bundled data."""

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
