"""The referee's web page and JSON API (Flask; served by waitress in `highway-referee serve`).

Safe by default: requests that change a match need a token (header `X-Referee-Token`, compared
as bytes); request bodies are capped and read by one parser (web/body.py: every failure is a 400);
every error is a JSON object with a 4xx/5xx status, never a stack trace; match ids are checked
against a strict pattern before any path is built from them; the Host header must name this
machine unless the server was started for the network. Hints run under a time budget with a cap on
how many at once (web/budget.py); streams end for unknown matches, when idle, and are capped so
they never hold every server thread (web/streams.py). Reading a match never writes to its log.
The API is described in docs/protocols/openapi.yaml.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from engine import EngineError
from referee_app.csv_cells import safe_row
from referee_app.games import get_adapter
from referee_app.hub import Hub
from referee_app.matchlog import MatchLogError, read_log
from referee_app.replay import ReplayError
from referee_app.replay_steps import states_at
from referee_app.session import SessionError
from referee_app.web import routes_camera, routes_match, routes_teach
from referee_app.web.body import BodyError, int_field, parse_json_object, text_field
from referee_app.web.budget import HINT_CONCURRENT, HINT_SECONDS, Busy, HintBudget
from referee_app.web.streams import IDLE_SECONDS, StreamFull, StreamSlots, default_cap

MAX_BODY = 64 * 1024
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
KEEP_ALIVE = 5.0  # seconds between SSE comments on a quiet stream
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
log = logging.getLogger("referee_app.web")


class ApiError(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _static(name: str) -> bytes:
    return resources.files("referee_app.web").joinpath("static", name).read_bytes()


def create_app(hub: Hub, allow_remote: bool = False, stream_seconds: float = 300.0,
               idle_seconds: float = IDLE_SECONDS, max_streams: int | None = None,
               hint_seconds: float = HINT_SECONDS, max_hints: int = HINT_CONCURRENT) -> Flask:
    """The app. `max_streams` (default: what 32 server threads allow) caps open SSE/MJPEG streams;
    pass `default_cap(threads)` for the server's thread count."""
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["hub"] = hub
    streams = StreamSlots(max_streams if max_streams is not None else default_cap(32), stream_seconds,
                          idle_seconds)
    hints = HintBudget(hint_seconds, max_hints)
    app.config["streams"], app.config["hints"] = streams, hints

    # -- errors: always JSON, never a traceback ------------------------------------------------
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(error=str(exc), status=exc.status), exc.status

    @app.errorhandler(SessionError)
    @app.errorhandler(BodyError)
    def _session_error(exc: SessionError | BodyError):
        return jsonify(error=str(exc), status=exc.status), exc.status

    @app.errorhandler(Busy)
    @app.errorhandler(StreamFull)
    def _busy(exc: Exception):
        return jsonify(error=str(exc), status=429), 429, {"Retry-After": "5"}

    @app.errorhandler(MatchLogError)
    @app.errorhandler(ReplayError)
    def _log_error(exc: Exception):
        return jsonify(error=f"the match log cannot be used: {exc}", status=422), 422

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return jsonify(error=exc.description or exc.name, status=exc.code), exc.code or 500

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("unexpected error")
        return jsonify(error="internal error: the referee logged the details", status=500), 500

    @app.before_request
    def _host_check():
        if allow_remote:
            return None
        host = (request.host or "").rsplit(":", 1)[0] if not (request.host or "").startswith("[") \
            else (request.host or "").split("]")[0] + "]"
        if host not in LOCAL_HOSTS:
            raise ApiError(f"host {request.host!r} refused: this referee serves localhost only "
                           "(start it with --host 0.0.0.0 to serve the network)", 403)
        return None

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        return resp

    # -- helpers --------------------------------------------------------------------------------
    def match_id_ok(match_id: str) -> str:
        if not MATCH_ID.match(match_id):
            raise ApiError("malformed match id", 400)
        return match_id

    def require_token(match_id: str | None) -> None:
        token = request.headers.get("X-Referee-Token")
        if not hub.check_token(match_id, token):
            raise ApiError("a valid token is needed to change a match (X-Referee-Token header; the "
                           "token is printed in the terminal where the referee was started)", 403)

    def body() -> dict[str, Any]:
        return parse_json_object(request.get_data(cache=True))

    def client_gone() -> Callable[[], bool]:
        """Whether the client of this request has disconnected: waitress can tell while a stream
        runs when it reads ahead (`channel_request_lookahead` > 0, as `serve` sets it)."""
        check = request.environ.get("waitress.client_disconnected")
        return check if callable(check) else (lambda: False)

    def known_match(match_id: str) -> str:
        """404 at once unless the match exists (open, or a log in the store)."""
        if match_id_ok(match_id) not in hub.sessions and not hub.store.path(match_id).exists():
            raise ApiError(f"no match {match_id!r}", 404)
        return match_id

    def session_summary(match_id: str) -> dict[str, Any]:
        session = hub.session(match_id_ok(match_id))
        out = session.summary()
        adapter = get_adapter(session.game.name)
        try:
            out["extras"] = adapter.extras(session.state)
        except Exception:  # a drawing/scoring helper must not take the page down
            log.exception("extras failed")
            out["extras"] = {}
        out["has_reader"] = adapter.has_reader
        out["last_event_id"] = hub.last_event_id(match_id)  # the page's stream starts after these
        out["loop"] = hub.loops[match_id].status() if match_id in hub.loops else None
        return out

    # -- pages ----------------------------------------------------------------------------------
    @app.get("/")
    def index():
        return Response(_static("index.html"), mimetype="text/html")

    @app.get("/static/<name>")
    def static_file(name: str):
        types = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png"}
        ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        if ext not in types or not re.match(r"^[a-z0-9_-]+\.[a-z]+$", name):
            raise ApiError("not found", 404)
        try:
            return Response(_static(name), mimetype=types[ext])
        except (FileNotFoundError, OSError):
            raise ApiError("not found", 404) from None

    # -- API --------------------------------------------------------------------------------------
    @app.get("/api/status")
    def status():
        return jsonify(camera=hub.camera, featured=hub.featured,
                       games=[{"name": g.name, "title": g.title, "min_players": g.min_players,
                               "max_players": g.max_players} for g in _games()],
                       loops={k: v.status() for k, v in hub.loops.items()})

    @app.get("/api/matches")
    def list_matches():
        rows = []
        for info in hub.store.list():
            row = info.to_json()
            row.pop("path", None)  # the page needs no file system paths
            rows.append(row)
        return jsonify(matches=rows)

    @app.post("/api/matches")
    def create_match():
        require_token(None)
        data = body()
        game = data.get("game")
        players = data.get("players")
        variant = data.get("variant", {})
        if not isinstance(game, str) or not isinstance(players, list) or len(players) > 16 or \
                not all(isinstance(p, str) and 0 < len(p) <= 40 for p in players):
            raise ApiError("give 'game' (a name from /api/status) and 'players' (a list of names, "
                           "1-40 characters each)", 400)
        if variant is None:
            variant = {}
        if not isinstance(variant, dict):
            raise ApiError("'variant' must be an object of the game's options", 400)
        try:  # the hub checks game, player count and variant before it writes anything
            session = hub.create_match(game, players, variant)
        except EngineError as exc:
            raise ApiError(str(exc), 400) from exc
        return jsonify(match_id=session.match_id, token=session.token), 201

    @app.get("/api/matches/<match_id>")
    def get_match(match_id: str):
        return jsonify(session_summary(match_id))

    @app.get("/api/matches/<match_id>/board.svg")
    def board_svg(match_id: str):
        session = hub.session(match_id_ok(match_id))
        svg = get_adapter(session.game.name).board_svg(session.state)
        return Response(svg, mimetype="image/svg+xml")

    @app.get("/api/matches/<match_id>/hint")
    def hint(match_id: str):
        session = hub.session(match_id_ok(match_id))
        found = hints.run(get_adapter(session.game.name), session.state)
        return jsonify(hint=found, budget_seconds=hints.seconds)

    @app.post("/api/matches/<match_id>/actions")
    def post_action(match_id: str):
        match_id_ok(match_id)
        require_token(match_id)
        data = body()
        notation = text_field(data, "notation", "the move (in the game's notation)")
        assert notation is not None
        session = hub.session(match_id)
        action = session.parse(notation)
        played = session.submit(action, source="manual",
                                cells=get_adapter(session.game.name).action_cells(action))
        return jsonify(seq=played.seq, notation=played.action.notation(), verdict=played.verdict.to_json(),
                       match=session_summary(match_id))

    @app.post("/api/matches/<match_id>/corrections")
    def post_correction(match_id: str):
        match_id_ok(match_id)
        require_token(match_id)
        data = body()
        target = int_field(data, "target", "the seq number of the action to withdraw")
        replacement = data.get("replacement") or None
        if replacement is not None:
            replacement = text_field(data, "replacement", "the move played instead")
        reason = data.get("reason") or ""
        if not isinstance(reason, str):
            raise ApiError("'reason' must be a short text", 400)
        session = hub.session(match_id)
        out = session.correct(target, replacement, source="manual", reason=reason[:200])
        return jsonify(out | {"match": session_summary(match_id)})

    @app.post("/api/matches/<match_id>/confirm")
    def confirm(match_id: str):
        """Answer a 'confirm-needed' question of the camera loop with the chosen move."""
        match_id_ok(match_id)
        require_token(match_id)
        loop = hub.loops.get(match_id)
        data = body()
        if loop is None:
            raise ApiError("no camera loop runs for this match", 409)
        choice = text_field(data, "notation", "the chosen move")
        return jsonify(loop.confirm(choice))

    @app.get("/api/matches/<match_id>/events")
    def event_stream(match_id: str):
        known_match(match_id)
        last = _int_arg(request.headers.get("Last-Event-ID") or request.args.get("last_id") or "0",
                        "Last-Event-ID")
        hold = _seconds_arg(request.args.get("timeout"), stream_seconds)
        hub.session(match_id)  # a log that cannot be opened answers now, not inside the stream
        idle = streams.idle_seconds
        gone = client_gone()

        def gen():
            nonlocal last
            now = time.monotonic()
            end, quiet_until, alive_at = now + hold, now + idle, now + KEEP_ALIVE
            yield "retry: 1000\n\n"
            while (now := time.monotonic()) < min(end, quiet_until) and not gone():
                # wake every second to see whether the client left (waitress tells when it reads
                # ahead); a keep-alive every few seconds finds it out where it does not
                found = hub.wait_events(match_id, last, min(1.0, max(0.05, min(end, quiet_until) - now)))
                if not found:
                    if time.monotonic() >= alive_at:
                        alive_at = time.monotonic() + KEEP_ALIVE
                        yield ": keep-alive\n\n"
                    continue
                quiet_until = time.monotonic() + idle
                for event in found:
                    last = event.id
                    yield f"id: {event.id}\nevent: {event.kind}\ndata: {json.dumps(event.to_json())}\n\n"

        return streams.respond(gen(), mimetype="text/event-stream",
                               headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/matches/<match_id>/replay")
    def replay_step(match_id: str):
        path = hub.store.path(match_id_ok(match_id))
        if not path.exists():
            raise ApiError(f"no match {match_id!r}", 404)
        step = _int_arg(request.args.get("step", "-1"), "step")
        try:
            contents = read_log(path)
        except MatchLogError as exc:
            raise ApiError(str(exc), 422) from exc
        steps = states_at(contents)
        if step < 0 or step >= len(steps):
            step = len(steps) - 1
        state, info = steps[step]
        adapter = get_adapter(contents.header.game)
        return jsonify(step=step, steps=len(steps), info=info, svg=adapter.board_svg(state),
                       state=state.to_json(), problems=[str(p) for p in contents.problems])

    @app.get("/api/matches/<match_id>/export")
    def export(match_id: str):
        path = hub.store.path(match_id_ok(match_id))
        if not path.exists():
            raise ApiError(f"no match {match_id!r}", 404)
        fmt = request.args.get("format", "jsonl")
        if fmt == "jsonl":
            return Response(path.read_bytes(), mimetype="application/x-ndjson",
                            headers={"Content-Disposition": f'attachment; filename="{match_id}.jsonl"'})
        try:
            contents = read_log(path)
        except MatchLogError as exc:
            raise ApiError(str(exc), 422) from exc
        if fmt == "json":
            return jsonify(header=contents.header.to_json(), records=contents.records,
                           problems=[str(p) for p in contents.problems])
        if fmt == "csv":
            out = io.StringIO()
            w = csv.writer(out)
            w.writerow(["seq", "type", "time", "source", "confidence", "notation", "legal", "rule", "reason"])
            for r in contents.records:
                v = r.get("verdict") or {}
                w.writerow(safe_row([r["seq"], r["type"], r.get("t", ""), r.get("source", ""),
                                     r.get("confidence", ""), r.get("notation", r.get("message", "")),
                                     v.get("legal", ""), v.get("rule", ""),
                                     v.get("reason", r.get("reason", ""))]))
            return Response(out.getvalue(), mimetype="text/csv",
                            headers={"Content-Disposition": f'attachment; filename="{match_id}.csv"'})
        raise ApiError("format must be jsonl, json or csv", 400)

    # -- cameras: every camera of a match's loop, read-only ------------------------------------------
    def camera_loop(match_id: str) -> Any:
        """The loop watching a match, or a 404 saying whether the match or its camera is missing
        (no session is opened just to look: reading pictures changes nothing)."""
        loop = hub.loops.get(match_id_ok(match_id))
        if loop is not None:
            return loop
        if match_id in hub.sessions or hub.store.path(match_id).exists():
            raise ApiError(f"no camera watches match {match_id!r} (moves are entered on the page)", 404)
        raise ApiError(f"no match {match_id!r}", 404)

    @app.get("/api/matches/<match_id>/cameras")
    def cameras(match_id: str):
        return jsonify(cameras=camera_loop(match_id).cameras())

    @app.get("/api/matches/<match_id>/cameras/<name>")
    def camera_picture(match_id: str, name: str):
        loop = camera_loop(match_id)
        found = re.fullmatch(r"([0-9]{1,3})\.jpg", name)
        if not found:
            raise ApiError(f"{name!r}: a camera's picture is <n>.jpg, n = 1 for the first camera, 2 ...", 404)
        camera = int(found.group(1))
        try:
            jpeg = loop.camera_jpeg(camera)
        except KeyError:
            have = [c["camera"] for c in loop.cameras()]
            which = f"its cameras are {', '.join(map(str, have))}" if have else "it has sent no frame yet"
            raise ApiError(f"match {match_id!r} has no camera {camera}: {which}", 404) from None
        except LookupError as exc:
            raise ApiError(f"camera {camera} of match {match_id!r} has no picture yet: {exc}", 404) from None
        return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/video.mjpg")
    def video():
        hold = _seconds_arg(request.args.get("timeout"), stream_seconds)
        match_id = request.args.get("match", "")
        if not match_id:
            raise ApiError("give the match whose camera to show: /video.mjpg?match=<id>", 404)
        if not hub.has_frame(match_id_ok(match_id)):
            camera_loop(match_id)  # 404 at once: no such match, or no camera watches it
        idle = streams.idle_seconds
        gone = client_gone()

        def gen():
            # each part ends with the next boundary, so a browser shows a frame as soon as it is
            # sent instead of when the next one arrives (the last frame of a still scene shows too)
            yield b"--frame\r\n"
            previous, quiet_until = None, time.monotonic() + idle
            for jpeg in hub.frames(hold, match_id):  # a new frame, or the same one again each second
                if gone():
                    return
                if jpeg is not previous:  # a still scene re-sends the same frame: that is idle
                    previous, quiet_until = jpeg, time.monotonic() + idle
                elif time.monotonic() > quiet_until:
                    return
                yield (b"Content-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode()
                       + b"\r\n\r\n" + jpeg + b"\r\n--frame\r\n")

        return streams.respond(gen(), mimetype="multipart/x-mixed-replace; boundary=frame",
                               headers={"Cache-Control": "no-cache"})

    routes_match.register(app, hub, require_token)  # end match, games' options, favicon
    routes_camera.register(app)  # camera list, preview snapshot, camera check
    routes_teach.register(app, hub, require_token)  # Teach my dice: photos, profiles, a match's profile
    return app


def _int_arg(text: str, name: str) -> int:
    if len(text) > 20 or not re.fullmatch(r"-?[0-9]+", text.strip()):
        raise ApiError(f"{name} must be a whole number", 400)
    return int(text)


def _seconds_arg(text: str | None, most: float) -> float:
    """A stream's `timeout` (seconds, at most `most`; the default)."""
    if text is None:
        return most
    try:
        value = float(text)
    except ValueError:
        raise ApiError("timeout must be a number of seconds", 400) from None
    if not value == value:  # NaN
        raise ApiError("timeout must be a number of seconds", 400)
    return max(0.0, min(value, most))


def _games():
    import engine

    return engine.games()
