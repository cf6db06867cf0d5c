"""Tokyo Highway builds read against the engine's table: a belief over the builds that could have
happened, not one reading of the whole table.

The reader finds a new column's place well (grey plastic on a tinted mat) but not always the road it
carries, nor its height (a road on its top hides where the column ends). The engine knows every piece
already standing, so the question is narrower: a new column stands about here; which build put it
there? Every support within a stick's reach is a base a player could have built from (legal or not:
the engine judges later), every height one to `MAX_HEIGHT`, a junction or not, and the position on
the reporting grid around the read one. Each candidate is drawn into the image through the calibrated
camera (vision.tokyo.piece_evidence: the column's grey body up to its top, the road's band from the
base's top to it) and scored by how much likelier the image is with those pieces there than with the
table; pieces already standing count for nothing, but for a new column's side where a standing road
is drawn, scored column against bare road (vision.tokyo.under_roads: a column put under a road).
The scores make a belief (a softmax with `TEMPERATURE` nats: neighbouring pixels are not independent
evidence) over the builds' notations,
with "no build" (score 0: the table there) among them. The decoder averages it over frames and
commits, asks or waits on it like any other item.

Several cameras. A candidate's pieces stand where they stand whichever camera looks, so with other
calibrated views (`others`: each its own half-size calibration and piece maps) every candidate is
drawn and scored in every view and the views' log-likelihood ratios are summed: one camera cannot
tell a column one unit higher one grid step nearer it (its foot hidden behind its own road), or see a
junction's yellow top under the road; a camera on another side of the table sees both. A view where
the candidate lies partly or wholly outside the picture adds the pixels it has (none: 0 nats). Grey
plastic no piece explains is looked for in every view. With no other view every score, and so the
belief, is exactly the one camera's.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.beliefs import EMPTY, REST

BUILD_KEY = "build"  # the Observation item: the notation of the build seen, beliefs over the candidates
MAX_HEIGHT = 8  # columns a support may stack in the sets we know
# nats of image evidence per unit of belief log-odds: the pixels of a blur's and a calibration's few
# pixels of error are one piece of evidence (about a 7x7 patch of the half-size maps at 2 nats a pixel)
TEMPERATURE = 100.0
KEEP = 8  # builds kept in a belief (the rest share REST)
# log-odds of a yellow pixel on a column's top unit, junction against plain: 42.6 % of a new junction
# top's edge pixels read yellow (its least yellow part; 80-97 % further in) and none of 9 390 plain top
# pixels did (tuning seeds 1-10, 31-34 at 550/40, two cameras: branch tokyojx2's counts), taken as one
JUNCTION_YELLOW_LLR = math.log(0.426 * 9390)
# a view sees a column's top unit bare when this many of its free pixels (off its road's band and the
# known pieces) read grey: a junction's top shows its yellow beside them (a road-coloured top says
# nothing: the stick over a junction's top reads so too, tuning seed 58's eighth move at 550/40)
BARE_TOP_PX = 10
# belief log-odds of a top unit seen grey with not one yellow pixel (free, in its road's band over
# it, in front of standing pieces), plain against junction: no new junction of tuning seeds 1-11 at
# 550/40, two cameras (36 builds, each view's first still frame of the scene) showed it, every plain
# build (50) did in some view; taken as one junction in 37 (the rule of succession: none in 36), one
# event per pair, not one per pixel
BARE_TOP_LLR = math.log(37.0)
NEAR_GRID = 1  # grid steps around the read position tried in x and y
# the reader's own measurement of where a column stands is evidence too: within a few mm (its error
# on the renders and photos, docs/vision/tokyo.md), a Gaussian of this spread
POSITION_SIGMA_MM = 4.0
# a place found from unexplained grey pixels alone (vision.tokyo.piece_evidence.grey_spots): the blob's
# lowest pixels put back on the table, within about a grid step of the column's centre
GREY_SPOT_SIGMA_MM = 8.0
# a new column's place from its road's far end and the stick's length (`road_end_spots`): the end read
# within a few mm, the overhang from the read heights, so about a grid step; tried unless a place read
# already lies within a grid step of it (its grid round it covers the same places)
ROAD_END_SIGMA_MM = 8.0
ROAD_END_APART_MM = 10.0


@dataclass
class BuildBelief:
    """A frame's belief over the pieces put down (`pieces_key` -> probability, EMPTY for none), the
    actions they are in the state read against, and that state."""

    belief: dict[Any, float] = field(default_factory=dict)
    actions: dict[str, Any] = field(default_factory=dict)
    state: Any = None
    views: int = 1  # the camera views it was scored in
    # per build kept, its pixels' own evidence (nats summed over the views, the place's prior left
    # out): what the frame says of those pieces against the bare table
    pixels: dict[str, float] = field(default_factory=dict)


@dataclass
class KeptPlaces:
    """Places (x, y, their spread in mm) where a new column was tried in an earlier frame of one state
    of the match and some build there beat "no build": tried again in every later frame of that state
    (`read_builds`), found or not. A place found only by a blob of grey that the frame's noise puts
    over or under the spot's size (`grey_spots`, `road_grey_spots`) would otherwise be scored in some
    frames and not tried at all in the next, and a frame that tries no place says "no build" (tuning
    seed 119's third move at 550/40, two cameras: a junction column under its own start road, the
    truth led in two frames at 0.5, then no place was found in three and the move was missed, not
    even asked). A place kept costs its candidates' scoring, so it is kept only while it holds: a
    frame where no build there beats "no build" drops it (the bundled recorded match: a place kept
    from a frame of a column being put down was scored at 1e-13 in nine frames, the loop 8-12 % slower);
    its evidence is each frame's pixels. The place kept is where the best build tried round it put its
    column, not the place as found: a grey blob's place is a guess (its lowest pixels put back on the
    table), 15 mm off where the column's own road hides its foot, and the grid round it may miss the
    column that one frame's nearer blob found (tuning seed 13's fifth move at 550/40, two cameras: the
    build played led by 480 nats in the one frame that tried it, the blob's place was kept, and the
    other four frames led with a column 22 mm off; the illegal build was missed)."""

    state: Any = None
    places: list[tuple[float, float, float]] = field(default_factory=list)
    # (x, y, radius, base x, base y) round an illegal build judged on this state, its road from its base
    # to its new column: no place is kept there. An illegal build leaves the match's state as it was, so
    # a place kept from its pieces would outlive its take-back and be tried on the bare table there
    # (tuning seed 66 at 550/40, two cameras: the place of the illegal "s6 -> (200,-60) h5", kept, put
    # "s2 -> (210,-70) h1" at 2.6 nats over "no build" in the frames after the take-back, committed as
    # an illegal build the players never made). Its road's too, not only its column's: tuning seed 32's
    # illegal "s5 -> (-200,-170) h4 junction" put a grey blob beside its road, 24 mm from the road and
    # 50 from the column, in its last frame; the place kept there was tried on the take-back scene,
    # where a column under a start road's end reads as one, and the players were asked about it)
    judged: list[tuple[float, float, float, float, float]] = field(default_factory=list)

    def of(self, state: Any) -> list[tuple[float, float, float]]:
        """The places kept for `state` (none kept for another state: those are forgotten)."""
        if state is not self.state:
            self.state, self.places, self.judged = state, [], []
        return self.places

    def forget(self, state: Any, x: float, y: float, radius: float,
               base: tuple[float, float] | None = None) -> None:
        """An illegal build's new column at (x, y), its road from `base` (None: the column alone), was
        judged on `state`: every place kept on that state goes (each was found while the illegal
        pieces stood, or on the still table before them: none is a column the players will build
        after the take-back; tuning seed 63: two grey blobs of the illegal scene, far from the illegal
        build, kept and read as a column on the take-back scene), and none is kept again within
        `radius` of its column or its road while the state holds (its own column, still standing until
        taken back, is found in each frame as any new column is)."""
        self.of(state)
        bx, by = base if base is not None else (x, y)
        self.judged.append((x, y, radius, bx, by))
        self.places.clear()

    def barred(self, x: float, y: float) -> bool:
        """Whether (x, y) lies near an illegal build judged on this state (its column or its road)."""
        return any(_to_segment(x, y, (jx, jy), (bx, by)) < r for jx, jy, r, bx, by in self.judged)


def _to_segment(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance in mm from (x, y) to the segment a-b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((x - a[0]) * dx + (y - a[1]) * dy) / n))
    return math.hypot(x - a[0] - t * dx, y - a[1] - t * dy)


@dataclass
class View:
    """One calibrated camera's evidence for the candidates: its calibration at the piece maps' size,
    the frame's piece maps, the pixels of the pieces the match already holds (`known_mask`), and the
    candidates' outlines kept for this calibration (score_build's `hulls`)."""

    calib: Any
    maps: Any
    known: np.ndarray
    hulls: dict
    roads: Any = None  # the match's roads in this view (vision.tokyo.under_roads.RoadPixels)
    # a knocked view (its frame brought back by one warp for the whole picture): the match's pieces
    # drawn (not grown), to find where near a place the picture still lies off the drawing
    # (vision.tokyo.local_shift); None for a view as calibrated
    drawn: np.ndarray | None = None
    # per place its shifts' weights, per shift the maps moved, per candidate and shift its scores
    local: dict = field(default_factory=dict)
    pieces: tuple = ((), ())  # the match's columns and roads as this camera draws them (known_pieces)
    yellow_known: np.ndarray | None = None  # the match's junction tops as drawn (grown as `known`)


OtherView = tuple[Any, Any, "dict | None"]  # (half-size calibration, piece maps, kept outlines or None)


def _views(state: Any, calib: Any, maps: Any, hulls: dict, others: Sequence[OtherView],
           knocked: bool = False) -> list[View]:
    """Camera 1's view and the others', each with the match's pieces drawn as its camera sees them
    (`knocked`: camera 1's frame was brought back from a knock)."""
    from vision.tokyo.piece_evidence import known_mask
    from vision.tokyo.road_visibility import with_road_visibility
    from vision.tokyo.under_roads import road_pixels

    out = []
    for k, (c, m, h) in enumerate([(calib, maps, hulls), *others]):
        h = {} if h is None else h
        columns, sticks, known, yellow_known = _drawn(state, c, m.grey.shape, h)
        roads = road_pixels(c, m.grey, columns, sticks) if sticks else None
        # a road band's evidence weighed by how well the match's own roads show in this picture
        m = with_road_visibility(m, None if roads is None else roads.label, known)
        drawn = known_mask(c, m.grey.shape, columns, sticks, grow_px=0) if knocked and k == 0 else None
        out.append(View(c, m, known, h, roads, drawn, pieces=(columns, sticks), yellow_known=yellow_known))
    return out


def _drawn(state: Any, calib: Any, shape: tuple[int, int],
           hulls: dict) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    """The match's pieces in this view (known_pieces), their mask and their junctions' tops, drawn once
    a state of the match and kept in the view's `hulls` (its calibration's, kept over frames): the
    frames of one state draw the same pixels. Every frame shares them: the mask is made read-only (the
    tops stay writable, the type vision.tokyo.score_jit's compiled pass takes; nothing writes them)."""
    from vision.tokyo.piece_evidence import known_mask

    kept = hulls.get(_DRAWN)
    if kept is None or kept[0] is not state or kept[1] != shape:
        columns, sticks = known_pieces(state, calib)
        known = known_mask(calib, shape, columns, sticks)
        tops = _junction_tops(state, calib, shape)
        known.setflags(write=False)
        kept = hulls[_DRAWN] = (state, shape, columns, sticks, known, tops)
    return kept[2], kept[3], kept[4], kept[5]


_DRAWN = "the match's pieces drawn"  # their key in a view's `hulls`


def _junction_tops(state: Any, calib: Any, shape: tuple[int, int]) -> np.ndarray:
    """Where the match's junctions' top units are drawn in this view (bool), grown as the known
    pieces' mask is: the only known pixels that may show junction yellow."""
    import cv2

    from vision.tokyo.piece_evidence import column_hull

    unit = calib.sizes.unit_mm
    out = np.zeros(shape, np.uint8)
    for s in state.supports:
        if s.junction:
            cv2.fillConvexPoly(out, column_hull(calib, float(s.x), float(s.y), (s.height - 1) * unit,
                                                s.height * unit), 1)
    if out.any():
        out = cv2.dilate(out, np.ones((7, 7), np.uint8))
    return out > 0


def _local_shifts(v: View, near: tuple[float, float]) -> list[tuple[int, int, float]]:
    """The likely residual shifts of a knocked view's picture around the place `near` (mm), kept."""
    from vision.tokyo.local_shift import piece_nats, weights

    key = ("weights", near)
    if key not in v.local:
        assert v.drawn is not None
        uv, _ = v.calib.camera.project(np.array([[near[0], near[1], 0.0]]))
        if "nats" not in v.local:
            v.local["nats"] = piece_nats(v.maps)
        v.local[key] = weights(v.local["nats"], v.drawn, (float(uv[0, 0]), float(uv[0, 1])), TEMPERATURE)
    return v.local[key]


def _view_scores(v: View, x: float, y: float, height: int, junctions: tuple[bool, ...], base_top: np.ndarray,
                 base_on_table: bool, near: tuple[float, float] | None) -> list[float]:
    """One view's evidence for the candidate with each of `junctions`. A knocked view, given the place
    `near` the candidate was tried around, scores it on its maps moved by each likely residual shift
    there, mixed by their weights (vision.tokyo.local_shift); a view as calibrated, on its maps."""
    from vision.tokyo.local_shift import mixed
    from vision.tokyo.piece_evidence import score_builds

    # a candidate's scores on the maps moved by one shift are the same whatever place it was tried
    # around (only the shifts' weights are the place's): scored once a frame, as the other views'
    top = np.asarray(base_top, np.float64).tobytes()

    def on(maps: Any, roads: Any, dx: int = 0, dy: int = 0) -> list[float]:
        key = ("scores", x, y, height, junctions, top, base_on_table, dx, dy)
        got = v.local.get(key)
        if got is None:
            got = v.local[key] = tuple(s.total for s in score_builds(
                maps, v.calib, v.known, x, y, height, junctions, base_top, base_on_table, hulls=v.hulls,
                roads=roads, yellow_known=v.yellow_known))
        return list(got)

    shifts = _local_shifts(v, near) if v.drawn is not None and near is not None else [(0, 0, 0.0)]
    if len(shifts) == 1 and shifts[0][:2] == (0, 0):
        return on(v.maps, v.roads)
    per = []
    for dx, dy, _ in shifts:
        if ("maps", dx, dy) not in v.local:
            v.local[("maps", dx, dy)] = _moved(v, dx, dy)
        per.append(on(*v.local[("maps", dx, dy)], dx, dy))
    logw = [lw for _, _, lw in shifts]
    return [mixed([p[j] for p in per], logw, TEMPERATURE) for j in range(len(junctions))]


def _moved(v: View, dx: int, dy: int) -> tuple[Any, Any]:
    """The view's maps moved by a residual shift, and its roads' own grey measured on those moved maps.
    A column under a road is scored against its road's grey share elsewhere in the same picture
    (vision.tokyo.under_roads); measured on the unmoved maps, a road's share could come out below
    what its hidden pixels show on the moved ones, negative, and the bare road's odds of grey zero:
    the candidate scored +inf in that shift and NaN mixed (tuning seed 116's ninth move at 550/40, two
    cameras: the h5 junction built scored NaN in camera 1 after its knock, the belief went to h4 and h3
    and the illegal build was missed)."""
    from vision.tokyo.local_shift import shifted
    from vision.tokyo.under_roads import road_pixels

    if (dx, dy) == (0, 0):
        return v.maps, v.roads
    maps = shifted(v.maps, dx, dy)
    columns, sticks = v.pieces
    return maps, None if v.roads is None else road_pixels(v.calib, maps.grey, columns, sticks)


def _scores(views: list[View], x: float, y: float, height: int, junctions: tuple[bool, ...],
            base_top: np.ndarray, base_on_table: bool = False) -> list[float]:
    """The candidate's evidence (nats) with each of `junctions`, summed over the views (camera 1's
    alone when it is the only one: the very same floats)."""
    return _scores_seen(views, x, y, height, junctions, base_top, base_on_table)[0]


def _scores_seen(views: list[View], x: float, y: float, height: int, junctions: tuple[bool, ...],
                 base_top: np.ndarray, base_on_table: bool = False,
                 near: tuple[float, float] | None = None) -> tuple[list[float], int]:
    """`_scores`, and in how many views the candidate has any evidence (a view where it lies outside
    the picture, or whose pixels say nothing either way, adds 0 nats and is not counted). `near`: the
    place (mm) the candidate was tried around, where a knocked view's residual shift is looked for."""
    totals: list[float] | None = None
    seen = 0
    for v in views:
        got = _view_scores(v, x, y, height, junctions, base_top, base_on_table, near)
        seen += any(g != 0.0 for g in got)
        totals = got if totals is None else [a + b for a, b in zip(totals, got, strict=True)]
    assert totals is not None
    return totals, seen


def _twins_by_yellow(views: list[View], x: float, y: float, height: int, base_top: np.ndarray,
                     both: list[float]) -> list[float]:
    """The plain column's and the junction's scores (`both`) of one place, height and road, their
    split set by what their top unit's yellow is worth and their sum kept (so no other candidate moves
    against the pair: a height, a place). The maps take a yellow pixel of a top unit at 2 nats for the
    junction and 2 against the plain column, one in the road's band over the top at 0 (road for both),
    and TEMPERATURE then counts 50 such nats as one unit of belief: a top unit seen as a sliver beside
    its road (tuning seed 58's sixth move at 550/40, two cameras: camera 2's 33 free top pixels, 12
    yellow, none grey; 8 yellow in the band over it; camera 1 none) put the junction at 0.62 of the pair
    though a plain top shows no yellow. A yellow pixel there is counted at JUNCTION_YELLOW_LLR. A view
    brought back from a knock (its maps shifted per place) adds nothing: its pixels are not the drawing's.
    Grey is left as the maps weigh it (a junction's blurred edge may read grey: tokyojx2's counts).

    The absence of yellow is evidence too, for the whole top rather than per pixel: a view where
    BARE_TOP_PX or more of the top unit's free pixels read grey and not one pixel of it yellow puts the
    junction BARE_TOP_LLR units of belief below its plain twin (once, however many views see it so).
    Per pixel the maps weigh it as one blurred patch among many (TEMPERATURE): tuning seed 86's
    eighth move at 550/40, two cameras, a plain h4 whose top camera 2 shows as 40 free pixels, 32 grey,
    none yellow (camera 1: outside), its junction twin still held 0.13 of the belief to the plain 0.46,
    and the move was asked. A top whose free pixels read road colour is not seen bare: the stick over a
    junction's top reads so too (tuning seed 58's eighth move: 40 free top pixels, all road-coloured)."""
    from vision.tokyo.piece_evidence import LLR_SCALE, kept_footprint, top_yellow

    extra, odds, bare, yellow = 0.0, JUNCTION_YELLOW_LLR, False, False
    for v in views:
        fp = kept_footprint(v.calib, v.known, x, y, height, (False, True), base_top, False, v.hulls)
        top, band, known = top_yellow(v.maps, fp, v.yellow_known)
        # a knocked view's yellow is not counted for the junction (its pixels are not the drawing's),
        # but any yellow on the top in any view vetoes the bare top: tuning seed 32's fifth move, an h4
        # junction camera 2 shows as 20 grey free top pixels and no yellow (a few pixels off: the unit
        # below), camera 1 (knocked) as 85 yellow
        yellow = yellow or top + band + known > 0.0
        if v.drawn is not None:
            continue
        extra += (odds - 2 * LLR_SCALE) * top + odds * band + (odds - LLR_SCALE) * known
        bare = bare or (top + band + known == 0.0 and _grey_top(v.maps, fp) >= BARE_TOP_PX)
    if bare and not yellow:
        extra -= TEMPERATURE * BARE_TOP_LLR
    if extra == 0.0:
        return both
    plain, junction = both
    t = TEMPERATURE
    pair = t * np.logaddexp(plain / t, junction / t)
    d = (junction - plain + extra) / t
    return [float(pair - t * np.logaddexp(0.0, d)), float(pair - t * np.logaddexp(0.0, -d))]


def _grey_top(maps: Any, fp: Any) -> int:
    """How many of a junction footprint's free top-unit pixels read grey (column plastic)."""
    if fp.win is None or fp.top is None:
        return 0
    return int(np.count_nonzero(maps.grey[fp.win][fp.top] > 0.0))


def _fmt(v: float) -> str:
    return f"{v:g}"


def pieces_key(state: Any, action: Any) -> str:
    """What the camera sees put down, whoever's turn the engine thinks it is: the new column and
    where its road comes from (a column's place, or the table). The belief is kept over these, so a
    frame read against the match one move behind (the decoder had just committed a move when it
    came) still adds its evidence to the same item; `action_for` turns a key back into the action
    of the match as it stands."""
    from engine.tokyo import Start

    if isinstance(action, Start):
        sup, (tx, ty) = action.support, action.table
        return f"({_fmt(sup.x)},{_fmt(sup.y)}) h1 from table ({_fmt(tx)},{_fmt(ty)})"
    sup, base = action.support, state.support(action.base)
    return (f"({_fmt(sup.x)},{_fmt(sup.y)}) h{sup.height}{' junction' if sup.junction else ''} "
            f"from ({_fmt(base.x)},{_fmt(base.y)})")


def action_for(state: Any, template: Any, read_against: Any) -> Any:
    """The action that puts down the pieces of `template` (an action of the state `read_against`)
    in `state`: the player to move, the base that stands at the same place; None when `state` has
    no such move (the pieces are already on the table, or their base is not)."""
    from engine.tokyo import Start

    if state is read_against:
        return template
    sup = template.support
    if any(abs(s.x - sup.x) < 1e-6 and abs(s.y - sup.y) < 1e-6 for s in state.supports):
        return None  # already standing: this state has it
    if isinstance(template, Start) != state.in_setup:
        return None  # a start road once the set-up is over, or a build during it
    if isinstance(template, Start):
        return replace(template, player=state.rules.colors[state.current_player()])
    was = read_against.support(template.base)
    base = next((s for s in state.supports if abs(s.x - was.x) < 1e-6 and abs(s.y - was.y) < 1e-6), None)
    if base is None:
        return None
    return _with_crossings(state, replace(template, base=base.id, player=state.rules.colors[base.owner],
                                          observed=()))


def _tops(state: Any, unit: float) -> dict[int, np.ndarray]:
    return {s.id: np.array([s.x, s.y, s.height * unit]) for s in state.supports}


def known_pieces(state: Any, calib: Any) -> tuple[list[tuple[float, float, float]], list[tuple[Any, Any]]]:
    """The engine's columns (x, y, top z) and roads (their lower edges, as vision.tokyo.piece_evidence
    draws them)."""
    from vision.tokyo.piece_evidence import stick_axis

    unit = calib.sizes.unit_mm
    tops = _tops(state, unit)
    columns = [(float(t[0]), float(t[1]), float(t[2])) for t in tops.values()]
    sticks = []
    for st in state.sticks:
        a = tops[st.base] if st.base is not None else np.array([st.a[0], st.a[1], 0.0])
        b = tops[st.end] if st.end is not None else np.array([st.b[0], st.b[1], 0.0])
        sticks.append(stick_axis(calib, a, b, st.base is None, st.end is None))
    return columns, sticks


def new_positions(state: Any, observation: dict[str, Any],
                  phantom: frozenset[int]) -> list[tuple[float, float]]:
    """Where the reader saw a column the engine does not know (merged when two readings are one)."""
    g = state.rules.geometry
    out: list[tuple[float, float]] = []
    for k, s in enumerate(observation.get("supports") or []):
        if s.get("x_mm") is None or k in phantom:
            continue
        x, y = float(s["x_mm"]), float(s["y_mm"])
        if any(math.hypot(t.x - x, t.y - y) < g.column_diameter_mm for t in state.supports):
            continue
        if all(math.hypot(px - x, py - y) >= g.column_diameter_mm for px, py in out):
            out.append((x, y))
    return out


def road_end_spots(state: Any, observation: dict[str, Any], sizes: Any) -> list[tuple[float, float]]:
    """Where a new road the reader saw ends on a new column: a stick with one end on a column of the
    match (its base) and the other on no known support, above the table. The reader places a column
    under a lone road end by a guess of the stick's overhang (4-16 mm, vision.tokyo.columns), but the
    set's stick length gives it: the far end lies L - o from the base's top and the column's centre
    o short of the end (o the overhang at each end of a road between two columns). Tuning seed 56's
    tenth move at 550/40 (camera 2 at 750 mm): the column read 19 mm short of where it stands along
    its road, the road's far end read within 2 mm of where the stick's end lies; no place a grid step
    from where it stands was tried, and the place a step short was committed (0.85)."""
    unit, d, reach = sizes.unit_mm, sizes.column_diameter_mm, sizes.stick_length_mm
    out = []
    for base, _, far in _roads_off_a_column(state, observation, d):
        if far[2] < unit / 2:
            continue
        top = np.array([base.x, base.y, base.height * unit + sizes.stick_thickness_mm / 2])
        run = np.asarray(far, np.float64) - top
        length = float(np.linalg.norm(run))
        if not 0.5 * reach < length <= reach + d:
            continue
        o = min(max(reach - length, 0.0), d)
        out.append((float(far[0] - o * run[0] / length), float(far[1] - o * run[1] / length)))
    return out


def _roads_off_a_column(state: Any, observation: dict[str, Any],
                        d: float) -> Iterator[tuple[Any, Any, Any]]:
    """(base support, near end, far end; ends in mm) of each stick read with one end on a column of
    the match (within a column's width `d`) and the other on none: a new road that may end on a new
    column."""
    for st in observation.get("sticks") or []:
        ends = st.get("endpoints_mm")
        if ends is None:
            continue
        for near, far in (ends, ends[::-1]):
            base = next((s for s in state.supports if math.hypot(s.x - near[0], s.y - near[1]) < d), None)
            if base is None or any(math.hypot(s.x - far[0], s.y - far[1]) < d for s in state.supports):
                continue
            yield base, near, far


CUT_EDGE_PX = 2.0  # a stick's end read this near its picture's border (maps' size) is where it leaves it


def cut_road_spots(state: Any, observation: dict[str, Any], calib: Any) -> list[tuple[float, float]]:
    """Where a new road that leaves a column of the match and runs out of the picture of `calib` (the
    view that read it, at its maps' size) may end on a new column: the end read is where the stick
    leaves the picture, not its end, and its height is a guess, so the place along it is not read.
    The road lies in the plane through the camera and the stick's line in the picture; for each
    height a new column may have, its top lies in that plane at a stick's span from the base's top
    (the span halfway between a stick less a column's width and a whole stick)."""
    sizes = calib.sizes
    unit, d, reach = sizes.unit_mm, sizes.column_diameter_mm, sizes.stick_length_mm
    span = reach - d / 2
    cam = calib.camera
    out: list[tuple[float, float]] = []
    for base, near, far in _roads_off_a_column(state, observation, d):
        uv, depth = cam.project(np.array([far], np.float64))
        u, v = float(uv[0, 0]), float(uv[0, 1])
        if depth[0] > 0 and CUT_EDGE_PX <= u < cam.width - CUT_EDGE_PX and \
                CUT_EDGE_PX <= v < cam.height - CUT_EDGE_PX:
            continue  # the end is in the picture: road_end_spots reads it
        c = np.asarray(cam.centre, np.float64)
        n = np.cross(np.asarray(near, np.float64) - c, np.asarray(far, np.float64) - c)
        for h in range(1, MAX_HEIGHT + 1):
            r2 = span * span - ((h - base.height) * unit) ** 2
            if r2 <= (1.5 * d) ** 2 or abs(n[0]) + abs(n[1]) < 1e-9:
                continue
            # the plane's line at the column's top z: n_x x + n_y y = k; the circle round the base
            k = float(n @ c) - n[2] * h * unit
            a, b = n[0], n[1]
            norm = math.hypot(a, b)
            dist = (k - a * base.x - b * base.y) / norm  # the line's distance from the base (signed)
            if dist * dist >= r2:
                continue
            foot = np.array([base.x, base.y]) + dist * np.array([a, b]) / norm
            along = math.sqrt(r2 - dist * dist) * np.array([-b, a]) / norm
            pts = [foot + along, foot - along]
            best = min(pts, key=lambda p: math.hypot(p[0] - far[0], p[1] - far[1]))
            out.append((float(best[0]), float(best[1])))
    return out


def build_spots(state: Any, calib: Any, maps: Any, known: np.ndarray, observation: dict[str, Any],
                phantom: frozenset[int], others: Sequence[View] = (),
                roads: Any = None,
                kept: Sequence[tuple[float, float, float]] = (),
                step: float = 0.0, readings: Sequence[tuple[dict[str, Any], frozenset[int]]] = (),
                ) -> list[tuple[float, float, float]]:
    """The places (x, y, their spread in mm) a new column may stand: where the reader saw one (camera
    1's fused `observation`, then each other view's own reading and its `phantom` supports, `readings`,
    where camera 1's picture does not hold the column: the fusion keeps a column
    or road only camera 2 reads where camera 1 shows pieces along it, so one outside camera 1's
    picture is in camera 2's reading alone; tuning seed 90's seventh move at 550/40, two cameras: camera
    2 read the column at (-327.7,-59.9) and its road's end, camera 1 had it outside its picture, and the
    places tried came from camera 2's grey blobs 30 mm off), and
    where grey plastic shows that no piece of the match explains (the reader misses a one-unit
    column whose road covers most of it), in this view and then in each of `others`; then where a
    standing road shows more grey than its own pixels make likely (a column under the road: `roads`,
    this view's vision.tokyo.under_roads.RoadPixels, and each of `others`' own); last the `kept` places
    of earlier frames (KeptPlaces). A place is left out where an earlier one already tries the same
    candidates (`_tries_same`: on the reporting grid of `step`, the same grid point nearest both), and
    a grey blob where another blob lies within a column's width (one column's blobs)."""
    from vision.tokyo.piece_evidence import grey_spots
    from vision.tokyo.under_roads import road_grey_spots

    d = calib.sizes.column_diameter_mm
    out: list[tuple[float, float, float]] = []
    for k, (reading, ghosts) in enumerate([(observation, phantom), *readings]):
        # another view's reading adds only what camera 1 cannot see, a place whose column's first unit
        # is not wholly in its picture: the rest camera 1 judged when the views were fused
        def seen(x: float, y: float, first: bool = k == 0) -> bool:
            return first or not column_in_view(calib, x, y, 1)

        for x, y in new_positions(state, reading, ghosts):
            if seen(x, y) and not any(_tries_same((x, y), p, step, d) for p in out):
                out.append((x, y, POSITION_SIGMA_MM))
        ends = road_end_spots(state, reading, calib.sizes)
        if k > 0 and k <= len(others):
            ends += cut_road_spots(state, reading, others[k - 1].calib)
        for x, y in ends:
            if seen(x, y) and all(math.hypot(t.x - x, t.y - y) >= d for t in state.supports) and \
                    not any(_tries_same((x, y), p, step, ROAD_END_APART_MM) for p in out):
                out.append((x, y, ROAD_END_SIGMA_MM))
    views = [(calib, maps, known, roads), *((v.calib, v.maps, v.known, v.roads) for v in others)]
    found = [xy for c, m, k, _ in views for xy in grey_spots(m, c, k)]
    found += [xy for c, m, _, r in views if r is not None for xy in road_grey_spots(m.grey, c, r)]
    read = len(out)  # the reader's and the road ends' places: a grey blob is tried beside them
    for x, y in found:
        # blobs a column's width apart are one column's (a road's pale outline gives a chain of them)
        if all(math.hypot(t.x - x, t.y - y) >= d for t in state.supports) and \
                not any(_tries_same((x, y), p, step, d) for p in out[:read]) and \
                all(math.hypot(px - x, py - y) >= d for px, py, _ in out[read:]):
            out.append((x, y, GREY_SPOT_SIGMA_MM))
    for p in kept:
        if not any(_tries_same(p, q, step, d) for q in out):
            out.append(p)
    return out


def road_column_spots(state: Any, views: Sequence[tuple[Any, Any, np.ndarray, Any]],
                      step: float) -> list[tuple[float, float]]:
    """Points along the match's standing roads (every grid step, or 10 mm without a grid, away from the
    columns) where a one-unit column is likelier than the bare road and table, its evidence summed over
    the `views` (calibration, piece maps, known-pieces mask, roads; vision.tokyo.under_roads.
    column_evidence), best first. A column put under a road shows only where the road does not cover
    it, and that may be no blob large enough in any view in any frame (tuning seed 25's third move at
    550/40, two cameras: purple's illegal h2 under its own start road, tried in one frame of five and
    missed); this is the build scores' own test for such a column, so the place is found where the
    pixels say so, whatever shape they take."""
    from vision.tokyo.under_roads import column_evidence

    if not state.sticks:
        return []
    d = state.rules.geometry.column_diameter_mm
    spacing = step if step > 0 else 10.0
    where = {s.id: (s.x, s.y) for s in state.supports}
    pts: list[tuple[float, float]] = []
    for st in state.sticks:
        a = where[st.base] if st.base is not None else (st.a[0], st.a[1])
        b = where[st.end] if st.end is not None else (st.b[0], st.b[1])
        n = max(int(math.hypot(b[0] - a[0], b[1] - a[1]) // spacing), 1)
        for i in range(1, n):
            x, y = a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n
            if step > 0:
                x, y = round(x / step) * step, round(y / step) * step
            if (x, y) not in pts and all(math.hypot(s.x - x, s.y - y) >= d for s in state.supports):
                pts.append((float(x), float(y)))
    if not pts:
        return []
    xs, ys = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    total = np.zeros(len(pts))
    for calib, maps, known, roads in views:
        if roads is not None:
            total += column_evidence(maps.grey, calib, known, roads, xs, ys, calib.sizes.unit_mm)
    return [pts[k] for k in np.argsort(-total, kind="stable") if total[k] > 0.0]


def road_blob_spots(state: Any,
                    views: Sequence[tuple[Any, Any, np.ndarray, Any]]) -> list[tuple[float, float, int, int]]:
    """Where a new column may stand at the far end of a new road no reading found: per view
    (calibration, piece maps, known-pieces mask, roads), each blob of road colour off the standing
    pieces that leaves a standing column's top (vision.tokyo.road_blobs), its far end put back at each
    height a column's top may have, the column its overhang short of it towards the base (as
    `road_end_spots` has it), kept where the road from that base could rest on it. The height is not
    read, so each is a place to try, as (x, y, the base's id, the height it was put back at); the
    builds there are scored as any others, from that base only. Tuning seed 59's
    tenth move at 550/40, two cameras: green's (80,10) h2 beside and under the standing road from its
    base, its road read by no view and its grey inside the standing road's mask in both; never
    tried, missed."""
    from vision.tokyo.road_blobs import road_blob_ends

    sup = list(state.supports)
    d = state.rules.geometry.column_diameter_mm
    out: list[tuple[float, float, int, int]] = []
    for calib, maps, known, _ in views:
        unit, reach = calib.sizes.unit_mm, calib.sizes.stick_length_mm
        ends = road_blob_ends(maps, calib, known, [(s.x, s.y, s.height * unit) for s in sup])
        for j, far in ends:
            base = sup[j]
            top = np.array([base.x, base.y, base.height * unit + calib.sizes.stick_thickness_mm / 2])
            for h in range(1, MAX_HEIGHT + 1):
                end = calib.camera.ray_to_plane(np.array([far]), h * unit + calib.sizes.stick_thickness_mm)[0]
                # the column's centre short of the stick's end by its overhang, as road_end_spots puts it
                run = end - top
                length = float(np.linalg.norm(run))
                if length < 1e-6:
                    continue
                o = min(max(reach - length, 0.0), d)
                x, y = float(end[0] - o * run[0] / length), float(end[1] - o * run[1] / length)
                span = math.hypot(x - base.x, y - base.y)
                if span < 1.5 * d or math.hypot(span, (h - base.height) * unit) > reach or \
                        any(math.hypot(s.x - x, s.y - y) < d for s in sup):
                    continue
                out.append((x, y, base.id, h))
    return out


def _tries_same(a: Sequence[float], b: Sequence[float], step: float, apart: float) -> bool:
    """Whether the places a and b (x, y mm first) are tried with the same candidates. On a grid
    (`step` > 0) read_builds tries the grid points round the one nearest a place, so two places a few
    mm apart on either side of a half step try different columns: the nearest grid points must be the
    same. (Tuning seed 68's ninth move at 550/40, two cameras: the road's end put the column at
    (88.6,-184.9), tried from (90,-180); the grey blob at (89.0,-190.6) and the place kept from the
    first frame, (89.7,-194.1), both within a column's width of it, were left out, and the column
    built at (90,-200) was not tried after the first frame: (90,-190) h3 junction committed at 0.72.)
    With no grid, the places tried are the places themselves: one column within `apart`."""
    if step > 0:
        return (round(a[0] / step), round(a[1] / step)) == (round(b[0] / step), round(b[1] / step))
    return math.hypot(a[0] - b[0], a[1] - b[1]) < apart


def read_builds(state: Any, calib: Any, maps: Any, observation: dict[str, Any], step: float,
                phantom: frozenset[int] = frozenset(), outlines: dict | None = None,
                others: Sequence[OtherView] = (), knocked: bool = False,
                kept: KeptPlaces | None = None,
                readings: Sequence[tuple[dict[str, Any], frozenset[int]]] = ()) -> BuildBelief | None:
    """The belief over the builds that could have put the new column(s) read where they stand
    (`maps`: the frame's vision.tokyo.piece_evidence.piece_maps); None when the engine expects no
    build (set-up, match over) or the reader saw no new column. `outlines`: the candidates' pixel
    outlines for this `calib` (score_build's `hulls`), kept by a caller over its frames. `others`:
    the other calibrated cameras' views of the same moment, (calibration, piece maps, outlines) each
    at the maps' size: every candidate is scored in every view and the scores summed. `knocked`:
    camera 1's frame (`maps`) was brought back from a knock by one warp for the whole picture; near
    each place its residual is looked for (vision.tokyo.local_shift). `kept`: the places kept over
    the frames of this state (KeptPlaces), tried too and added to. `readings`: the other views' own
    readings (each its observation dict and phantom supports), whose new columns and road ends are
    places too."""
    from engine.tokyo import Build, NewSupport

    if state.is_terminal():
        return None
    views = _views(state, calib, maps, {} if outlines is None else outlines, others, knocked)
    remembered = [] if kept is None else kept.of(state)
    spots = build_spots(state, calib, maps, views[0].known, observation, phantom, views[1:], views[0].roads,
                        remembered, step, readings)
    if state.in_setup:
        return _read_starts(state, views, observation, step, spots) if spots else None
    unit = calib.sizes.unit_mm
    reach = calib.sizes.stick_length_mm
    diameter = calib.sizes.column_diameter_mm
    tops = _tops(state, unit)
    # the builder is the base's owner (a road belongs to the support it leaves from: out of turn, if
    # it is not theirs to move), by colour, as the page and the log write it
    who = state.rules.colors
    scored: dict[str, tuple[float, Any]] = {}
    pixels: dict[str, float] = {}
    grid = [step * d for d in range(-NEAR_GRID, NEAR_GRID + 1)] if step > 0 else [0.0]
    # a candidate's pixels scored once a frame, though the grids of places a step apart overlap (a
    # knocked view's scores depend on the place tried around: there each place scores its own)
    memo: dict[tuple, tuple[list[float], int]] = {}
    knocked_view = any(v.drawn is not None for v in views)
    # where no place found holds a build, the places along the standing roads where a column shows
    # (road_column_spots) are tried last: a column under a road may show in no place found
    pending, scanned, any_held = list(spots), False, False
    only: dict[tuple[float, float, float], tuple[int, frozenset[int]]] = {}  # a place's one base, heights
    while pending or not (scanned or any_held):
        if not pending:
            scanned = True
            looked = [(v.calib, v.maps, v.known, v.roads) for v in views]
            pending = [(px, py, GREY_SPOT_SIGMA_MM) for px, py in road_column_spots(state, looked, step)
                       if not any(_tries_same((px, py), q, step, diameter) for q in spots)]
            # then the far ends of new roads no reading found (road_blob_spots), one place a grid point:
            # tried from the road's own base only, at the heights it was put back at and a unit either
            # side (a standing road's shadow on the table reads as road colour too: a blob of it gives
            # a place per height, each scored against every base it cost a fifth of read_builds' CPU)
            for px, py, base_id, h in road_blob_spots(state, looked):
                same = next((q for q in pending if q in only and only[q][0] == base_id
                             and _tries_same((px, py), q, step, diameter)), None)
                if same is not None:
                    only[same] = (base_id, only[same][1] | {h - 1, h, h + 1})
                elif not any(_tries_same((px, py), q, step, diameter) for q in [*spots, *pending]):
                    pending.append((px, py, ROAD_END_SIGMA_MM))
                    only[pending[-1]] = (base_id, frozenset({h - 1, h, h + 1}))
            spots = [*spots, *pending]
            continue
        x, y, sigma = pending.pop(0)
        held = False  # some build at this place beat "no build" (0 nats)
        best = (0.0, x, y)  # the best build's score and column place here (kept where it holds)
        base_only, heights = only.get((x, y, sigma), (None, range(1, MAX_HEIGHT + 1)))
        if base_only is not None and not _blob_place_shows(views, memo, state.support(base_only), tops,
                                                           x, y, heights, step, knocked_view):
            continue  # a road blob's place whose own build does not beat "no build": no road ends there
        for h in range(1, MAX_HEIGHT + 1):
            if h not in heights:
                continue
            cx, cy = (round(x / step) * step, round(y / step) * step) if step > 0 else (x, y)
            for dx in grid:
                for dy in grid:
                    qx, qy = float(cx + dx), float(cy + dy)
                    for base in state.supports:
                        if base_only is not None and base.id != base_only:
                            continue
                        run = math.hypot(base.x - qx, base.y - qy)
                        if run < 1.5 * diameter or math.hypot(run, (h - base.height) * unit) > reach:
                            continue  # on the base, or the road would not rest on both tops
                        junctions = (False, True) if h >= 2 else (False,)
                        # plain and junction from one drawing of the column and road (the same scores)
                        once = (qx, qy, h, base.id, (x, y) if knocked_view else None)
                        if once not in memo:
                            got, seen_in = _scores_seen(views, qx, qy, h, junctions, tops[base.id],
                                                        near=(x, y))
                            if len(got) == 2:
                                got = _twins_by_yellow(views, qx, qy, h, tops[base.id], got)
                            memo[once] = got, seen_in
                        both, seen = memo[once]
                        placed = _build_placement(qx - x, qy - y, sigma, (qx - base.x, qy - base.y), seen)
                        for junction, s in zip(junctions, both, strict=True):
                            action = Build(base.id, NewSupport(qx, qy, h, junction), player=who[base.owner])
                            key = pieces_key(state, action)
                            total = s + placed
                            held = held or total > 0.0
                            if total > best[0]:
                                best = (total, qx, qy)
                            if key not in scored or total > scored[key][0]:
                                scored[key], pixels[key] = (total, action), s
        _, bx, by = best
        any_held = any_held or held
        if held and all(math.hypot(px - bx, py - by) >= diameter for px, py, _ in remembered) and not (
                kept is not None and (kept.barred(x, y) or kept.barred(bx, by))):
            remembered.append((bx, by, sigma))
        elif not held and (x, y, sigma) in remembered:  # a kept place kept only while it holds
            remembered.remove((x, y, sigma))
    out = _belief(state, scored, pixels)
    if out is not None:
        out.views = len(views)
    return out


def _blob_place_shows(views: list[View], memo: dict, base: Any, tops: dict[int, np.ndarray], x: float,
                      y: float, heights: Any, step: float, knocked_view: bool) -> bool:
    """Whether the build from `base` to the grid point nearest a road blob's place (x, y), at one of
    `heights`, beats "no build" on its pixels: the place is worth its grid's candidates. A standing
    road's shadow on the table reads as road colour and gives blobs too (tuning seed 2 at 550/40, two
    cameras: four frames with blobs, 72 places); their builds show no road where they would lie.
    Scored into read_builds' `memo`, as its own loop scores them."""
    cx, cy = (float(round(x / step) * step), float(round(y / step) * step)) if step > 0 else (x, y)
    for h in heights:
        if not 1 <= h <= MAX_HEIGHT:
            continue
        junctions = (False, True) if h >= 2 else (False,)
        per = [_view_scores(v, cx, cy, h, junctions, tops[base.id], False, (x, y)) for v in views]
        # each view that sees it says road there: a shadow on the table lies where a raised road would
        # in one view only (tuning seed 41's still table, camera 2 at 550 mm: a blob of a standing
        # road's shadow beside it gave a build at 0.60 that one view's pixels spoke against)
        if all(max(p) > 0.0 or not any(p) for p in per) and max(map(sum, zip(*per, strict=True))) > 0.0:
            return True
    return False


def _build_placement(dx: float, dy: float, sigma: float, road: tuple[float, float], views: int) -> float:
    """The reader's place for a new column as a log-prior. Seen in several views (`views`: those with
    any evidence on the candidate), along the column's own road (`road`: from its base towards it) no
    tighter than START_ALONG_SIGMA_MM, as for a start column: the reader puts the top of a column
    carrying a road end where it guesses the stick's overhang ends (a guess along the stick), and two
    views' pixels place it well (tuning seed 50's eighth move at 550/40, two cameras: read 11 mm short
    along its road; both views put it a grid step further by 400 nats, the 4 mm prior took as much
    back, and the move was a question). Seen in one view, the read place stands as it was (one view's
    pixels barely tell places along the road apart)."""
    return _start_placement(dx, dy, sigma, road if views > 1 else None)


def builds_out_of_view(state: Any, calib: Any, maps: Any) -> list[tuple[Any, float]]:
    """(support, direction in degrees) for each standing support a road leaves that runs out of the
    picture and no piece of the match explains (vision.tokyo.out_of_view): a build whose new column
    the camera cannot see, so `read_builds` has nothing to try (`maps` at `calib`'s size)."""
    from vision.tokyo.out_of_view import roads_out_of_view
    from vision.tokyo.piece_evidence import known_mask

    if state.is_terminal() or not state.supports:
        return []
    columns, sticks = known_pieces(state, calib)
    known = known_mask(calib, maps.grey.shape, columns, sticks)
    at = {(float(s.x), float(s.y)): s for s in state.supports}
    found = roads_out_of_view(maps, calib, known, columns)
    return [(at[(r.base[0], r.base[1])], r.direction_deg) for r in found]


def column_in_view(calib: Any, x: float, y: float, height: int) -> bool:
    """The whole column (foot to top, its full width) projects inside the picture."""
    r = calib.sizes.column_diameter_mm / 2
    z = height * calib.sizes.unit_mm
    pts = np.array([[x + dx, y + dy, h] for dx in (-r, r) for dy in (-r, r) for h in (0.0, z)])
    uv, depth = calib.camera.project(pts)
    cam = calib.camera
    return bool(((depth > 0) & (uv[:, 0] >= 0) & (uv[:, 1] >= 0) & (uv[:, 0] < cam.width)
                 & (uv[:, 1] < cam.height)).all())


def likeliest_build(builds: BuildBelief | None) -> Any:
    """The action of the frame's likeliest build, None when that is "no build"."""
    if builds is None or not builds.belief:
        return None
    best = max((k for k in builds.belief if k != REST), key=lambda k: builds.belief[k])
    return None if best is EMPTY else builds.actions.get(best)


def saw_no_build(builds: BuildBelief | None) -> bool:
    """The frame's likeliest reading is that nothing was built (or nothing was tried)."""
    if builds is None or not builds.belief:
        return True
    return max((k for k in builds.belief if k != REST), key=lambda k: builds.belief[k]) is EMPTY


def _placement(dx: float, dy: float, sigma: float = POSITION_SIGMA_MM) -> float:
    """The reader's position measurement as nats on the image evidence's scale (a log-prior)."""
    return -TEMPERATURE * (dx * dx + dy * dy) / (2 * sigma**2)


def _belief(state: Any, scored: dict[str, tuple[float, Any]],
            pixels: dict[str, float] | None = None) -> BuildBelief | None:
    """Scores (notation -> (nats, action)) as a belief with "no build" (0 nats) among them;
    `pixels`: each build's pixel evidence alone (BuildBelief.pixels)."""
    if not scored:
        return None
    best = sorted(scored.items(), key=lambda kv: -kv[1][0])[:KEEP]
    top = max(0.0, best[0][1][0])
    weights = {k: math.exp((v - top) / TEMPERATURE) for k, (v, _) in best}
    none_w = math.exp((0.0 - top) / TEMPERATURE)
    rest_w = sum(math.exp((v - top) / TEMPERATURE) for _, (v, _) in
                 sorted(scored.items(), key=lambda kv: -kv[1][0])[KEEP:KEEP + 40]) / 40
    total = sum(weights.values()) + none_w
    belief: dict[Any, float] = {k: w / total for k, w in weights.items()}
    belief[EMPTY] = none_w / total
    belief[REST] = max(1e-4, rest_w / total)
    actions = {k: _with_crossings(state, a) for k, (_, a) in best}
    kept = {} if pixels is None else {k: pixels[k] for k, _ in best if k in pixels}
    return BuildBelief(belief, actions, state, pixels=kept)


START_DIRECTIONS = 36  # where no road was read: table ends tried around a start column
START_NEAREST = 0.75  # of the stick's reach: the nearest table end tried (a flatter road overhangs more)
START_BEST_DIRECTIONS = 2  # directions of the rough ring whose spans are all tried
# the reader's place for a start column along its own road is a guess of the overhang (4-16 mm tried,
# vision.tokyo.columns): along the road the position prior is this wide, across it as read
START_ALONG_SIGMA_MM = 12.0
START_ALONG_SAME_MM = 15.0  # start columns this close on one road: one reading to the reader


def _read_starts(state: Any, views: list[View], observation: dict[str, Any], step: float,
                 spots: list[tuple[float, float, float]]) -> BuildBelief | None:
    """The set-up's start roads: a one-unit column carrying a road down to the table. The table end
    is taken near the far end of a road the reader saw leaving the column, else tried all round it
    at the span the set's stick gives a one-unit climb; each scored as a build is (in every view).
    With several views each column place tried gets its own table ends: every span (`_spans`) towards
    the road's far part (the read road's far end, else the point at mid-span along the ring's best
    directions), aimed from that place. The spans were taken from the spot read only, so a column a
    grid step from it lacked the end that goes with it (tuning seed 4's green start at 550/40, two
    cameras: the spot 10 mm off, the ring's direction 10-20 degrees off, the end played no candidate
    and the span a step short committed at 0.93). The span along the road is what one camera confuses with the
    column's place and a second settles; one camera keeps its candidates as they were."""
    from engine.tokyo import NewSupport, Start

    calib = views[0].calib
    reach = calib.sizes.stick_length_mm
    who = state.rules.colors[state.current_player()]
    snap = (lambda v: float(round(v / step) * step)) if step > 0 else float
    grid = [step * d for d in range(-NEAR_GRID, NEAR_GRID + 1)] if step > 0 else [0.0]
    scored: dict[str, tuple[float, Any]] = {}
    pixels: dict[str, float] = {}
    for x, y, sigma in spots:
        ends: list[tuple[float, float]] = []
        aims: list[tuple[float, float]] = []  # points (mm) on the road's far part
        for st in observation.get("sticks") or []:
            pts = st.get("endpoints_mm")
            if pts is None:
                continue
            near, far = sorted(pts, key=lambda p: math.hypot(p[0] - x, p[1] - y))
            if math.hypot(near[0] - x, near[1] - y) < calib.sizes.column_diameter_mm * 2 and \
                    0.6 * reach <= math.hypot(far[0] - x, far[1] - y) <= 1.1 * reach:
                ends += [(far[0] + dx, far[1] + dy) for dx in grid for dy in grid]
                aims.append((far[0], far[1]))
        if not ends:
            ways = _start_directions(views, snap(x), snap(y))
            ends = list(_spans(calib.sizes, snap(x), snap(y), ways, step, snap))
            mid = _mid_span(calib.sizes)
            aims = [(snap(x) + mid * math.cos(a), snap(y) + mid * math.sin(a)) for a in ways]
        # the road's direction from the column (towards its far part): the prior along it is loose
        road = (aims[0][0] - x, aims[0][1] - y) if aims else (0.0, 0.0)
        # (with several views only: one view's pixels barely tell the places along the road apart, 18
        # nats on tuning seed 7, so there the read place still decides, as before)
        along = road if len(views) > 1 and math.hypot(*road) > 1e-6 else None
        for dx in grid:
            for dy in grid:
                qx, qy = snap(x) + dx, snap(y) + dy
                placed = _start_placement(qx - x, qy - y, sigma, along)
                tried = ends
                if len(views) > 1:  # this place's own spans too
                    ways = [math.atan2(ay - qy, ax - qx) for ax, ay in aims]
                    tried = ends + sorted(_spans(calib.sizes, qx, qy, ways, step, snap) - set(ends))
                for tx, ty in tried:
                    t = (snap(tx), snap(ty))
                    if math.hypot(t[0] - qx, t[1] - qy) > reach:
                        continue
                    end = np.array([t[0], t[1], 0.0])
                    seen = _scores(views, qx, qy, 1, (False,), end, base_on_table=True)[0]
                    s = seen + (_start_overhang(calib.sizes, math.hypot(t[0] - qx, t[1] - qy))
                                if len(views) > 1 else 0.0)
                    action = Start(NewSupport(qx, qy, 1), t, who)
                    key = pieces_key(state, action)
                    if key not in scored or s + placed > scored[key][0]:
                        scored[key], pixels[key] = (s + placed, action), seen
    out = _belief(state, scored, pixels)
    if out is not None:
        out.views = len(views)
    return out


def _start_overhang(sizes: Any, span: float) -> float:
    """The stick's end resting on its column's top, as a log-prior (nats, the pixels' scale). With
    its table end fixed a start road's stick lies where it lies whatever the column under it: columns
    a grid step apart along it change only the few pixels of the column not hidden by the stick, and
    the belief spread over them (tuning seeds 41 and 42 at 550/40, two cameras: the start played led
    by about 1 nat at 0.43-0.46, below the 0.6 asked for). Where the column stands fixes how far the
    stick overhangs it (its length less its run from the table to the column's top): a player rests
    the stick's end on the column's top, so an overhang past the top's edge (or short of it) is priced,
    as the reader's places are, with POSITION_SIGMA_MM beyond the column's radius."""
    run = math.hypot(span, sizes.unit_mm)
    beyond = max(0.0, abs(sizes.stick_length_mm - run) - sizes.column_diameter_mm / 2)
    return -TEMPERATURE * beyond * beyond / (2 * POSITION_SIGMA_MM**2)


def _start_placement(dx: float, dy: float, sigma: float, along: tuple[float, float] | None) -> float:
    """`_placement` for a start column: across its road as read, along it (`along`, any length) no
    tighter than START_ALONG_SIGMA_MM, since there the reader's place is its guess of the overhang
    (tuning seeds 7, 18, 20: read 6-8 mm towards the table end, the prior outweighed the pixels)."""
    if along is None:
        return _placement(dx, dy, sigma)
    n = math.hypot(*along)
    ux, uy = along[0] / n, along[1] / n
    a = dx * ux + dy * uy
    c = -dx * uy + dy * ux
    wide = max(sigma, START_ALONG_SIGMA_MM)
    return -TEMPERATURE * (a * a / (2 * wide**2) + c * c / (2 * sigma**2))


def _start_directions(views: list[View], x: float, y: float) -> list[float]:
    """The directions (radians) a start road no road was read for most likely runs from (x, y): the
    best of one ring of `START_DIRECTIONS` (the road's band says which way it runs whatever its
    span); its table end is then tried at every span the stick reaches along them (`_spans`: its
    span is what the heights and the overhang make it: one ring at a guessed span put it a grid step
    short)."""
    sizes = views[0].calib.sizes
    unit, reach = sizes.unit_mm, sizes.stick_length_mm
    top = math.sqrt(max(reach**2 - unit**2, 0.0))
    mid = (1 + START_NEAREST) / 2 * top
    angles = np.linspace(0, 2 * math.pi, START_DIRECTIONS, endpoint=False)
    rough = [_scores(views, x, y, 1, (False,), np.array([x + mid * math.cos(a), y + mid * math.sin(a), 0.0]),
                     base_on_table=True)[0] for a in angles]
    return [angles[k] for k in np.argsort(rough)[::-1][:START_BEST_DIRECTIONS]]


def _mid_span(sizes: Any) -> float:
    """The middle of the spans a start road can have (mm): where the ring of directions is scored."""
    top = math.sqrt(max(sizes.stick_length_mm**2 - sizes.unit_mm**2, 0.0))
    return (1 + START_NEAREST) / 2 * top


def _spans(sizes: Any, x: float, y: float, directions: list[float], step: float,
           snap: Any) -> set[tuple[float, float]]:
    """Table ends at every span a start road from (x, y) can have (a grid step apart, from the
    one-unit climb's full span to `START_NEAREST` of it) along each of `directions` (radians) and half
    a ring step either side."""
    unit, reach = sizes.unit_mm, sizes.stick_length_mm
    top = math.sqrt(max(reach**2 - unit**2, 0.0))
    turn = 2 * math.pi / START_DIRECTIONS / 2
    runs = np.arange(top, START_NEAREST * top, -(step if step > 0 else 10.0))
    return {(snap(x + run * math.cos(a + da)), snap(y + run * math.sin(a + da)))
            for a in directions for da in (-turn, 0.0, turn) for run in runs}


def _with_crossings(state: Any, action: Any) -> Any:
    """The build with what lies on top at each crossing of its road, as the heights decide it (the
    camera cannot show a road passing through another)."""
    from engine import EngineError
    from engine.tokyo import Build, Observed

    if not isinstance(action, Build):
        return action
    try:
        crossings = state.judge(action).details.get("crossings") or []
    except EngineError:
        return action
    observed = tuple(sorted((Observed(c["road"], c["new_on_top"]) for c in crossings), key=lambda o: o.road))
    return replace(action, observed=observed)


def with_builds(obs: Any, builds: BuildBelief) -> None:
    """Put the build belief into the Observation: the likeliest build as its item, and beliefs for
    every item (the piece counts as the reader's confidences say, the build as scored)."""
    from referee_app.decoder.evidence import beliefs_from_items

    best = max((k for k in builds.belief if k != REST), key=lambda k: builds.belief[k])
    obs.beliefs = {**beliefs_from_items(obs.items, obs.confidence), BUILD_KEY: dict(builds.belief)}
    if best is not EMPTY:
        obs.items[BUILD_KEY] = best


def camera_drift(state: Any, calib: Any, maps: Any, track: DriftTrack | None = None) -> np.ndarray | None:
    """How far the frame has drifted from the calibrated view (a knocked camera), found from the
    pieces the engine knows stand on the table (vision.tokyo.piece_evidence.align_to_known; `maps`
    are the frame's piece maps): a 2x3 map from calibrated pixels to frame pixels, or None (no
    drift, or nothing to align on). With a `track`, the drift found for the same state is kept while
    it explains the pieces as well as when it was found; only then is it searched again (the search
    is a third of this step's time, and a camera is knocked once in a while, not every frame)."""
    from vision.tokyo.piece_evidence import ALIGN_GAIN, align_to_known, alignment_score, known_mask

    if not state.supports:
        return None
    columns, sticks = known_pieces(state, calib)
    known = known_mask(calib, maps.grey.shape, columns, sticks, grow_px=0)
    if track is not None and track.state is state:
        if alignment_score(maps, known, track.drift) >= track.score - ALIGN_GAIN:
            return None if track.drift is None else track.drift.copy()
    drift = align_to_known(maps, known)
    if track is not None:
        track.state, track.drift, track.score = state, drift, alignment_score(maps, known, drift)
    return None if drift is None else drift.copy()


@dataclass
class DriftTrack:
    """The drift last searched for, the state it was found against and how well it aligned."""

    state: Any = None
    drift: np.ndarray | None = None
    score: float = 0.0


def _same_build(a: Any, b: Any, colour: bool = True) -> bool:
    """The same pieces put down (the player's spelling and the crossings aside); without `colour`,
    a junction and the plain column of the same place, height and road count as the same."""
    if type(a) is not type(b):
        return False
    ja, jb = a.to_json(), b.to_json()
    if not colour:
        ja, jb = _uncoloured(ja), _uncoloured(jb)
    keys = ("base", "support", "ramp", "onto", "table")
    return all(ja.get(k) == jb.get(k) for k in keys)


def _uncoloured(j: dict[str, Any]) -> dict[str, Any]:
    support = j.get("support")
    if not isinstance(support, dict):
        return j
    return {**j, "support": {k: v for k, v in support.items() if k != "junction"}}


def fuse_reading(builds: BuildBelief, action: Any, confidence: float) -> None:
    """The reader's own whole-table reading (the build `engine.tokyo.match_build` finds in it, with
    the reader's confidence) is a second witness: its build's odds are multiplied by the reader's
    (confidence / (1 - confidence)) when the belief holds it. A build the pixels never proposed is
    not added: the reader's positions and heights are what the candidates were drawn around.

    Nor is a build witnessed whose own pixels, summed over the views, say the bare table is likelier
    than its pieces (`BuildBelief.pixels` <= 0): the reader read those very pixels, so its reading
    is a witness for which build explains them, not for a build where the scored pixels show none.
    Tuning seed 12 at 550/40, two cameras: after an illegal build was taken back, the reader read a
    column beside s1 (grey of the standing pieces), matched to `s3 -> (-150,-80) h1`, whose road lies
    wholly in the standing road s3 -> s1 (no pixel of it its own) and whose column scored -11 nats
    in the two views; "no build" led the pixels' belief, 0.24 to 0.18, and the witness turned it
    round (asked on a scene where nothing was built). With several views only, as the other
    two-camera rules: one view's pixels are weaker evidence, and there it was not measured.

    The reader's junction flag is no witness: its build's junction or plain twin (the same base,
    place, height and road) is witnessed alike. The flag is the reader's threshold on the yellow share
    of the very top unit the twins' scores already differ on (their only differing pixels), and the
    odds it was multiplied by are the whole reading's (place, height, every column), up to 49 to 1:
    above a thin top's pixels (tuning seed 32's fifth move at 550/40, two cameras: the h4 junction's
    pixels 0.925 against its plain twin, 0.996 once the reader read a junction there). Which twin
    stands is left to the top unit's pixels."""
    c = min(max(float(confidence), 0.02), 0.98)
    hit = [k for k, candidate in builds.actions.items()
           if k in builds.belief and not (builds.views > 1 and builds.pixels.get(k, 1.0) <= 0.0)
           and (_same_build(candidate, action, colour=False)
                or builds.views > 1 and _along_same_start(candidate, action))]
    if not hit:
        return
    for key in hit:
        builds.belief[key] *= c / (1 - c)
    total = sum(v for k, v in builds.belief.items() if k != REST)
    for k in builds.belief:
        builds.belief[k] /= total


def _along_same_start(a: Any, b: Any) -> bool:
    """Two start roads to one table end whose columns stand within a column's width of each other:
    the reader puts a start column where it guesses the road's overhang ends (vision.tokyo.columns,
    `_lone_tops`), so its reading cannot tell them apart and witnesses for both alike."""
    from engine.tokyo import Start

    if not (isinstance(a, Start) and isinstance(b, Start)) or tuple(a.table) != tuple(b.table):
        return False
    return math.hypot(a.support.x - b.support.x, a.support.y - b.support.y) <= START_ALONG_SAME_MM
