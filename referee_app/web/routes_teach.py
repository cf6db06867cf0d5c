"""The page's Teach my dice routes (referee_app.dice_teaching holds the photos and saves the profiles):

    POST /api/teach/photos                 token; a photo (JPEG/PNG body, at most 8 MiB), {"camera": n}
                                           or {"match": id} (a frame of the camera the match watches):
                                           what the dice reader found on it
    GET  /api/teach/photos/<id>.jpg        that photo (a camera's frame has no other copy on the page)
    POST /api/teach/profiles               token; {"name", "photos": [{"photo", "values", "added"}],
                                           "symbols", "replace"} ("added": dice the reader missed,
                                           boxed by the player): teach and save
                                           DATA/dice-profiles/NAME.json
    GET  /api/teach/profiles               the saved profiles' names
    POST /api/matches/<id>/dice-profile    the match's token; {"profile": NAME}: its camera reads the
                                           dice with it from the next frame on

Every value is checked before the reader runs or a file is written; errors are JSON with a 4xx (429
while another teaching request runs, with Retry-After)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from referee_app import camera_setup
from referee_app.camera_setup import CameraError
from referee_app.dice_teaching import MAX_UPLOAD, PHOTO_ID, TeachError, Teaching, decode_photo, match_frame
from referee_app.web.body import parse_json_object

IMAGE_TYPES = ("image/jpeg", "image/png", "application/octet-stream")
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _error(message: str, status: int) -> tuple[Response, int]:
    response = jsonify(error=message, status=status)
    if status == 429:
        response.headers["Retry-After"] = "2"
    return response, status


def register(app: Flask, hub: Any, require_token: Callable[[str | None], None]) -> None:
    teaching = Teaching(hub.store.data_dir)
    app.config["teaching"] = teaching

    @app.errorhandler(TeachError)
    def _teach_error(exc: TeachError):
        return _error(str(exc), exc.status)

    def json_body() -> dict[str, Any]:
        return parse_json_object(request.get_data(cache=True))

    @app.post("/api/teach/photos")
    def teach_photo():
        require_token(None)
        kind = (request.mimetype or "").lower()
        if kind in IMAGE_TYPES:
            request.max_content_length = MAX_UPLOAD  # this route alone takes a photo (413 above)
            try:
                data = request.get_data(cache=False)
            except RequestEntityTooLarge:
                raise TeachError(f"the photo is larger than {MAX_UPLOAD // (1024 * 1024)} MiB: send a "
                                 "smaller one (a 1280×720 camera frame is plenty)", 413) from None
            image = decode_photo(data)
            source = "upload"
        else:
            data = json_body()
            if "match" in data:
                image, source = frame_of_match(data["match"])
                photo = teaching.add_photo(image, source)
                return jsonify(photo.to_json() | {"max_photos": teaching.max_photos}), 201
            camera = data.get("camera")
            if isinstance(camera, bool) or not isinstance(camera, int) or not 0 <= camera <= 63:
                raise TeachError("send a photo (Content-Type image/jpeg or image/png), or {\"camera\": n}, "
                                 "n = 0..63, or {\"match\": id} to take one from a camera")
            try:
                image = camera_setup.snapshot(camera, app.config.get("camera_opener"))
            except CameraError as exc:
                raise TeachError(f"{exc}. A camera the referee is watching cannot be opened twice: "
                                 "upload a photo instead", 404) from exc
            source = f"camera {camera}"
        photo = teaching.add_photo(image, source)
        return jsonify(photo.to_json() | {"max_photos": teaching.max_photos}), 201

    def frame_of_match(match_id: Any) -> tuple[Any, str]:
        """A plain frame of the camera a running match watches (that camera cannot be opened twice)."""
        if not isinstance(match_id, str) or not MATCH_ID.match(match_id):
            raise TeachError("'match' is a match id")
        loop = hub.loops.get(match_id)
        if loop is None:
            raise TeachError(f"no camera watches match {match_id!r}", 404)
        image = match_frame(loop)
        if image is None:
            raise TeachError(f"the camera of match {match_id!r} has sent no frame yet: try again when the "
                             "live view shows the table", 404)
        return image, f"camera of match {match_id}"

    @app.get("/api/teach/photos/<name>")
    def teach_photo_jpeg(name: str):
        import cv2

        found = re.fullmatch(r"([0-9a-f]{16})\.jpg", name)
        if not found or not PHOTO_ID.match(found.group(1)):
            raise TeachError(f"{name[:40]!r}: a teaching photo is <id>.jpg", 404)
        photo = teaching.photo(found.group(1))
        ok, buf = cv2.imencode(".jpg", photo.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise TeachError("could not encode the photo", 404)
        return Response(buf.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/teach/profiles")
    def teach_profiles():
        return jsonify(profiles=teaching.names())

    @app.post("/api/teach/profiles")
    def teach_save():
        require_token(None)
        data = json_body()
        replace = data.get("replace", False)
        if not isinstance(replace, bool):
            raise TeachError("'replace' is true or false")
        path, profile = teaching.save(data.get("name"), data.get("photos"), replace, data.get("symbols"))
        counts = profile.counts
        return jsonify(name=path.stem, file=str(path.resolve()),
                       dice_per_value={str(k): v for k, v in sorted(counts.items())},
                       untaught=[v for v in range(1, 7) if v not in counts], keep=profile.keep,
                       photos=len(profile.taught_on.get("photos", [])),
                       symbols={str(k): v for k, v in sorted(profile.symbols.items())},
                       serve=f"highway-referee serve ... --dice-profile {path.resolve()}"), 201

    @app.post("/api/matches/<match_id>/dice-profile")
    def use_profile(match_id: str):
        from vision.learned.profile import load_profile
        from vision.types import VisionError

        if not MATCH_ID.match(match_id):
            raise TeachError("malformed match id", 400)
        require_token(match_id)
        data = json_body()
        path = teaching.profile_path(data.get("profile"))
        loop = hub.loops.get(match_id)
        if loop is None:
            if match_id in hub.sessions or hub.store.path(match_id).exists():
                raise TeachError(f"no camera watches match {match_id!r}: a profile is for the dice a "
                                 "camera reads", 409)
            raise TeachError(f"no match {match_id!r}", 404)
        adapter = loop.adapter
        if not hasattr(adapter, "use_dice_profile"):
            raise TeachError(f"{loop.session.game.name}'s reader reads no pip dice, so a dice profile "
                             "does not apply", 409)
        try:
            profile = load_profile(path)
            profile.net()  # the crop model it was taught with is the one here
        except VisionError as exc:
            raise TeachError(str(exc).replace(str(path), path.name), 422) from exc
        adapter.use_dice_profile(profile)
        return jsonify(match_id=match_id, profile=path.stem,
                       note="the camera reads the dice with this profile from its next frame; a restart "
                            "forgets it (start with --dice-profile to keep it)")
