"""Which part of the Tokyo Highway play area the calibrated cameras see: geometry only (the
calibrations' pinhole cameras), no picture needed, so `camera check` can tell players before a match
that a build over there would be out of every picture.

A spot of the play area counts as in a camera's picture when both a column's foot there (z = 0) and
the top of a tall column (COLUMN_TOP_UNITS high) project inside it, in front of the camera. The spots
are a grid over PLAY_AREA_MM; the report gives the shares seen by no camera, by one, by two or more,
the uncovered region's bounds and which side of the mat it is on, and plain advice: which camera to
turn or raise, from where the uncovered spots fall outside that camera's picture.

World frame (vision.tokyo.calibration, `tokyo calibrate`): mm from the mat's centre, x to the right,
y away from the near edge (the printed text's), z up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.tokyo.calibration import PinholeCamera

# where the simulated matches build (datasets/match_sim/tokyo.py, tuning seeds 1-50, 2812 support
# placements): 98 % of the supports stand in x -370..310, y -200..160 mm; rounded outward by 10 mm
PLAY_AREA_MM = (-380.0, 320.0, -210.0, 170.0)  # x min, x max, y min, y max
# the same placements: 98.8 % of the supports are at most 5 columns high (the tallest, 7)
COLUMN_TOP_UNITS = 5
GRID_STEP_MM = 10.0
# the uncovered region is named only when at least this share of the play area is in no picture:
# a spot or two at a grid corner is no advice worth giving
MIN_UNCOVERED_SHARE = 0.005
SIDE_SHARE = 0.85  # of the uncovered spots on one side of the mat's centre: that side is named
MAX_ADVICE = 3  # the largest uncovered parts get a line of advice each; the text names them all


def points_in_view(camera: PinholeCamera, pts: np.ndarray) -> np.ndarray:
    """For world points (N,3): True where the point projects inside the picture, in front of the lens."""
    uv, depth = camera.project(np.asarray(pts, np.float64).reshape(-1, 3))
    return (depth > 0) & (uv[:, 0] >= 0) & (uv[:, 1] >= 0) & (uv[:, 0] < camera.width) & \
        (uv[:, 1] < camera.height)


def column_share_in_view(camera: PinholeCamera, x: float, y: float, height: float, radius: float = 7.5,
                         unit: float = 10.0) -> float:
    """Share of a column's side points (4 heights x 5 spots across it) inside the picture; `height` in
    column units."""
    pts = np.array([[x + dx, y + dy, z] for z in np.linspace(0.0, height * unit, 4)
                    for dx, dy in ((0, 0), (radius, 0), (-radius, 0), (0, radius), (0, -radius))])
    return float(points_in_view(camera, pts).mean())


def area_grid(area: tuple[float, float, float, float] = PLAY_AREA_MM,
              step: float = GRID_STEP_MM) -> tuple[np.ndarray, np.ndarray]:
    """The grid's x and y values (mm), edges included."""
    x0, x1, y0, y1 = area
    xs = np.arange(x0, x1 + step / 2, step)
    ys = np.arange(y0, y1 + step / 2, step)
    return xs, ys


def seen_by(cameras: list[PinholeCamera], area: tuple[float, float, float, float] = PLAY_AREA_MM,
            step: float = GRID_STEP_MM, top_mm: float = COLUMN_TOP_UNITS * 10.0) -> np.ndarray:
    """(cameras, ny, nx) booleans: camera k sees the spot's column foot and a `top_mm` tall top."""
    xs, ys = area_grid(area, step)
    gx, gy = np.meshgrid(xs, ys)
    flat = np.column_stack([gx.ravel(), gy.ravel()])
    foot = np.column_stack([flat, np.zeros(len(flat))])
    top = np.column_stack([flat, np.full(len(flat), top_mm)])
    out = [points_in_view(c, foot) & points_in_view(c, top) for c in cameras]
    return np.array(out).reshape(len(cameras), len(ys), len(xs))


def _regions(area: tuple[float, float, float, float]) -> list[tuple[str, float, float, float, float]]:
    """The play area in thirds each way: (name, x0, x1, y0, y1), the near edge first."""
    x0, x1, y0, y1 = area
    xe, ye = np.linspace(x0, x1, 4), np.linspace(y0, y1, 4)
    rows, cols = ("near", "middle", "far"), ("left", "middle", "right")
    out = []
    for j, row in enumerate(rows):
        for i, col in enumerate(cols):
            name = {("middle", "middle"): "the middle"}.get(
                (row, col), f"the {row} {col} corner" if "middle" not in (row, col)
                else f"the {row if col == 'middle' else col} edge")
            out.append((name, float(xe[i]), float(xe[i + 1]), float(ye[j]), float(ye[j + 1])))
    return out


def _side(xs: np.ndarray, ys: np.ndarray) -> str | None:
    """The side of the mat's centre ("left", "far", "far left" ...) where most (SIDE_SHARE) of the
    uncovered spots lie, or None when they are spread around it."""
    near, left = float((ys < 0).mean()), float((xs < 0).mean())
    row = "near" if near >= SIDE_SHARE else "far" if near <= 1 - SIDE_SHARE else ""
    col = "left" if left >= SIDE_SHARE else "right" if left <= 1 - SIDE_SHARE else ""
    return " ".join(w for w in (row, col) if w) or None


def _move(camera: PinholeCamera, number: int, pts: np.ndarray) -> tuple[float, str]:
    """How far (mean pixels) the points fall outside camera `number`'s picture, and which way to move
    that camera to bring them in."""
    uv, depth = camera.project(pts)
    if (depth <= 0).any():
        return float("inf"), f"turn camera {number} towards it"
    u, v = uv[:, 0], uv[:, 1]
    du = np.where(u < 0, u, np.where(u >= camera.width, u - camera.width, 0.0))
    dv = np.where(v < 0, v, np.where(v >= camera.height, v - camera.height, 0.0))
    cost = float(np.hypot(du, dv).mean())
    moves = []
    if abs(float(du.mean())) > 0.25 * cost:
        moves.append(f"turn camera {number} to its {'left' if du.mean() < 0 else 'right'}")
    if abs(float(dv.mean())) > 0.25 * cost:
        moves.append(f"tilt camera {number} up" if dv.mean() < 0
                     else f"raise camera {number} or tilt it down")
    return cost, " and ".join(moves) or f"raise camera {number}"


def coverage_report(cameras: list[PinholeCamera], area: tuple[float, float, float, float] = PLAY_AREA_MM,
                    step: float = GRID_STEP_MM, top_units: int = COLUMN_TOP_UNITS,
                    unit_mm: float = 10.0) -> dict[str, Any]:
    """The cameras' coverage of the play area as a JSON-ready dict: the shares of grid spots seen by
    no camera, one, two or more, each camera's own share, the uncovered region and advice."""
    if not cameras:
        raise ValueError("coverage needs at least one camera")
    top_mm = top_units * unit_mm
    seen = seen_by(cameras, area, step, top_mm)
    count = seen.sum(axis=0)
    total = count.size
    xs, ys = area_grid(area, step)
    gx, gy = np.meshgrid(xs, ys)
    report: dict[str, Any] = {
        "cameras": len(cameras), "area_mm": {"x": [area[0], area[1]], "y": [area[2], area[3]]},
        "grid_step_mm": step, "column_top_mm": top_mm, "points": int(total),
        "share_none": round(float((count == 0).mean()), 4),
        "share_one": round(float((count == 1).mean()), 4),
        "share_two_or_more": round(float((count >= 2).mean()), 4),
        "share_by_camera": [round(float(s.mean()), 4) for s in seen],
        "uncovered_side": None, "uncovered": [], "advice": [],
    }
    out = count == 0
    area_text = (f"the play area (x {area[0]:g}..{area[1]:g} mm, y {area[2]:g}..{area[3]:g} mm around the "
                 f"mat's centre, columns up to {top_units} high)")
    if out.mean() < MIN_UNCOVERED_SHARE:
        report["text"] = (f"every part of {area_text} is in at least one camera's picture"
                          + (f"; {100 * report['share_two_or_more']:.0f} % in two or more"
                             if len(cameras) > 1 else ""))
        return report
    report["uncovered_side"] = _side(gx[out], gy[out])
    regions = []
    for name, rx0, rx1, ry0, ry1 in _regions(area):
        inside = (gx >= rx0) & (gx <= rx1) & (gy >= ry0) & (gy <= ry1)
        hole = out & inside
        if hole.sum() < MIN_UNCOVERED_SHARE * total:
            continue
        ux, uy = gx[hole], gy[hole]
        pts = np.vstack([np.column_stack([ux, uy, np.zeros(len(ux))]),
                         np.column_stack([ux, uy, np.full(len(ux), top_mm)])])
        _cost, move = min(_move(c, k, pts) for k, c in enumerate(cameras, start=1))
        regions.append({"where": name, "x_mm": [float(ux.min()), float(ux.max())],
                        "y_mm": [float(uy.min()), float(uy.max())], "points": int(hole.sum()),
                        "share_of_region": round(float(hole.sum() / inside.sum()), 3), "move": move})
    regions.sort(key=lambda r: -r["points"])
    report["uncovered"] = regions

    def place(r: dict[str, Any]) -> str:
        (x0, x1), (y0, y1) = r["x_mm"], r["y_mm"]
        return (f"{r['where']} (x {x0:g}..{x1:g} mm, y {y0:g}..{y1:g} mm: "
                f"{100 * r['share_of_region']:.0f} % of that part)")

    side = report["uncovered_side"]
    report["text"] = (f"{100 * report['share_none']:.0f} % of {area_text} is in no camera's picture"
                      + (f", on its {side} side" if side else "") + ": "
                      + "; ".join(place(r) for r in regions))
    report["advice"] = [f"{place(r)} is in no camera's picture: {r['move']}, or add a camera on that side "
                        "(a build there is a move the referee cannot read)" for r in regions[:MAX_ADVICE]]
    return report
