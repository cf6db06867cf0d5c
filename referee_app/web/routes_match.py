"""The page's match routes beside the main API: what New match can offer per game (players,
variant options, example moves), ending a match, and the site icon.

Registered from `create_app` with `register(app, hub, require_token)`; errors are JSON like the
rest of the API (the app's error handlers answer for SessionError and ApiError).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources
from typing import Any

from flask import Flask, Response, jsonify, request

import engine
from referee_app.hub import Hub
from referee_app.session import SessionError
from referee_app.web.body import parse_json_object

MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# A move the box can show as "e.g. ..." in each game's notation (docs/rules/<game>.md), and the
# roll when the game waits for one.
EXAMPLES: dict[str, dict[str, str]] = {
    "highway-grid": {"move": "7@b2"},
    "highway-dice": {"move": "3>W07 +5", "roll": "R 3 5"},
    "railroad-ink": {"move": "p0 railway_curve B3 R--R",
                     "roll": "roll highway_t railway_curve highway_t overpass"},
    "tokyo-highway": {"move": "purple s1 -> (60,120) h2", "start": "start (0,-57) table (102,-57)"},
}


def _variant_options(game: Any) -> list[dict[str, Any]]:
    """The variant options New match offers for `game` as form fields (the rest need files or
    numbers and stay with the CLI and the API)."""
    if game.name == "railroad-ink":
        from engine.railroad_ink import EXPANSIONS

        return [{"name": "expansions", "kind": "set", "choices": list(EXPANSIONS),
                 "label": "Expansions", "help": game.variants.get("expansions", "")}]
    if game.name == "tokyo-highway":
        out: list[dict[str, Any]] = []
        for name, default in (("own_crossing_blocks_cars", True), ("knock_per_piece", False),
                              ("same_model_bonus", False)):
            out.append({"name": name, "kind": "bool", "default": default,
                        "label": name.replace("_", " ").capitalize(), "help": game.variants.get(name, "")})
        out.append({"name": "first_player", "kind": "seat", "default": 0, "label": "First player",
                    "help": game.variants.get("first_player", "")})
        return out
    return []


def _bad(message: str, status: int = 400) -> SessionError:
    return SessionError(message, status)


def register(app: Flask, hub: Hub, require_token: Callable[[str | None], None]) -> None:
    @app.get("/favicon.ico")
    def favicon():
        data = resources.files("referee_app.web").joinpath("static", "favicon.ico").read_bytes()
        return Response(data, mimetype="image/x-icon", headers={"Cache-Control": "max-age=86400"})

    @app.get("/api/games")
    def games():
        return jsonify(games=[{"name": g.name, "title": g.title, "min_players": g.min_players,
                               "max_players": g.max_players, "rules_doc": g.rules_doc,
                               "examples": EXAMPLES.get(g.name, {}), "variants": _variant_options(g)}
                              for g in engine.games()])

    @app.post("/api/matches/<match_id>/end")
    def end_match(match_id: str):
        """End a match now (token needed): logged as an end record without an outcome."""
        if not MATCH_ID.match(match_id):
            raise _bad("malformed match id")
        require_token(match_id)
        data = parse_json_object(request.get_data(cache=True))
        reason = data.get("reason", "")
        if not isinstance(reason, str) or len(reason) > 200:
            raise _bad("'reason' must be a short text (at most 200 characters)")
        session = hub.end_match(match_id, reason.strip() or "ended on the page")
        return jsonify(match_id=match_id, ended=session.ended, match=session.summary())
