"""Fictional names for the generated encyclopedia: people, places, organisations, works, events.

Names are built from syllables with a seeded :class:`random.Random`, so the same seed gives the
same names, and every name is unique across the whole world (a :class:`NameBook` refuses
repeats). No name is a real word a model could know from pre-training.
"""

from __future__ import annotations

import random

_ONSETS = (
    "b br c cr d dr f g gr h k kl l m n p pr qu r s st sk t tr v vr w z th sh ch"
).split()
_VOWELS = "a e i o u ae ei ou ia y".split()
_CODAS = ("", "", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "x", "v")
_PLACE_ENDS = ("ford", "holm", "stad", "mere", "wick", "burg", "vale", "port", "dun", "ria")
_RIVER_ENDS = ("a", "el", "is", "ova", "ent")


def _word(rng: random.Random, syllables: int) -> str:
    """One capitalised pseudo-word of ``syllables`` syllables."""
    parts = []
    for i in range(syllables):
        coda = rng.choice(_CODAS) if i == syllables - 1 else ""
        parts.append(rng.choice(_ONSETS) + rng.choice(_VOWELS) + coda)
    return "".join(parts).capitalize()


class NameBook:
    """Draws unique fictional names of each kind from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.used_words: set[str] = set()

    def _unique(self, make: object) -> str:
        for _ in range(1000):
            name = make()  # type: ignore[operator]
            if name not in self.used:
                self.used.add(name)
                return str(name)
        raise RuntimeError("name space exhausted; lower the world size")

    def _fresh_word(self, syllables: int, suffix: str = "") -> str:
        """A word never drawn before (so one entity's name shares no token with another's)."""
        for _ in range(1000):
            word = _word(self.rng, syllables) + suffix
            if word.lower() not in self.used_words and len(word) > 3:
                self.used_words.add(word.lower())
                return word
        raise RuntimeError("word space exhausted; lower the world size")

    def person(self) -> str:
        """``Given Family``: a fresh family name, a given name that may repeat."""
        return self._unique(
            lambda: f"{_word(self.rng, self.rng.choice((2, 2, 3)))} {self._fresh_word(3)}"
        )

    def country(self) -> str:
        """A country name such as ``Velloria``."""
        return self._unique(lambda: self._fresh_word(2, self.rng.choice(("ia", "land", "onia"))))

    def city(self) -> str:
        """A city name such as ``Ostermere``."""
        return self._unique(lambda: self._fresh_word(2) + self.rng.choice(_PLACE_ENDS))

    def river(self) -> str:
        """A river's name (used with ``the ... River``)."""
        return self._unique(lambda: self._fresh_word(2, self.rng.choice(_RIVER_ENDS)))

    def organisation(self, kind: str) -> str:
        """An organisation name, e.g. ``Tallmere Instrument Company`` for ``kind='company'``."""
        patterns = {
            "company": ("{w} Trading Company", "{w} Works", "{w} and Sons", "{w} Holdings"),
            "university": ("University of {w}", "{w} College", "{w} Institute"),
            "orchestra": ("{w} Philharmonic", "{w} Orchestra", "{w} Ensemble"),
            "newspaper": ("The {w} Gazette", "The {w} Courier", "{w} Herald"),
            "guild": ("Guild of {w}", "{w} Society", "{w} League"),
        }
        return self._unique(
            lambda: self.rng.choice(patterns[kind]).format(w=self._fresh_word(3))
        )

    def work(self) -> str:
        """A title such as ``The Lantern of Quovarth``."""
        nouns = ("Lantern", "Harbour", "Winter", "Orchard", "Crown", "Mirror", "Tide", "Bell",
                 "Garden", "Road", "Tower", "Letters", "Song", "Ashes", "Glass")
        return self._unique(
            lambda: self.rng.choice(("The {n} of {w}", "{w}", "{w} {n}", "A {n} for {w}")).format(
                n=self.rng.choice(nouns), w=self._fresh_word(3)
            )
        )

    def event(self) -> str:
        """An event name such as ``Treaty of Kelvamar`` (a fresh word in each)."""
        kinds = ("Treaty of {w}", "{w} Festival", "Battle of {w}", "{w} Exhibition",
                 "{w} Congress", "Great Fire of {w}")
        return self._unique(lambda: self.rng.choice(kinds).format(w=self._fresh_word(3)))
