"""Tokyo Highway: the page shows the top view with heights and crossings; moves come from the
stick reader (vision.tokyo) or manual entry.

Camera side. The reader needs a calibrated camera (heights come from perspective), so the adapter
finds one per frame source: one set with `use_calibration`, the file named by the environment
variable HIGHWAY_TOKYO_CALIBRATION, or - for a bundled recorded match - the calibration.json
beside its frames (see docs/vision/tokyo-referee.md for calibrating a real camera).

The stability gate compares a coarse signature of the table (counts of supports, roads, loose
sticks and cars, sorted support heights) so millimetre noise never flickers; the full reading of
the latest frame is kept and `explain` turns it into a move with `engine.tokyo.match_build`.

Several cameras. A frame carrying other cameras' images (vision.sources.PairedFrame: camera 2, 3 ...)
is read with `read_tokyo_views` from every camera that gave a usable image and has a calibration: the
first camera's observation with the heights fused from all those views (about 95 % of columns exact
from two views, 97 % from three, against 85 % from one), and every build candidate is scored in each
of those views, the scores summed (tokyo_builds.read_builds' `others`). Camera k's calibration is set with
`use_camera_calibration(k, ...)` (`use_second_calibration` for camera 2), else read from the file
named by HIGHWAY_TOKYO_CALIBRATION<k> (HIGHWAY_TOKYO_CALIBRATION2, 3 ...), else, for a bundled
match, its calibration<k>.json. A camera without one, or whose image is missing or unusable, is left
out of that frame's reading; each change of the cameras read is queued once in `take_notices` for
the loop to log and show, and `take_view_images` gives the other cameras' frames annotated with what
each view read, for the page.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine import Action, EngineError, GameState
from referee_app.games.base import Explanation, GameAdapter, Observation
from referee_app.games.tokyo_builds import (
    BUILD_KEY,
    BuildBelief,
    DriftTrack,
    KeptPlaces,
    action_for,
    builds_out_of_view,
    camera_drift,
    column_in_view,
    fuse_reading,
    likeliest_build,
    read_builds,
    saw_no_build,
    with_builds,
)
from referee_app.games.tokyo_reuse import Remembered, StillViews, ViewReads, stands

CALIBRATION_ENV = "HIGHWAY_TOKYO_CALIBRATION"
POSITION_STEP_MM = 10.0  # positions are reported to the nearest cm: the reader's error is a few mm
# around a judged illegal build's new column and its road no new-column place is kept
# (KeptPlaces.forget): two columns' widths, its own read place and those grey spots of its pieces put
# beside it
JUDGED_RADIUS_MM = 30.0
CONFIRM_BELOW = 0.6  # the loop's default: a reading less sure than this is offered for confirmation
STICK_TRUST = 0.4  # added to a new road's seen share (see action_confidence)
MIN_GREY = 0.35  # below this share of grey pixels a "column" is a stick end on the table
GREY_SATURATION = 70  # HSV saturation under which a pixel counts as grey plastic
BLOCKING_WARNINGS = ("hand or large object", "glare")  # the view is unusable while these show
OUTLINES_KEPT = 50_000  # build candidates' outlines an adapter keeps (a few hundred a frame)
HAND_STILL_PX = 4  # a hand this close to where the same camera's frame before showed it: it has not moved
_CAMERA_SAYS = re.compile(r"camera (\d+): ")  # how a warning of another camera than camera 1 begins
HALF = 0.5  # the piece maps' scale: a road is still nine pixels wide at half of 720p
UsableView = tuple[int, np.ndarray, Any]  # (camera number, its image, its TokyoCalibration)


@dataclass
class TableRead:
    """One frame's full reading, kept beside its coarse signature for `explain`."""

    signature: tuple[Any, ...]
    observation: dict[str, Any]  # TokyoObservation.to_dict()
    fallen: int  # grey pieces that are no upright column (knocked over?)
    step_mm: float
    phantom: frozenset[int] = frozenset()  # supports with no grey column body in the image
    cameras: tuple[int, ...] = (1,)  # the cameras the heights came from (1 = the first)
    others: tuple[tuple[int, dict[str, Any]], ...] = ()  # (camera, its view's reading) for cameras 2...
    # per camera of `others`, its reading's supports with no grey column body in its picture (`phantom`)
    others_phantom: tuple[frozenset[int], ...] = ()
    failed: str = ""  # why the views could not be read together (then camera 1 was read alone)
    covered: bool = False  # a view showed a hand: read no further, the frame is blocked


def _cameras_text(cameras: Any) -> str:
    """"camera 2", "cameras 1 and 3", "cameras 1, 2 and 3"."""
    names = [str(c) for c in cameras]
    if len(names) == 1:
        return f"camera {names[0]}"
    return f"cameras {', '.join(names[:-1])} and {names[-1]}"


def round_to(v: float, step: float) -> float:
    return float(round(v / step) * step) if step > 0 else float(v)


class TokyoAdapter(GameAdapter):
    game = "tokyo-highway"
    has_reader = True

    def __init__(self) -> None:
        self._calibrations: dict[str, Any] = {}  # frame source -> TokyoCalibration (or a reason it has none)
        self._fixed: Any = None
        self._step = POSITION_STEP_MM
        self._cache: OrderedDict[str, TableRead] = OrderedDict()  # image digest -> reading (still frames)
        self._latest: dict[tuple[Any, ...], TableRead] = {}
        self._set_calibrations: dict[int, Any] = {}  # camera (2, 3 ...) -> calibration set in code
        # (camera, its environment file, source) -> its calibration or why none: each file loaded once
        self._found: dict[tuple[int, str, str], Any] = {}
        self._views_key: tuple[tuple[int, str], ...] | None = None  # (camera, "ok" or why left out)
        self._notices: list[tuple[str, str, dict[str, Any]]] = []  # (status, message, data) to log once
        self._view_images: dict[int, np.ndarray] = {}  # camera -> its annotated frame of the last read
        self._state: GameState | None = None  # the match as the decoder last asked about it
        self._builds: Any = None  # the latest frame's BuildBelief (referee_app.games.tokyo_builds)
        self._kept = KeptPlaces()  # new columns' places kept over the frames of one state of the match
        self._half_of: dict[int, tuple[Any, Any]] = {}  # camera -> (calibration, the same at half size)
        # (camera, where) of the hand or large object that blocked the last frame
        self._hand_at: tuple[int, tuple[int, int]] | None = None
        self._hand_of: dict[int, tuple[np.ndarray, bool]] = {}  # camera -> (picture, a hand in it)
        self._modelled = False  # the latest frame was read against the match (see candidates)
        self._track = DriftTrack()  # the camera's drift from its calibration, as last found
        self._still = StillViews(_digest)  # each camera's last image read in full (a still table)
        self._view_reads = ViewReads()  # each camera's last reading of its own (a view that did not change)
        self._warp_of: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # (image, drift, warped)
        self._tables: defaultdict[int, Any] = defaultdict(_table_memory)  # camera -> its TableMemory
        # reading every camera against its kept table estimate (vision.tokyo.table_memory) saves a third
        # of a view's piece masks while the light holds, but the readings then differ from a fresh
        # reading's, and on tuning seed 2 (1280x720, 550 mm, 40 deg) a move asked about became a miss:
        # off unless asked for
        self.keep_table_estimates = False
        # a view in the light of the last one read without a hand is tested for a hand against that
        # view's estimate first (vision.tokyo.reader._probe_hand): a hand's frame then costs no table
        # estimate of its own; a view where none is found is read as without the probe
        self.probe_hands = True
        self._probes: defaultdict[int, Any] = defaultdict(_table_memory)  # camera -> its hand probe
        self._remembered: Remembered | None = None  # the answer to the last frame read
        self._fits: Any = OrderedDict()  # the sticks' line fits of this adapter's frames (sticks.fit_memo)
        # camera -> (half-size calibration, its candidates' outlines)
        self._outlines: dict[int, tuple[Any, dict]] = {}
        # the match state and what was said about it being out of the picture (each said once)
        self._out_of_view: tuple[Any, set[Any]] = (None, set())

    # -- page --------------------------------------------------------------------------------
    def board_svg(self, state: GameState) -> str:
        from referee_app.render.tokyo import tokyo_svg

        return tokyo_svg(state)

    def extras(self, state: GameState) -> dict[str, Any]:
        view = state.table_view()
        out: dict[str, Any] = {}
        for p in view.get("players") or []:
            out[f"{p['color']}_cars_left"] = p.get("cars")
            out[f"{p['color']}_sticks_left"] = p.get("sticks")
        if view.get("winner") is not None:
            out["winner"] = view["winner"]
        return out

    def action_cells(self, action: Action) -> list[str]:
        """Support ids the action touches (the LED board and the page highlight them)."""
        from engine.tokyo import Build

        if isinstance(action, Build):
            return [f"s{action.base}"] + ([f"s{action.onto}"] if action.onto is not None else [])
        return []

    def near(self, a: Action | None, b: Action | None) -> bool:
        """Two builds that are readings of one column (the decoder sums them against "nothing"): from
        the same base, their new columns at most two grid steps apart (any height, junction or not)."""
        from engine.tokyo import Build

        if not (isinstance(a, Build) and isinstance(b, Build)) or a.base != b.base:
            return False
        if a.support is None or b.support is None:
            return a.ramp == b.ramp and a.onto == b.onto
        return math.hypot(a.support.x - b.support.x, a.support.y - b.support.y) <= 2 * self._step + 1e-6

    @staticmethod
    def twins(a: Action | None, b: Action | None) -> bool:
        """A junction and the plain column of one place, height and road (the decoder weighs an
        illegal twin's belief at its prior odds): the pictures tell them apart only by the top unit's
        colour, a sliver beside the road where it runs towards a camera, while the height rule (a plain
        column one unit above or below its base, a junction any height from two) often allows one."""
        from engine.tokyo import Build

        if not (isinstance(a, Build) and isinstance(b, Build)) or a.support is None or b.support is None:
            return False
        sa, sb = a.support, b.support
        return (a.base == b.base and a.onto == b.onto and a.ramp == b.ramp and sa.junction != sb.junction
                and (sa.x, sa.y, sa.height) == (sb.x, sb.y, sb.height))

    # -- calibration -------------------------------------------------------------------------
    def use_calibration(self, calibration: Any, step_mm: float | None = None) -> None:
        """Read every frame with this camera: a TokyoCalibration, its dict, a JSON file path, or None
        to go back to finding one per source."""
        self._fixed = None if calibration is None else load_calibration(calibration)[0]
        if step_mm is not None:
            self._step = float(step_mm)
        self._cache.clear()
        self._still.clear()
        self._view_reads.clear()
        self._tables.clear()
        self._probes.clear()
        self._remembered = None
        self._state = self._builds = None  # another camera: another match, most likely
        self._track = DriftTrack()

    def use_second_calibration(self, calibration: Any) -> None:
        """The second camera's calibration (as `use_calibration` takes it; same printed mat, so the
        same world frame), or None to go back to HIGHWAY_TOKYO_CALIBRATION2."""
        self.use_camera_calibration(2, calibration)

    def use_camera_calibration(self, camera: int, calibration: Any) -> None:
        """Camera `camera`'s calibration (2 = the second camera; as `use_calibration` takes it), or
        None to go back to finding it (HIGHWAY_TOKYO_CALIBRATION<camera>, a bundled match's file)."""
        if camera < 2:
            raise ValueError(f"camera {camera}: the first camera's calibration is set with use_calibration")
        if calibration is None:
            self._set_calibrations.pop(camera, None)
        else:
            self._set_calibrations[camera] = load_calibration(calibration)[0]
        self._views_key = None
        self._cache.clear()
        self._still.clear()
        self._view_reads.clear()
        self._tables.clear()
        self._probes.clear()
        self._remembered = None

    def camera_calibration(self, camera: int, source_id: str = "") -> Any:
        """Camera `camera`'s TokyoCalibration (2, 3 ...), or a string saying why there is none: the one
        set in code, else HIGHWAY_TOKYO_CALIBRATION<camera>'s file, else (a bundled match recorded by
        several cameras) the calibration<camera>.json beside the match, as the first camera's
        calibration.json is found."""
        if camera in self._set_calibrations:
            return self._set_calibrations[camera]
        path = os.environ.get(f"{CALIBRATION_ENV}{camera}", "")
        key = (camera, path, "" if path else source_id)
        if key not in self._found:
            self._found[key] = self._find_camera_calibration(camera, path, source_id)
        return self._found[key]

    @staticmethod
    def _find_camera_calibration(camera: int, path: str, source_id: str) -> Any:
        if not path:
            beside = _beside_demo(source_id, f"calibration{camera}.json")
            path = str(beside) if beside is not None and beside.is_file() else ""
        if not path:
            # camera 2 is --camera2's, or the first --camera-extra's when there is no --camera2
            option = "--calibration2 or --calibration-extra" if camera == 2 else "its --calibration-extra"
            return (f"camera {camera} has no calibration (give {option} or set {CALIBRATION_ENV}{camera}; "
                    "see docs/vision/tokyo-referee.md)")
        try:
            return load_calibration(path)[0]
        except ValueError as exc:
            return f"camera {camera}'s calibration: {exc}"

    def take_notices(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(status, message, data) of each change of the cameras read since the last call: status
        "one-view", "two-views" or "several-views" (three or more) says how many views are read now;
        the message says which camera dropped out and why, or which came back; data holds `views`
        (how many) and `cameras` (their numbers, 1 = the first)."""
        out, self._notices = self._notices, []
        return out

    def take_view_images(self) -> dict[int, np.ndarray]:
        """The other cameras' frames of the last read, each annotated with what its view read
        (camera number -> image); a camera left out of that reading is absent."""
        out, self._view_images = self._view_images, {}
        return out

    def _say_views(self, states: dict[int, tuple[str, str]], cameras: tuple[int, ...]) -> None:
        """Queue a notice when the cameras read changed: `states` maps each other camera to ("ok", "")
        or (why-kind, message); `cameras` are those read. Nothing is said while every camera is read
        as configured from the start."""
        key = tuple((cam, kind) for cam, (kind, _) in sorted(states.items()))
        previous, self._views_key = self._views_key, key
        if key == previous or (previous is None and all(kind == "ok" for _, kind in key)):
            return
        was_out = {cam for cam, kind in previous or () if kind != "ok"}
        back = [cam for cam, (kind, _) in sorted(states.items()) if kind == "ok" and cam in was_out]
        # one message per reason (a failed joint read is every camera's reason)
        out = list(dict.fromkeys(message for _, (kind, message) in sorted(states.items()) if kind != "ok"))
        status = {1: "one-view", 2: "two-views"}.get(len(cameras), "several-views")
        said = f"{_cameras_text(back)} {'is' if len(back) == 1 else 'are'} back" if back else ""
        if out:
            read = "camera 1 alone" if cameras == (1,) else _cameras_text(cameras)
            message = "; ".join([*out, *([said] if said else [])]) + f": reading {read}"
        else:
            both = "both cameras" if len(cameras) == 2 else _cameras_text(cameras)
            message = f"{said}: column heights from {both}"
        self._notices.append((status, message, {"views": len(cameras), "cameras": list(cameras)}))

    def calibration_for(self, source_id: str) -> Any:
        from vision.types import VisionError

        if self._fixed is not None:
            return self._fixed
        if source_id not in self._calibrations:
            self._calibrations[source_id] = self._find_calibration(source_id)
        found = self._calibrations[source_id]
        if isinstance(found, str):
            raise VisionError(found)
        return found

    def _find_calibration(self, source_id: str) -> Any:
        if os.environ.get(CALIBRATION_ENV):
            path: Path | None = Path(os.environ[CALIBRATION_ENV])
        else:
            path = _beside_demo(source_id, "calibration.json")
        if path is None:
            return (f"no camera calibration for Tokyo Highway: set {CALIBRATION_ENV} to a calibration "
                    "JSON (see docs/vision/tokyo-referee.md) - heights need a calibrated camera")
        try:
            calib, step = load_calibration(path)
        except ValueError as exc:
            return str(exc)
        if step is not None:
            self._step = step
        return calib

    # -- camera ------------------------------------------------------------------------------
    def watch(self, state: GameState) -> None:
        """The match as it stands before the next frame is read (the referee loop says so): its
        pieces are what a new build is read against and what a knocked camera is aligned on."""
        self._state = state

    def judged_illegal(self, state: GameState, action: Action) -> None:
        """The decoder judged `action`, an illegal build, on `state` (which it leaves as it was): the
        place of its new column is kept no more (KeptPlaces.forget), its take-back being expected."""
        sup = getattr(action, "support", None)
        if sup is None:
            return
        base = next((s for s in state.supports if s.id == getattr(action, "base", None)), None)
        self._kept.forget(state, float(sup.x), float(sup.y), JUDGED_RADIUS_MM,
                          None if base is None else (float(base.x), float(base.y)))

    def read(self, frame: Any) -> Observation:
        import cv2

        from vision.tokyo.piece_evidence import piece_maps, warp_maps
        from vision.types import check_image

        image = frame.image if hasattr(frame, "image") else frame
        check_image(image)
        calib = self.calibration_for(str(getattr(frame, "source_id", "")))
        paired = isinstance(getattr(frame, "others", None), list)
        states, usable = self._other_views(frame) if paired else ({}, [])
        # a camera whose image shows nothing new since its last full reading is read as that image
        # (its pieces; the builds are scored on this frame's own pixels)
        seen_now = image
        others_now = {cam: other for cam, other, _ in usable}
        image, key, same = self._still.settle(1, image)
        key += f":{id(calib)}:{image.shape}"
        settled = [(cam, *self._still.settle(cam, other), calib_k) for cam, other, calib_k in usable]
        usable = [(cam, other, calib_k) for cam, other, _, _, calib_k in settled]
        key += "".join(f"+{cam}:{digest}:{id(calib_k)}:{other.shape}" for cam, other, digest, _, calib_k
                       in settled)
        same = same and all(s for _, _, _, s, _ in settled)  # the very pictures kept, every camera
        state = self._state
        memo = self._remembered
        # the very pictures answered before, or still frames once their answer settled (see below)
        if (memo is not None and memo.key == key and memo.state is state
                and (memo.settled or same and memo.exact)):
            self._recall(memo, states, [cam for cam, _, _ in usable] if paired else None)
            return memo.answer()
        digest = key
        maps = small = table = None
        knocked = False  # camera 1's frame brought back from a knock (its drift found)
        if state is not None and self._track.drift is None:
            # no drift found when last searched: the frame is read as it comes first, so a view showing
            # a hand (blocked: no build is scored on it) costs no piece maps and no drift search, a
            # third of a covered frame's cost (a moving hand's frames are each read). That holds for a
            # new state of the match too: the hand that made the move is often still in view, and a
            # drift searched on its frame is searched again on the next (the track holds the state it
            # was searched against). A drift found in a frame read so (the camera knocked just now)
            # has it read again, brought back (below): one read more, once per knock.
            table = self._table(digest, image, calib, usable)
        if state is not None and not (table is not None and table.covered):
            # the evidence for pieces where the match says they stand, at half size
            small = self._half(1, calib)
            maps = piece_maps(cv2.resize(seen_now, (small.camera.width, small.camera.height),
                                         interpolation=cv2.INTER_AREA))
            # a knocked camera: the frame is brought back to the calibrated view, found from the
            # pieces standing on the table (the calibration is not redone)
            drift = camera_drift(state, small, maps, self._track)
            if drift is not None:
                knocked = True
                maps = warp_maps(maps, drift)
                drift[:, 2] /= HALF  # the same turn, the shift in full-size pixels
                image = self._warped(image, drift)
                digest += ":" + ",".join(f"{v:.2f}" for v in drift.ravel())
                table = None
        if table is None:
            table = self._table(digest, image, calib, usable)
        images = {cam: other for cam, other, _ in usable}
        view_images = {cam: annotate(images[cam], obs) for cam, obs in table.others}
        out = observation(table, image)
        memo = Remembered(key, state, table, out, None, False, view_images)
        self._recall(memo, states, [cam for cam, _, _ in usable] if paired else None)
        if state is not None and out.blocked is not None and not any(
                BLOCKING_WARNINGS[0] in w for w in out.warnings):
            # the builds are scored with the highlight's pixels left out: glare blinds a spot, not the view
            out.blocked = None
        if paired and not table.covered:
            self._hand_at = None  # a clear view: a hand seen later is a new one
        if paired and state is not None and table.covered and usable and out.blocked is not None \
                and self._hand_stays(out.blocked):
            # camera 1 is one more view: clear when the hand is another camera's (its reading ended there)
            first = (1, seen_now, calib, None if maps is None else (small, maps),
                     _covers_camera_1(table.observation))
            self._builds = memo.builds = self._past_a_hand(state, first, usable, table.step_mm, knocked)
            if self._builds is not None:  # the views that show no hand read the builds
                out.blocked = None
                self._modelled = memo.modelled = True
        elif state is not None and out.blocked is None:
            self._modelled = memo.modelled = True
            views = self._build_views(usable, others_now, calib)
            # each other camera's own reading: its new columns and road ends are places too (as `views`)
            own = {cam: (o, p) for (cam, o), p in zip(table.others, table.others_phantom, strict=False)}
            readings = [own.get(cam, ({}, frozenset())) for cam, _, _ in usable]
            self._builds = memo.builds = read_builds(state, small, maps, table.observation, table.step_mm,
                                                     table.phantom, self._outlines_for(1, small), views,
                                                     knocked, self._kept, readings)
            if saw_no_build(self._builds):
                self._say_out_of_view(state, small, maps)
            else:
                self._say_at_edge(state, [small, *(v[0] for v in views)], likeliest_build(self._builds))
        if self._builds is not None:
            said = self.explain(state, out)  # the reader's own reading of the whole table
            told = [(said.action, said.confidence)] if said.action is not None else said.candidates[:1]
            for action, conf in told:
                fuse_reading(self._builds, action, conf)
        if memo.modelled and out.items.get("loose"):
            seen_by = {cam: calib_k for cam, _, calib_k in usable}
            out.items["loose"] = loose_off_roads(table.observation, state, calib,
                                                 [(o, seen_by.get(cam)) for cam, o in table.others])
        if memo.modelled and out.items.get("fallen"):
            out.items["fallen"] = fallen_off_roads(table.observation, state, calib)
        if self._builds is not None:
            with_builds(out, self._builds)
        # the same frame against the same match is answered alike: the drift search finds the drift it
        # kept (DriftTrack), the piece maps and build scores are the same. A frame showing only noise
        # since the kept one was scored on its own pixels; once two such answers in a row agree (and
        # the build, if any, is sure) the answer stands for the frames that follow, still as they are
        memo.exact = same
        memo.settled = stands(self._remembered, memo)
        self._remembered = memo
        return memo.answer()

    def _warped(self, image: np.ndarray, drift: np.ndarray) -> np.ndarray:
        """Camera 1's `image` brought back by `drift` (full-size pixels): the same picture brought back
        by the same drift is the very array made last time (a knocked camera's still frames: its
        reading is then kept by ViewReads, which knows a picture by its array)."""
        from vision.tokyo.piece_evidence import warp_to_calibrated

        kept = self._warp_of
        if kept is not None and kept[0] is image and np.array_equal(kept[1], drift):
            return kept[2]
        out = warp_to_calibrated(image, drift)
        self._warp_of = (image, drift.copy(), out)
        return out

    def _said(self, state: GameState, what: Any) -> bool:
        """Whether `what` was already said about this state of the match (each is said once)."""
        said_state, said = self._out_of_view
        if said_state is not state:
            said = set()
            self._out_of_view = (state, said)
        if what in said:
            return True
        said.add(what)
        return False

    def _say_at_edge(self, state: GameState, calibs: list[Any], action: Any) -> None:
        """The likeliest build's new column is partly outside the picture of every camera (`calibs`,
        camera 1's first): its place and height are read from the part in view (tuning seed 2 at
        550/40: (260,-180) read two grid steps inside), so whatever is committed or asked may be
        wrong: say why. A column one camera holds whole is read there and is not said (tuning seed 45
        with camera 2 200 mm higher: two columns at camera 1's edge, whole in camera 2's picture)."""
        sup = getattr(action, "support", None)
        if sup is None or any(column_in_view(c, sup.x, sup.y, sup.height) for c in calibs):
            return
        if self._said(state, "edge"):  # once a move: the likeliest place may move a step frame to frame
            return
        seen_by = "the camera's view" if len(calibs) == 1 else "every camera's view"
        message = (f"the new column near ({sup.x:g},{sup.y:g}) is at the edge of {seen_by}: its "
                   "place and height cannot be read well - check the move, or raise the camera so the "
                   "whole structure is in view")
        self._notices.append(("out-of-view", message, {"x": sup.x, "y": sup.y}))

    def _say_out_of_view(self, state: GameState, calib: Any, maps: Any) -> None:
        """A road leaving a standing support and running out of the picture is a build the camera
        cannot read (its new column is out of view, so no build is tried): say so once per support
        and state of the match, instead of staying silent while the move goes unread."""
        for support, direction in builds_out_of_view(state, calib, maps):
            if self._said(state, support.id):
                continue
            message = (f"the build from s{support.id} ({support.x:g},{support.y:g}) is outside the camera's "
                       "view (its road runs out of the picture): type the move, or raise the camera so the "
                       "whole structure is in view")
            self._notices.append(("out-of-view", message, {"support": support.id,
                                                           "direction_deg": round(direction)}))

    def _table(self, digest: str, image: np.ndarray, calib: Any, usable: list[UsableView]) -> TableRead:
        """The reading of the frame `digest` names: an unchanged frame (a recorded match holding a
        scene) is read once."""
        from vision.tokyo.sticks import fit_memo

        table = self._cache.get(digest)
        if table is None:
            with fit_memo(self._fits):  # a stick whose core pixels did not change is not fitted again
                table = self._read_table(image, calib, usable)
            self._cache[digest] = table
            while len(self._cache) > 8:
                self._cache.popitem(last=False)
        return table

    def _recall(self, memo: Remembered, states: dict[int, tuple[str, str]], usable: list[int] | None) -> None:
        """What reading `memo`'s frame leaves behind: the cameras read (of a paired frame, whose other
        usable cameras are `usable`: a change is noticed once), the other cameras' annotated pictures,
        the reading for `explain`, the builds for `candidates`."""
        table = memo.table
        if usable is not None:
            if table.failed:
                states.update({cam: ("failed", table.failed) for cam in usable})
            self._say_views(states, table.cameras)
        self._view_images = dict(memo.view_images)
        if not table.covered:  # a covered view's pieces were not read: nothing to explain from
            self._latest[table.signature] = table
            while len(self._latest) > 16:
                self._latest.pop(next(iter(self._latest)))
        self._builds, self._modelled = memo.builds, memo.modelled

    def _outlines_for(self, camera: int, small: Any) -> dict:
        """The build candidates' pixel outlines for this camera, kept over frames: the candidates lie on
        the position grid round the columns read, so a still or slowly growing table asks for the same
        outlines frame after frame (pure functions of the calibration; a new one starts afresh)."""
        kept = self._outlines.get(camera)
        if kept is None or kept[0] is not small or len(kept[1]) > OUTLINES_KEPT:
            kept = self._outlines[camera] = (small, {})
        return kept[1]

    def _half(self, camera: int, calib: Any, first: Any = None) -> Any:
        """The camera at its piece maps' size (kept per camera and calibration): camera 1 at half size,
        another (`first`: camera 1's calibration) at the size that gives the mat as many pixels per
        millimetre as camera 1's maps (vision.tokyo.map_scale: a camera set further back)."""
        from vision.tokyo.map_scale import map_scale
        from vision.tokyo.piece_evidence import scaled

        kept = self._half_of.get(camera)
        if kept is None or kept[0] is not calib:
            scale = HALF if first is None else map_scale(calib, first, HALF)
            kept = self._half_of[camera] = (calib, scaled(calib, scale))
        return kept[1]

    def _build_views(self, usable: list[UsableView], images: dict[int, np.ndarray],
                     first: Any) -> list[tuple[Any, Any, dict]]:
        """The other usable cameras' evidence for the builds (their half-size calibration, piece maps of
        this frame's own picture `images[camera]`, kept outlines): every candidate is scored in each
        (tokyo_builds.read_builds' `others`). Their drift is not searched, only camera 1's: the
        search found a drift for a camera 2 that had not moved (tuning seed 6's seventh move at 550/40,
        two cameras, a shadowed frame: its maps warped, every candidate scored below "no build" and
        the build was lost); a knocked camera 2 feeds misplaced evidence until recalibrated."""
        import cv2

        from vision.tokyo.piece_evidence import piece_maps

        out = []
        for cam, _, calib_k in usable:
            small = self._half(cam, calib_k, first)
            maps = piece_maps(cv2.resize(images[cam], (small.camera.width, small.camera.height),
                                         interpolation=cv2.INTER_AREA))
            out.append((small, maps, self._outlines_for(cam, small)))
        return out

    def _hand_stays(self, warning: str) -> bool:
        """The hand or large object of the blocking `warning` is in the same camera's picture as the
        frame before showed one, within a few pixels of it: a hand over the table moves from frame to
        frame, a lamp's halo or a cup left at a picture's edge does not; only a still one has the
        cameras without it read past it (`_past_a_hand`: one reading of each per still picture). The
        same pixels in another camera's picture are another place."""
        from vision.tokyo.large_objects import hand_at

        at = hand_at(warning)
        found = _CAMERA_SAYS.match(warning)
        here = None if at is None else (int(found[1]) if found else 1, at)
        was, self._hand_at = self._hand_at, here
        return here is not None and was is not None and here[0] == was[0] and \
            abs(here[1][0] - was[1][0]) + abs(here[1][1] - was[1][1]) <= HAND_STILL_PX

    def _past_a_hand(self, state: GameState, first: tuple[int, np.ndarray, Any, Any, bool],
                     usable: list[UsableView], step: float, knocked: bool = False) -> BuildBelief | None:
        """The builds read from the cameras that show no hand or large object when a still one blocks
        the frame (camera 1's `first`: (1, image, calibration, its (half-size calibration, piece maps)
        when made, whether its reading is covered); `usable`: the other cameras; each other camera's
        own reading, stopping at a hand, tells whether it shows one). A hand over the table is in
        every camera's picture, so one that a single camera sees is over its side of the room, or is
        no hand (tuning seed 40 at 550/40: the lamp's halo in camera 1's picture read as a large
        object in every frame of the match, and all ten moves were missed, though camera 2 saw the
        whole structure; a cup at camera 2's edge blocked every frame alike, branch tokyohand2). The
        clear views score every candidate as camera 1 would (the first of them in its place; no
        reader's positions: grey spots alone place new columns). None when every view shows a hand
        or nothing is tried."""
        import cv2

        from vision.tokyo import read_tokyo
        from vision.tokyo.piece_evidence import piece_maps
        from vision.tokyo.reader import hand_in_view

        one, image_1, calib_1, made, covered = first
        clear = []
        if not covered:  # camera 1's reading found no hand: camera 1 is read in its place
            small, maps = made if made is not None else (self._half(one, calib_1), None)
            if maps is None:
                maps = piece_maps(cv2.resize(image_1, (small.camera.width, small.camera.height),
                                             interpolation=cv2.INTER_AREA))
            clear.append((small, maps, self._outlines_for(one, small)))
        for cam, image, calib_k in usable:
            kept = self._hand_of.get(cam)  # a still camera's picture (StillViews keeps it) is tested once
            if kept is None or kept[0] is not image:
                hand = hand_in_view(read_tokyo(image, calib_k, stop_at_hand=True))
                kept = self._hand_of[cam] = (image, hand)
            if kept[1]:
                continue
            small = self._half(cam, calib_k, calib_1)
            maps = piece_maps(cv2.resize(image, (small.camera.width, small.camera.height),
                                         interpolation=cv2.INTER_AREA))
            clear.append((small, maps, self._outlines_for(cam, small)))
        if not clear:
            return None
        (small, maps, outlines), rest = clear[0], clear[1:]
        # `knocked` is camera 1's (its maps were brought back by one warp): only when it leads the views
        return read_builds(state, small, maps, {}, step, frozenset(), outlines, rest,
                           knocked=knocked and not covered, kept=self._kept)

    def _other_views(self, frame: Any) -> tuple[dict[int, tuple[str, str]], list[UsableView]]:
        """For each other camera of a paired frame: ("ok", "") or why it is left out, and the usable
        ones as (camera, image, calibration)."""
        from vision.types import VisionError, check_image

        source_id = str(getattr(frame, "source_id", ""))
        states: dict[int, tuple[str, str]] = {}
        usable = []
        for cam, view in enumerate(frame.others, start=2):
            if view.image is None:
                states[cam] = ("missing", f"camera {cam} gave no image ({view.note or 'no reason given'})")
                continue
            calib = self.camera_calibration(cam, source_id)
            if isinstance(calib, str):
                states[cam] = ("uncalibrated", calib)
                continue
            try:
                check_image(view.image)
            except VisionError as exc:
                states[cam] = ("unreadable", f"camera {cam}'s image is unusable ({exc})")
                continue
            states[cam] = ("ok", "")
            usable.append((cam, view.image, calib))
        return states, usable

    def _read_table(self, image: np.ndarray, calib: Any, usable: list[UsableView]) -> TableRead:
        """The reading of camera 1's frame (with the other usable views, heights fused). A view showing a
        hand ends the reading there (`stop_at_hand`): the frame is blocked whatever the rest shows."""
        from vision.tokyo import read_tokyo, read_tokyo_views
        from vision.tokyo.reader import hand_in_view

        failed = ""
        if usable:
            cams = [1, *(c for c, _, _ in usable)]
            images, calibs = [image, *(im for _, im, _ in usable)], [calib, *(c for _, _, c in usable)]
            probes = self._hand_probes(*cams)
            # a camera whose picture is the one it was last read from (StillViews kept it: only another
            # camera's changed) gives that reading again; not with kept table estimates (their state)
            reads = self._view_reads.take(cams, images, calibs, probes) if not self.keep_table_estimates \
                else None
            try:
                views = read_tokyo_views(images, calibs, stop_at_hand=True,
                                         tables=self._table_memories(*cams), probes=probes, read=reads)
                if reads is not None:
                    self._view_reads.put(cams, images, calibs, probes, reads)
            except Exception as exc:  # noqa: BLE001 - camera 1 alone still referees the match
                failed = f"the {len(usable) + 1} views could not be read together ({exc})"
            else:
                obs = views.views[0].to_dict()
                read = views.views[1:]  # fewer than `usable` when a hand ended the reading
                others = [(cam, view.to_dict()) for (cam, _, _), view in zip(usable, read, strict=False)]
                # a hand or glare only another camera sees still means the table is not still
                obs["warnings"] = [*obs.get("warnings", []), *views.warnings,
                                   *(f"camera {cam}: {w}" for cam, o in others for w in o.get("warnings", [])
                                     if any(k in w for k in BLOCKING_WARNINGS))]
                table = table_read(obs, self._step, column_bodies(image, obs, calib))
                covered = any(hand_in_view(v) for v in views.views)
                ghosts = tuple(frozenset(k for k, g in enumerate(column_bodies(im, o, c)) if g < MIN_GREY)
                               for (_, im, c), (_, o) in zip(usable, others, strict=False))
                return replace(table, cameras=(1, *(cam for cam, _, _ in usable)), others=tuple(others),
                               covered=covered, others_phantom=ghosts)
        memories = self._table_memories(1)
        probes = self._hand_probes(1)
        view = read_tokyo(image, calib, stop_at_hand=True, tables=memories and memories[0],
                          probe=probes and probes[0])
        table = table_read(view.to_dict(), self._step, column_bodies(image, view.to_dict(), calib))
        return replace(table, failed=failed, covered=hand_in_view(view))

    def _table_memories(self, *cameras: int) -> list[Any] | None:
        """The cameras' kept table estimates, when `keep_table_estimates` is on."""
        return [self._tables[c] for c in cameras] if self.keep_table_estimates else None

    def _hand_probes(self, *cameras: int) -> list[Any] | None:
        """The cameras' hand probes, when `probe_hands` is on."""
        return [self._probes[c] for c in cameras] if self.probe_hands else None

    def expected(self, state: GameState) -> dict[str, Any]:
        """The signature of the table the engine believes in (same keys as `read` gives)."""
        self._state = state
        view = state.table_view()
        heights = tuple(sorted(int(s["height"]) for s in view["supports"]))
        return {"supports": len(heights), "heights": heights,
                "junctions": sum(bool(s["junction"]) for s in view["supports"]),
                "roads": len(view["sticks"]), "loose": 0, "fallen": 0}

    def candidates(self, state: GameState, table: dict[str, Any]) -> list[Any]:
        """The build the engine matches to the likeliest table (engine `match_build`, legal or not)
        and the readings it doubts, each a candidate for the same change; nothing; a column standing
        ready for a road not laid yet (wait); and something else (a road knocked off, a loose stick).
        """
        from referee_app.decoder import candidates as cand

        self._state = state
        builds = self._builds
        if self._modelled:
            # the builds scored against the engine's table: each is one candidate (none: no new
            # column); of the reader's piece counts only pieces lying on the table are "something
            # else" (a knocked road, a fallen column): roads and heights it misses are no news
            out = [cand.nothing(), cand.other(scope={"fallen", "loose"}, loose=True)]
            for key, template in (builds.actions if builds is not None else {}).items():
                action = action_for(state, template, builds.state)
                if action is not None:
                    out.append(cand.act(action, {BUILD_KEY: key}, self.action_cells(action)))
            return out
        out = [cand.nothing(), cand.other(loose=True)]  # counts of pieces: a change is one come or gone
        expected = self.expected(state)
        if state.is_terminal() or table == expected:
            return out
        delta = {k: table.get(k) for k in set(table) | set(expected) if table.get(k) != expected.get(k)}
        ex = self.explain(state, Observation(dict(table)))
        readings = ([(ex.action, ex.confidence)] if ex.action is not None else []) + list(ex.candidates)
        for i, (action, conf) in enumerate(readings):
            c = cand.act(action, delta, ex.cells or self.action_cells(action))
            c.prior, c.cap, c.alias = math.log(max(conf, 1e-3)), conf, i > 0
            out.append(c)
        if not readings and ex.mismatch is None:
            out.append(cand.wait(delta))
        return out

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        from engine.tokyo import TableReading, match_build

        expected = self.expected(state)
        items = {k: v for k, v in seen.items.items() if k != BUILD_KEY}
        if items == expected:
            return Explanation()  # the table is as the match left it (e.g. a wrong build taken back)
        table = self._latest.get(signature(items))
        if table is None:
            return Explanation()
        problems = table_problems(expected, items, table)
        if problems:
            return Explanation(mismatch="the table disagrees with the match: " + "; ".join(problems))
        prepared = engine_reading(table, state)
        try:
            action = normalise(match_build(state, TableReading.from_observation(prepared)))
        except EngineError as exc:
            missing = missing_roads(state, prepared)
            if missing:
                return Explanation(mismatch="the table disagrees with the match: " + "; ".join(missing),
                                   cells=[f"r{r}" for r in prepared["_missing"]])
            if nothing_new(state, prepared) or waiting_for_road(expected, items):
                return Explanation()  # nothing new, or a column stands ready for a road not laid yet
            return Explanation(mismatch=f"the table disagrees with the match: {exc}")
        confidence, doubts = action_confidence(table, action)
        cells = self.action_cells(action)
        if confidence >= CONFIRM_BELOW:
            return Explanation(action=action, confidence=confidence, cells=cells)
        return Explanation(candidates=[(action, confidence), *alternatives(action, doubts)], cells=cells)


# -- reading -> signature and engine reading -----------------------------------------------------
def _beside_demo(source_id: str, name: str) -> Path | None:
    """The file `name` beside a bundled recorded match (source "demo:<match>"); None for other sources."""
    if not source_id.startswith("demo:"):
        return None
    from referee_app.demo import DEMO_ROOT

    return DEMO_ROOT / source_id.split(":", 1)[1] / name


def _table_memory() -> Any:
    """A camera's kept table estimate (vision.tokyo.table_memory; imported when first read, as the
    reader is)."""
    from vision.tokyo.table_memory import TableMemory

    return TableMemory()


def _digest(image: np.ndarray) -> str:
    """A key for the very same picture (in this process only). SHA-256 runs on the CPU's SHA
    instructions where it has them: 1.7 ms a 720p frame against BLAKE2b's 4.5 ms, once a camera a frame."""
    return hashlib.sha256(np.ascontiguousarray(image).data).hexdigest()[:32]


def signature(items: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(items.items()))


def table_read(obs: dict[str, Any], step_mm: float, greyness: list[float] | None = None) -> TableRead:
    fallen = sum("no upright column" in w for w in obs.get("warnings") or [])
    phantom = frozenset(k for k, g in enumerate(greyness or []) if g < MIN_GREY)
    supports = [s for k, s in enumerate(obs["supports"]) if s.get("height") is not None and k not in phantom]
    items = {"supports": len(supports), "heights": tuple(sorted(int(s["height"]) for s in supports)),
             "junctions": sum(bool(s["junction"]) for s in supports),
             "roads": sum(s["role"] != "loose" for s in obs["sticks"]),
             "loose": sum(s["role"] == "loose" for s in obs["sticks"]), "fallen": fallen}
    return TableRead(signature(items), obs, fallen, step_mm, phantom)


KNOWN_ROAD_SHARE = 0.8  # of a loose stick's length inside a known road's drawing: it is that road
KNOWN_ROAD_GROW_PX = 6  # the drawing grown by the calibration's and the reader's few pixels of error


def loose_off_roads(obs: dict[str, Any], state: GameState, calib: Any,
                    others: Sequence[tuple[dict[str, Any], Any]] = ()) -> int:
    """The sticks the reader read loose (resting on no column it found) that lie on no road of the
    match as the calibrated camera draws it. The reader misses a column under a road end now and then,
    and the road it found there is then "loose": a known road read so, frame after frame, was raised as
    "the table disagrees: loose reads 1" (tuning seed 3, from move 7 on). A stick lying where a road
    already stands is that road; only one elsewhere is a stick on the table.

    `others`: the other cameras' readings with their calibrations (full size). A loose stick camera 1's
    reading holds was perhaps added from another view's reading (vision.tokyo.stick_fusion): its
    pixels in camera 1 are then its ends put on the table, not where camera 1 sees it, and a road
    standing above the table is drawn elsewhere. Such a stick is judged in the view that read it, by
    its own pixels there (the same ends in mm: the added reading keeps them). Tuning seed 80 at
    550/40, two cameras: camera 2 missed the column under purple's start road end and read the road
    loose; added to camera 1 with its raised end put 18 mm off on the table, it lay off camera 1's
    drawing and was raised as "the table disagrees: loose reads 1"."""
    loose = [st for st in obs["sticks"] if st["role"] == "loose"]
    if not loose or not state.sticks:
        return len(loose)
    drawn = _known_roads_drawn(state, calib)
    views = [(o, c) for o, c in others if c is not None]
    drawn_in: dict[int, np.ndarray] = {}  # per other view, the known roads drawn (when first needed)

    def on_road_there(k: int, twin: dict[str, Any]) -> bool:
        if k not in drawn_in:
            drawn_in[k] = _known_roads_drawn(state, views[k][1])
        return _on_drawn(twin["endpoints"], drawn_in[k])

    out = 0
    for st in loose:
        if _on_drawn(st["endpoints"], drawn):
            continue
        ends = st.get("endpoints_mm")
        if ends is not None and any(
                on_road_there(k, twin)
                for k, (o, _) in enumerate(views) for twin in o["sticks"]
                if _same_ends(twin.get("endpoints_mm"), ends)):
            continue  # the view that read it sees it on a known road
        out += 1
    return out


def _on_drawn(endpoints: Any, drawn: np.ndarray) -> bool:
    """Whether at least KNOWN_ROAD_SHARE of the segment between the pixel `endpoints` lies inside `drawn`."""
    h, w = drawn.shape
    (x0, y0), (x1, y1) = endpoints
    t = np.linspace(0.0, 1.0, 32)
    xs = np.clip(np.round(x0 + t * (x1 - x0)).astype(int), 0, w - 1)
    ys = np.clip(np.round(y0 + t * (y1 - y0)).astype(int), 0, h - 1)
    return float(drawn[ys, xs].mean()) >= KNOWN_ROAD_SHARE


def _same_ends(a: Any, b: Any, tol_mm: float = 0.5) -> bool:
    """Whether two readings' ends in mm are the same ends (a stick added from a view keeps them)."""
    if a is None or b is None:
        return False
    return all(abs(float(u) - float(v)) <= tol_mm for pa, pb in zip(a, b, strict=True)
               for u, v in zip(pa, pb, strict=True))


def fallen_off_roads(obs: dict[str, Any], state: GameState, calib: Any) -> int:
    """The grey blobs the reader took for lying pieces ("no upright column") whose top pixel lies on no
    road of the match as the calibrated camera draws it. A known road the reader misses in one view
    (its stick not found there) leaves its band in the pieces mask, and the natural stick's tan passes
    the blob test's column colour (a yellow cap's hue): report seed 110 at 550/40 two cameras, after
    the last move, camera 1 lost green's start road and its lower half read "1 grey piece lying on the
    table" in every frame, raised as "the table disagrees: fallen reads 1". The blob's top (its mean
    column, its highest row) lies inside a road's band when it is that road; a column knocked over onto
    the bare table lies off the roads and still counts."""
    from vision.tokyo.lying_pieces import lying_at

    spots = [at for at in (lying_at(w) for w in obs.get("warnings") or []) if at is not None]
    if not spots or not state.sticks:
        return len(spots)
    drawn = _known_roads_drawn(state, calib)
    h, w = drawn.shape
    return sum(not drawn[min(max(v, 0), h - 1), min(max(u, 0), w - 1)] for u, v in spots)


def _known_roads_drawn(state: GameState, calib: Any) -> np.ndarray:
    """The match's roads as the calibrated camera draws them (1 inside), grown by the calibration's and
    the reader's few pixels of error (KNOWN_ROAD_GROW_PX)."""
    import cv2

    from referee_app.games.tokyo_builds import known_pieces
    from vision.tokyo.piece_evidence import stick_quad

    _, roads = known_pieces(state, calib)
    drawn = np.zeros((calib.camera.height, calib.camera.width), np.uint8)
    for a, b in roads:
        cv2.fillConvexPoly(drawn, stick_quad(calib, a, b), 1)
    grow = 2 * KNOWN_ROAD_GROW_PX + 1
    return cv2.dilate(drawn, np.ones((grow, grow), np.uint8))


def column_bodies(image: np.ndarray, obs: dict[str, Any], calib: Any) -> list[float]:
    """For each support read, the share of grey pixels where its column's body should show (its
    projected cylinder, less the sticks' bands). A stick end lying on the table can look like a
    short column to the reader; there the "column" shows the table's tint, not grey plastic."""
    import cv2

    bands = np.zeros(image.shape[:2], np.uint8)
    for st in obs["sticks"]:
        (x0, y0), (x1, y1) = st["endpoints"]
        cv2.line(bands, (int(x0), int(y0)), (int(x1), int(y1)), 255, int(st["width_px"]) + 4)
    radius = calib.sizes.column_diameter_mm / 2
    ring = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    out = []
    for s in obs["supports"]:
        if s.get("x_mm") is None or s.get("height") is None:
            out.append(1.0)
            continue
        pts = [[s["x_mm"] + radius * np.cos(a), s["y_mm"] + radius * np.sin(a), z]
               for z in (0.0, s["height"] * calib.sizes.unit_mm) for a in ring]
        uv, _ = calib.camera.project(np.array(pts))
        hull = cv2.convexHull(np.round(uv).astype(np.int32))
        # the body drawn, and its pixels' saturation read, on the hull's box within the frame only: the
        # same pixels in the same order as on the whole frame (a pixel's HSV is its own)
        x, y, w, h = cv2.boundingRect(hull)
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, image.shape[1]), min(y + h, image.shape[0])
        if x1 <= x0 or y1 <= y0:
            out.append(1.0)
            continue
        body = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(body, hull - np.array([x0, y0], np.int32), 255)
        inside = (body > 0) & (bands[y0:y1, x0:x1] == 0)
        n = int(inside.sum())
        sat = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2HSV)[..., 1]
        out.append(float((sat[inside] < GREY_SATURATION).mean()) if n >= 20 else 1.0)
    return out


def _covers_camera_1(obs: dict[str, Any]) -> bool:
    """Whether camera 1's own reading in `obs` warns of a hand or large object (another camera's
    warnings come prefixed "camera N: ")."""
    from vision.tokyo.large_objects import HAND_WARNING

    return any(w.startswith(HAND_WARNING) for w in obs.get("warnings") or [])


def observation(table: TableRead, image: np.ndarray | None) -> Observation:
    obs = table.observation
    items = dict(table.signature)
    conf = {
        "supports": min((float(s["confidence"]) for s in obs["supports"]), default=1.0),
        "heights": min((float(s["height_confidence"]) for s in obs["supports"]), default=1.0),
        "roads": min((float(s["confidence"]) for s in obs["sticks"]), default=1.0),
    }
    blocked = next((w for w in obs.get("warnings") or [] if any(k in w for k in BLOCKING_WARNINGS)), None)
    out = Observation(items, conf, blocked, list(obs.get("warnings") or []))
    if image is not None:
        out.annotated = annotate(image, obs)
    return out


def engine_reading(table: TableRead, state: GameState) -> dict[str, Any]:
    """The observation as `TableReading.from_observation` takes it, made robust: a road end resting
    on a column is put at the column's centre (the stick overhangs it), positions are rounded to the
    reporting step, and cars of colours nobody plays are left out (a stray piece, not a car)."""
    obs = json.loads(json.dumps(table.observation))
    step = table.step_mm
    for k in table.phantom:  # a stick end on the table: no column, the end rests on the table
        obs["supports"][k]["x_mm"] = None
    # where the engine knows a road's end lies on the table, a "column" read there is that end
    geometry = state.rules.geometry
    table_ends = [st.a[:2] if st.base is None else st.b[:2] for st in state.sticks
                  if st.base is None or st.end is None]
    for s in obs["supports"]:
        if s.get("x_mm") is not None and any(math.hypot(s["x_mm"] - x, s["y_mm"] - y)
                                             <= geometry.column_diameter_mm for x, y in table_ends):
            s["x_mm"] = None
    for s in obs["supports"]:
        if s.get("x_mm") is not None:
            s["x_mm"], s["y_mm"] = round_to(s["x_mm"], step), round_to(s["y_mm"], step)
    kept = [k for k, s in enumerate(obs["supports"]) if s.get("x_mm") is not None]
    renumber = {k: i for i, k in enumerate(kept)}
    for st in obs["sticks"]:
        ends = st.get("endpoints_mm")
        if ends is None:
            continue
        new = []
        for end, rest in zip(ends, st.get("rests") or (None, None), strict=True):
            sup = obs["supports"][rest] if rest is not None else None
            if sup is not None and sup.get("x_mm") is not None:
                new.append([sup["x_mm"], sup["y_mm"], end[2]])
            else:
                new.append([round_to(end[0], step), round_to(end[1], step), end[2]])
        st["endpoints_mm"] = new
        st["rests"] = [renumber.get(r) if r is not None else None for r in st.get("rests") or (None, None)]
        if st["rests"] == [None, None]:
            st["role"] = "loose"  # a road rests on at least one column
    obs["supports"] = [obs["supports"][k] for k in kept]
    colors = set(state.rules.colors)
    for st in obs["sticks"]:  # plain wood reads as "natural" or "orange": only players' colours say who
        if st.get("color") not in colors:
            st["color"] = None
    _snap_known_roads(obs, state)
    # cars are not read into the move: the engine places the cars a build earns (the car reader
    # misses cars painted like their road too often to judge "cars N" from it)
    obs["cars"] = []
    return obs


def _snap_known_roads(obs: dict[str, Any], state: GameState) -> None:
    """A stick read along a road the engine already knows (whole, or a piece of it cut by a
    crossing or a car) is that road: it gets the road's ends. Sticks longer than the set's (two
    roads read as one) cannot be judged and are left out with their crossings."""
    geometry = state.rules.geometry
    tol = geometry.stick_width_mm * 1.5
    limit = geometry.stick_length_mm + geometry.column_diameter_mm
    roads = [(np.array(st.a[:2]), np.array(st.b[:2])) for st in state.sticks]
    keep: list[int] = []
    for i, st in enumerate(obs["sticks"]):
        ends = st.get("endpoints_mm")
        if ends is None or st.get("role") == "loose":
            keep.append(i)
            continue
        p, q = np.array(ends[0][:2], float), np.array(ends[1][:2], float)
        if float(np.linalg.norm(q - p)) > limit:
            continue
        for a, b in roads:
            if max(_to_segment(p, a, b), _to_segment(q, a, b), _to_segment((p + q) / 2, a, b)) <= tol:
                near_a = float(np.linalg.norm(p - a)) <= float(np.linalg.norm(p - b))
                first, second = (a, b) if near_a else (b, a)
                st["endpoints_mm"] = [[*map(float, first), ends[0][2]], [*map(float, second), ends[1][2]]]
                break
        keep.append(i)
    obs["_missing"] = [st.id for st in state.sticks if not any(_along(st, o, tol) for o in obs["sticks"])]
    index = {old: new for new, old in enumerate(keep)}
    obs["sticks"] = [obs["sticks"][i] for i in keep]
    obs["crossings"] = [dict(c, a=index[c["a"]], b=index[c["b"]], top=index[c["top"]])
                        for c in obs.get("crossings") or []
                        if c["a"] in index and c["b"] in index and c["top"] in index]
    obs["cars"] = [dict(c, stick=index.get(c.get("stick"))) for c in obs.get("cars") or []]


def _along(road: Any, st: dict[str, Any], tol: float) -> bool:
    """Whether reading stick `st` lies along engine road `road` (all of it or a piece)."""
    ends = st.get("endpoints_mm")
    if ends is None or st.get("role") == "loose":
        return False
    a, b = np.array(road.a[:2]), np.array(road.b[:2])
    p, q = np.array(ends[0][:2], float), np.array(ends[1][:2], float)
    return max(_to_segment(p, a, b), _to_segment(q, a, b), _to_segment((p + q) / 2, a, b)) <= tol


def nothing_new(state: GameState, prepared: dict[str, Any]) -> bool:
    """Every road seen is one the match knows: the table is as the match left it (the signature may
    still differ by a misread column), so there is nothing to judge."""
    tol = state.rules.geometry.stick_width_mm * 1.5
    return all(any(_along(road, st, tol) for road in state.sticks)
               for st in prepared["sticks"] if st.get("role") != "loose")


def missing_roads(state: GameState, prepared: dict[str, Any]) -> list[str]:
    """Roads of the match the camera does not see, as messages saying what to put back."""
    colors = state.rules.colors
    out = []
    for rid in prepared.get("_missing") or []:
        st = state.stick_by_id[rid]
        frm = f"s{st.base}" if st.base is not None else "the table"
        to = f"s{st.end}" if st.end is not None else "the table"
        out.append(f"{colors[st.owner]} road {rid} (from {frm} to {to}) is missing: put it back"
                   + (" - a stick lies loose on the table" if any(x.get("role") == "loose"
                                                                 for x in prepared["sticks"]) else ""))
    return out


def _to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    t = float(np.clip(np.dot(p - a, d) / max(float(np.dot(d, d)), 1e-9), 0, 1))
    return float(np.linalg.norm(p - (a + t * d)))


def normalise(action: Action) -> Action:
    """Crossings in road order, so one table always gives one notation."""
    from dataclasses import replace

    from engine.tokyo import Build

    if isinstance(action, Build) and action.observed:
        return replace(action, observed=tuple(sorted(action.observed, key=lambda o: o.road)))
    return action


def table_problems(expected: dict[str, Any], seen: dict[str, Any], table: TableRead) -> list[str]:
    """What is wrong with the table itself, whatever move is being made: roads gone, pieces down."""
    out = []
    if seen["roads"] < expected["roads"]:
        lost = expected["roads"] - seen["roads"]
        out.append(f"{lost} road{'s' if lost > 1 else ''} of the match {'are' if lost > 1 else 'is'} "
                   "missing" + (" (a stick lies loose on the table)" if seen["loose"] else "")
                   + ": put it back on its supports")
    if table.fallen:
        out.append(f"{table.fallen} grey piece{'s' if table.fallen > 1 else ''} lying on the table "
                   "(knocked over?): stand the support back up")
    return out


def waiting_for_road(expected: dict[str, Any], seen: dict[str, Any]) -> bool:
    return seen["roads"] == expected["roads"] and seen["supports"] == expected["supports"] + 1


def action_confidence(table: TableRead, action: Action) -> tuple[float, list[str]]:
    """How sure the reading of the new pieces is: the least of the new support's confidence and the
    new stick's (the road read with an end nearest the new support or ramp end); `doubts` names
    what is unsure."""
    obs = table.observation
    support = getattr(action, "support", None)
    ramp = getattr(action, "ramp", None)
    target = (support.x, support.y) if support is not None else ramp
    if target is None:
        return 1.0, []
    doubts: list[str] = []
    conf = 1.0
    if support is not None:
        near = [s for s in obs["supports"] if s.get("x_mm") is not None
                and math.hypot(s["x_mm"] - support.x, s["y_mm"] - support.y) <= 2 * table.step_mm]
        if near:
            s = min(near, key=lambda s: math.hypot(s["x_mm"] - support.x, s["y_mm"] - support.y))
            conf = min(conf, float(s["confidence"]))
            if float(s["confidence"]) < CONFIRM_BELOW:
                doubts.append("height")

    def end_distance(st: dict[str, Any]) -> float:
        return min(math.hypot(e[0] - target[0], e[1] - target[1]) for e in st["endpoints_mm"])

    roads = [st for st in obs["sticks"] if st["role"] != "loose" and st.get("endpoints_mm")]
    if roads:
        # the reader's stick confidence is the share of its length seen unbroken; a road half hidden
        # by the pieces over it is still surely a road when its ends rest where the move says
        conf = min(conf, STICK_TRUST + float(min(roads, key=end_distance)["confidence"]))
    return conf, doubts


def alternatives(action: Action, doubts: list[str]) -> list[tuple[Action, float]]:
    """Other readings worth offering when the camera is unsure: the new support one column lower
    or higher."""
    from dataclasses import replace

    from engine.tokyo import Build

    if "height" not in doubts or not isinstance(action, Build) or action.support is None:
        return []
    out = []
    for dh in (-1, 1):
        h = action.support.height + dh
        if h >= 1:
            out.append((replace(action, support=replace(action.support, height=h)), 0.3))
    return out


def annotate(image: np.ndarray, obs: dict[str, Any]) -> np.ndarray:
    """Roads green, loose sticks orange, supports with their heights, crossings marked by the top."""
    import cv2

    out = image.copy()
    for s in obs["sticks"]:
        (x0, y0), (x1, y1) = s["endpoints"]
        colour = (60, 200, 60) if s["role"] != "loose" else (30, 140, 255)
        cv2.line(out, (int(x0), int(y0)), (int(x1), int(y1)), colour, 2, cv2.LINE_AA)
    for s in obs["supports"]:
        x, y = s["top_px"]
        cv2.circle(out, (int(x), int(y)), 10, (255, 200, 40), 2, cv2.LINE_AA)
        label = f"h{s['height']}" if s.get("height") is not None else "?"
        cv2.putText(out, label, (int(x) + 12, int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 200, 40), 2,
                    cv2.LINE_AA)
    for c in obs.get("crossings") or []:
        x, y = c["point"]
        cv2.drawMarker(out, (int(x), int(y)), (40, 40, 230), cv2.MARKER_CROSS, 14, 2)
    return out


def load_calibration(source: Any) -> tuple[Any, float | None]:
    """A TokyoCalibration from itself, its dict or a JSON file; also the file's optional
    "position_step_mm". Raises ValueError naming the file and what is wrong."""
    from vision.tokyo import TokyoCalibration
    from vision.types import VisionError

    if isinstance(source, TokyoCalibration):
        return source, None
    where = "calibration"
    data = source
    if isinstance(source, str | Path):
        where = str(source)
        try:
            data = json.loads(Path(source).read_text())
        except OSError as exc:
            raise ValueError(f"cannot read the Tokyo calibration {where}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where} is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a Tokyo calibration is a JSON object with camera and sizes")
    try:
        calib = TokyoCalibration.from_dict(data)
    except VisionError as exc:
        raise ValueError(f"{where}: {exc}") from None
    step = data.get("position_step_mm")
    if step is not None and (not isinstance(step, int | float) or isinstance(step, bool) or step < 0):
        raise ValueError(f"{where}: position_step_mm must be a number of mm >= 0, got {step!r}")
    return calib, None if step is None else float(step)


ADAPTER = TokyoAdapter()
