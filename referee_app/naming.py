"""Players by their names in what the command line prints.

The engines name a seat their own way in verdicts and outcomes: "Player 2" (counted from 1) in the
4x4 game, "player 0" and "p0" (from 0) in Railroad Ink, a seat's colour in the dice road game and
Tokyo Highway. A match knows its players' names, so text shown for a match writes the name instead;
the page does the same in referee_app/web/static/app.js (`namingRules`). Logs keep the engines'
words, so a replay still compares verdicts exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

DICE_SEATS = ("white", "blue", "green", "yellow")  # engine.dice_road.SEAT_COLOURS, in seat order

Namer = Callable[[str], str]


def _seat_words(game: str, state: Any) -> list[tuple[str, Callable[[str], int]]]:
    """(regular expression with one group, the seat that group names) for each way `game`'s engine
    writes a seat."""
    if game == "highway-grid":
        return [(r"\b[Pp]layer ([12])\b", lambda n: int(n) - 1)]
    if game == "railroad-ink":
        return [(r"\b[Pp]layer (\d+)\b", int), (r"\bp(\d+)\b", int)]
    colours: Sequence[str] = ()
    if game == "highway-dice":
        colours = DICE_SEATS
    elif game == "tokyo-highway":
        colours = getattr(getattr(state, "rules", None), "colors", None) or ()
    if not colours:
        return []
    words = [c.lower() for c in colours]
    return [(r"(?i:\b(" + "|".join(map(re.escape, words)) + r")\b)", lambda w: words.index(w.lower()))]


def namer(game: str, players: Sequence[str], state: Any = None) -> Namer:
    """A function that writes each seat `game`'s engine names in a text as that player's name
    (`state` gives Tokyo Highway's colours). A seat the match does not have is left as written.
    One pass over the text, so a name that looks like a seat ("Player 2" for seat 0) stays."""
    rules = _seat_words(game, state)
    names = list(players)
    if not rules or not names:
        return lambda text: text
    pattern = re.compile("|".join(f"(?P<s{k}>{regex})" for k, (regex, _) in enumerate(rules)))

    def one(m: re.Match[str]) -> str:
        k = int(m.lastgroup[1:]) if m.lastgroup else 0
        seat = rules[k][1](m.group(m.re.groupindex[f"s{k}"] + 1))
        return names[seat] if 0 <= seat < len(names) else m.group(0)

    return lambda text: pattern.sub(one, text)


def match_namer(game: str, players: Sequence[str], variant: dict[str, Any] | None = None) -> Namer:
    """`namer` for a match known by its log header (its game, players and variant)."""
    state = None
    if game == "tokyo-highway":  # the colours are the match's rules
        import engine

        try:
            state = engine.get_game(game).new_state(players=len(players), **(variant or {}))
        except Exception:  # noqa: BLE001 - a header the engine refuses: leave the colours as written
            state = None
    return namer(game, players, state)
