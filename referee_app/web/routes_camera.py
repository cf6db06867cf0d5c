"""The page's camera set-up routes (read-only, so no token): the cameras on this machine, a preview
snapshot of one, and the camera check of what it sees (referee_app.camera_setup).

    GET /api/setup/cameras                      -> {"cameras": [{"index", "width", "height"}],
                                                    "games": the games whose board the check knows}
    GET /api/setup/cameras/<n>/preview.jpg      -> one JPEG snapshot
    GET /api/setup/cameras/<n>/check?game=GAME[&mat=a3]
                                                -> the `camera check` report as JSON (`mat`: the
                                                   printed Tokyo mat's size, tokyo-highway only)

Wired in by `register(app)` from `create_app`; `app.config["camera_opener"]` may replace
cv2.VideoCapture (tests, another capture back end). A camera a match's loop already holds may refuse to
open twice: the answer then says so (404), as for a camera that does not exist.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, jsonify, request

from referee_app import camera_setup
from referee_app.camera_setup import CameraError

MAX_CAMERA = 63


def _error(message: str, status: int) -> tuple[Response, int]:
    return jsonify(error=message, status=status), status


class _Refused(Exception):
    """A request the set-up routes answer with an error (message, HTTP status)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def register(app: Flask) -> None:
    """Add the camera set-up routes to the page's app."""

    def opener() -> Callable[[Any], Any] | None:
        return app.config.get("camera_opener")

    # Opening a camera can take seconds: one set-up request at a time, so no page can hold every
    # server thread on cameras (the others get a 429 at once).
    busy = threading.Lock()

    def index_ok(n: str) -> int | None:
        # ASCII digits only, and short: int() of a 5,000-digit or non-ASCII digit string raises
        return int(n) if n.isascii() and n.isdigit() and len(n) <= 2 and int(n) <= MAX_CAMERA else None

    def one_at_a_time(view: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if not busy.acquire(blocking=False):
                response, status = _error("another camera set-up request is running; try again", 429)
                response.headers["Retry-After"] = "1"
                return response, status
            try:
                return view(*args, **kwargs)
            except _Refused as exc:
                return _error(str(exc), exc.status)
            finally:
                busy.release()

        guarded.__name__ = view.__name__
        return guarded

    def camera_frame(n: str, first: Callable[[], None] | None = None) -> tuple[int, Any]:
        """Camera `n`'s index and one frame of it; `first` runs (and may refuse) before it opens."""
        index = index_ok(n)
        if index is None:
            raise _Refused(f"{n!r}: a camera is a number 0..{MAX_CAMERA}", 404)
        if first is not None:
            first()
        try:
            return index, camera_setup.snapshot(index, opener())
        except CameraError as exc:
            raise _Refused(str(exc), 404) from exc

    def known_game(game: str, mat: str | None) -> None:
        try:
            camera_setup.check_game(game)
            if mat is not None:
                if game not in camera_setup.MAT_GAMES:
                    mat_games = ", ".join(camera_setup.MAT_GAMES)
                    raise CameraError(f"mat is the printed mat's size, for {mat_games} only (not {game})")
                camera_setup.check_mat(mat)
        except CameraError as exc:
            raise _Refused(str(exc), 400) from exc

    @app.get("/api/setup/cameras")
    @one_at_a_time
    def setup_cameras():
        return jsonify(cameras=camera_setup.probe_cameras(opener()), games=list(camera_setup.CHECK_GAMES))

    @app.get("/api/setup/cameras/<n>/preview.jpg")
    @one_at_a_time
    def setup_preview(n: str):
        import cv2

        _index, frame = camera_frame(n)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            return _error("could not encode the snapshot", 503)
        return Response(buf.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/setup/cameras/<n>/check")
    @one_at_a_time
    def setup_check(n: str):
        game, mat = request.args.get("game", ""), request.args.get("mat")
        # an unknown game or mat is refused before the camera opens
        index, frame = camera_frame(n, lambda: known_game(game, mat))
        report = camera_setup.run_check(frame, game, mat=mat or "a3")
        report["source"] = f"camera {index}"
        return jsonify(report)
