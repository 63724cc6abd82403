"""The fictional world behind the encyclopedia: clusters of related entities and their facts.

The world is a list of *clusters*. Each cluster is a small self-contained region: a country,
its cities, the people born there, the organisations they founded and worked for, the works
they created and the events held there. Every relation stays inside its cluster, so splitting
questions by cluster means no test entity's facts ever answer a train question.

Everything is drawn from one ``random.Random(seed)``: the same seed gives the same world.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from .names import NameBook

OCCUPATIONS = (
    "cartographer", "composer", "physician", "architect", "novelist", "astronomer", "engineer",
    "painter", "botanist", "merchant", "sculptor", "historian", "shipwright", "poet", "chemist",
)
WORK_KINDS = {
    "novelist": "novel", "poet": "poem", "composer": "symphony", "painter": "painting",
    "historian": "chronicle", "sculptor": "sculpture", "architect": "treatise",
}
ORG_KINDS = ("company", "university", "orchestra", "newspaper", "guild")
CURRENCIES = ("crown", "mark", "florin", "talent", "ducat", "shilling", "rupel", "dinar")
LANGUAGES = ("Vellic", "Osmari", "Tarnish", "Quellian", "Drossic", "Amberese", "Kelvic")

PEOPLE_PER_CLUSTER = 10
CITIES_PER_CLUSTER = 3
ORGS_PER_CLUSTER = 3
WORKS_PER_CLUSTER = 5
EVENTS_PER_CLUSTER = 2


@dataclass
class Entity:
    """One encyclopedia subject: a person, country, city, organisation, work or event."""

    eid: str
    kind: str
    name: str
    cluster: int
    attrs: dict[str, Any] = field(default_factory=dict)
    """Facts: plain values (years, words) or other entities' ids (``*_id`` keys)."""
    aliases: tuple[str, ...] = ()
    """Other names an answer may use (a person's family name, a city without its suffix...)."""


@dataclass
class World:
    """All entities, by id, grouped into clusters."""

    seed: int
    entities: dict[str, Entity]
    clusters: list[list[str]]

    def get(self, eid: str) -> Entity:
        """The entity with id ``eid``."""
        return self.entities[eid]

    def of_kind(self, cluster: int, kind: str) -> list[Entity]:
        """The entities of one kind in one cluster, in creation order."""
        return [self.entities[e] for e in self.clusters[cluster] if self.entities[e].kind == kind]


def _year(rng: random.Random, low: int, high: int) -> int:
    return rng.randint(low, high)


def build_world(seed: int = 0, n_clusters: int = 200) -> World:
    """Generate ``n_clusters`` clusters of related entities from ``seed``."""
    rng = random.Random(seed)
    names = NameBook(rng)
    entities: dict[str, Entity] = {}
    clusters: list[list[str]] = []

    def add(kind: str, name: str, cluster: int, aliases: tuple[str, ...] = (),
            **attrs: Any) -> Entity:
        ent = Entity(f"{kind[:3]}{len(entities):05d}", kind, name, cluster, attrs, aliases)
        entities[ent.eid] = ent
        clusters[cluster].append(ent.eid)
        return ent

    for c in range(n_clusters):
        clusters.append([])
        country = add("country", names.country(), c, founded=_year(rng, 900, 1500),
                      currency=rng.choice(CURRENCIES), language=rng.choice(LANGUAGES))
        cities = []
        for _ in range(CITIES_PER_CLUSTER):
            city = names.city()
            river = names.river()
            cities.append(add("city", city, c, country_id=country.eid,
                              founded=_year(rng, 1000, 1700),
                              population=rng.randrange(20_000, 2_000_000, 1_000),
                              river=f"{river} River"))
        country.attrs["capital_id"] = cities[0].eid
        people = []
        for _ in range(PEOPLE_PER_CLUSTER):
            name = names.person()
            born = _year(rng, 1700, 1950)
            people.append(add("person", name, c, aliases=(name.split()[-1],),
                              born=born, died=born + rng.randint(35, 95),
                              birthplace_id=rng.choice(cities).eid,
                              occupation=rng.choice(OCCUPATIONS)))
        orgs = []
        for i in range(ORGS_PER_CLUSTER):
            kind = rng.choice(ORG_KINDS)
            founder = people[i]
            orgs.append(add("organisation", names.organisation(kind), c, org_kind=kind,
                            founded=founder.attrs["born"] + rng.randint(25, 50),
                            founder_id=founder.eid, hq_id=rng.choice(cities).eid))
        for person in people:
            person.attrs["employer_id"] = rng.choice(orgs).eid
        for _ in range(WORKS_PER_CLUSTER):
            creator = rng.choice(people)
            kind = WORK_KINDS.get(creator.attrs["occupation"], "memoir")
            add("work", names.work(), c, work_kind=kind, creator_id=creator.eid,
                year=creator.attrs["born"] + rng.randint(20, 34))
        for _ in range(EVENTS_PER_CLUSTER):
            organiser = rng.choice(orgs)
            add("event", names.event(), c, location_id=rng.choice(cities).eid,
                organiser_id=organiser.eid, year=organiser.attrs["founded"] + rng.randint(1, 60))
    return World(seed, entities, clusters)
