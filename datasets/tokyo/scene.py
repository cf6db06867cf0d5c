"""Tokyo Highway scenes as plain data, their 3D geometry, and seeded random scene generation.

A scene dict (also the input of `render_tokyo_frame`):
    supports: [{"id", "x_mm", "y_mm", "height" (column units), "junction" (yellow top unit)}]
    sticks:   [{"a": support id or {"x_mm", "y_mm"} (a table point: a ramp end), "b": ..., "color",
                "player"}]
    cars:     [{"stick": index into sticks, "t": 0..1 along it, "color"}]
    loose:    [{"x_mm", "y_mm", "angle_deg", "color"}]   sticks lying on the table (not roads)
    fallen:   [{"x_mm", "y_mm", "angle_deg", "units"}]   knocked-over supports lying on the table
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.tokyo.calibration import PieceSizes

# RGB colours of the renderer's pieces; sticks may also be given as [r, g, b].
PALETTE: dict[str, tuple[int, int, int]] = {
    "grey": (150, 150, 146),
    "natural": (214, 178, 128),
    "red": (196, 40, 36),
    "blue": (40, 80, 190),
    "green": (40, 150, 60),
    "yellow": (232, 196, 40),
    "black": (40, 38, 36),
    "purple": (120, 50, 150),
    "pink": (230, 110, 160),
    "orange": (235, 120, 30),
    "teal": (20, 140, 140),
}
SUPPORT_RGB = (160, 160, 156)
JUNCTION_RGB = (236, 196, 36)
CAR_SETS = (("purple", "green"), ("pink", "blue"))


def colour_rgb(c: Any) -> tuple[int, int, int]:
    if isinstance(c, str):
        if c not in PALETTE:
            raise ValueError(f"unknown colour {c!r}; known: {', '.join(PALETTE)}")
        return PALETTE[c]
    r, g, b = (int(v) for v in c)
    return r, g, b


@dataclass
class Rod:
    """A stick as a 3D axis segment (mm); `ends` are what each end rests on."""

    p0: np.ndarray
    p1: np.ndarray
    rgb: tuple[int, int, int]
    ends: tuple[Any, Any]
    player: int | None
    loose: bool = False


def support_top(s: dict[str, Any], sizes: PieceSizes) -> np.ndarray:
    return np.array([s["x_mm"], s["y_mm"], s["height"] * sizes.unit_mm], np.float64)


def resolve_rods(scene: dict[str, Any], sizes: PieceSizes) -> list[Rod]:
    """Each stick's axis in 3D: resting on support tops (or the table), centred between its rests and
    extended to the stick length; loose sticks lie flat on the table."""
    by_id = {s["id"]: s for s in scene.get("supports", [])}
    half_t = sizes.stick_thickness_mm / 2
    rods = []
    for k, st in enumerate(scene.get("sticks", [])):
        rests, kinds = [], []
        for end in (st["a"], st["b"]):
            if isinstance(end, dict):
                rests.append(np.array([end["x_mm"], end["y_mm"], half_t], np.float64))
                kinds.append(None)
            else:
                if end not in by_id:
                    raise ValueError(f"stick {k}: unknown support id {end!r}")
                rests.append(support_top(by_id[end], sizes) + [0, 0, half_t])
                kinds.append(end)
        a, b = rests
        d = b - a
        length = float(np.linalg.norm(d))
        if length < 1e-6:
            raise ValueError(f"stick {k}: both ends rest on the same point")
        u = d / length
        extra = max(0.0, sizes.stick_length_mm - length)
        # a table end touches the table: the whole overhang goes to the supported end(s)
        ext_a = 0.0 if kinds[0] is None else (extra if kinds[1] is None else extra / 2)
        ext_b = 0.0 if kinds[1] is None else (extra if kinds[0] is None else extra / 2)
        rods.append(
            Rod(
                a - u * ext_a,
                b + u * ext_b,
                colour_rgb(st.get("color", "grey")),
                tuple(kinds),
                st.get("player"),
            )
        )
    for lo in scene.get("loose", []):
        ang = np.radians(lo.get("angle_deg", 0.0))
        u = np.array([np.cos(ang), np.sin(ang), 0.0])
        c = np.array([lo["x_mm"], lo["y_mm"], lo.get("z_mm", half_t)])  # z_mm: resting on a pile
        h = sizes.stick_length_mm / 2
        rods.append(Rod(c - u * h, c + u * h, colour_rgb(lo.get("color", "grey")), (None, None), None, True))
    return rods


def seg_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Plan distance from point p to segment ab (2D)."""
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(np.dot(ab, ab), 1e-12), 0, 1))
    return float(np.linalg.norm(p - (a + t * ab)))


def seg_intersection(a0, a1, b0, b1) -> tuple[float, float] | None:
    """Parameters (s, t) where 2D segments a0a1 and b0b1 cross, or None."""
    da, db = a1 - a0, b1 - b0
    den = da[0] * db[1] - da[1] * db[0]
    if abs(den) < 1e-12:
        return None
    w = b0 - a0
    s = (w[0] * db[1] - w[1] * db[0]) / den
    t = (w[0] * da[1] - w[1] * da[0]) / den
    if 0 <= s <= 1 and 0 <= t <= 1:
        return float(s), float(t)
    return None


class _Builder:
    """Grows two players' highways with rejection sampling so the structure is physically plausible:
    no stick through a column footprint, crossing sticks clear each other, supports do not touch."""

    def __init__(self, rng: np.random.Generator, sizes: PieceSizes, half_extent: tuple[float, float]) -> None:
        self.rng, self.sizes, self.half = rng, sizes, half_extent
        self.supports: list[dict[str, Any]] = []
        self.sticks: list[dict[str, Any]] = []
        self.rods: list[Rod] = []

    def _inside(self, x: float, y: float) -> bool:
        return abs(x) <= self.half[0] and abs(y) <= self.half[1]

    def _support_ok(self, x: float, y: float) -> bool:
        s = self.sizes
        p = np.array([x, y])
        if not self._inside(x, y):
            return False
        for o in self.supports:
            if np.hypot(o["x_mm"] - x, o["y_mm"] - y) < s.column_diameter_mm * 1.8:
                return False
        return all(
            seg_distance(p, r.p0[:2], r.p1[:2]) > (s.column_diameter_mm + s.stick_width_mm) / 2 + 4
            for r in self.rods
        )

    def _stick_ok(self, rod: Rod, skip: tuple[Any, ...]) -> bool:
        s = self.sizes
        if not all(self._inside(*p[:2]) for p in (rod.p0, rod.p1)):
            return False
        for o in self.supports:
            if o["id"] in skip:
                continue
            clear = (s.column_diameter_mm + s.stick_width_mm) / 2 + 4
            if seg_distance(np.array([o["x_mm"], o["y_mm"]]), rod.p0[:2], rod.p1[:2]) < clear:
                return False
        for r in self.rods:
            hit = seg_intersection(rod.p0[:2], rod.p1[:2], r.p0[:2], r.p1[:2])
            shared = set(rod.ends) & set(r.ends) - {None}
            if shared:
                # sticks meeting at a support: they must leave it at clearly different angles
                da = (rod.p1 - rod.p0)[:2]
                db = (r.p1 - r.p0)[:2]
                cosang = abs(np.dot(da, db)) / (np.linalg.norm(da) * np.linalg.norm(db))
                if cosang > 0.8:
                    return False
                continue
            if hit is None:
                # nearly touching in plan without crossing is hard to read and illegal anyway
                for p in (rod.p0, rod.p1):
                    if seg_distance(p[:2], r.p0[:2], r.p1[:2]) < s.stick_width_mm * 2:
                        return False
                continue
            za = rod.p0[2] + hit[0] * (rod.p1[2] - rod.p0[2])
            zb = r.p0[2] + hit[1] * (r.p1[2] - r.p0[2])
            if abs(za - zb) < s.stick_thickness_mm + s.unit_mm * 0.5:
                return False
            da = (rod.p1 - rod.p0)[:2]
            db = (r.p1 - r.p0)[:2]
            if abs(np.dot(da, db)) / (np.linalg.norm(da) * np.linalg.norm(db)) > 0.94:
                return False  # crossing at under ~20 degrees: both would be nearly on top of each other
        return True

    def add_support(self, x: float, y: float, h: int, junction: bool) -> dict[str, Any]:
        s = {
            "id": len(self.supports),
            "x_mm": round(x, 2),
            "y_mm": round(y, 2),
            "height": int(h),
            "junction": bool(junction),
        }
        self.supports.append(s)
        return s

    def try_grow(self, base: dict[str, Any], player: int, colour: Any) -> dict[str, Any] | None:
        """Add a support and a stick from `base`; among a few valid tries, usually keep the one that
        crosses the most roads (players seek crossings: they earn cars)."""
        s, rng = self.sizes, self.rng
        found: list[tuple[int, tuple]] = []
        for _ in range(40):
            if len(found) >= 6:
                break
            ang = rng.uniform(0, 2 * np.pi)
            if base["junction"]:
                h = int(rng.integers(1, 7))
            else:
                h = base["height"] + int(rng.choice([-1, 1]))
            if h < 1 or h > 7:
                continue
            dz = (h - base["height"]) * s.unit_mm
            d = rng.uniform(0.74, 0.9) * s.stick_length_mm
            if np.hypot(d, dz) > s.stick_length_mm * 0.97:
                continue
            x, y = base["x_mm"] + d * np.cos(ang), base["y_mm"] + d * np.sin(ang)
            if not self._support_ok(x, y):
                continue
            junction = h >= 2 and rng.random() < 0.15
            new = {"id": len(self.supports), "x_mm": x, "y_mm": y, "height": h, "junction": junction}
            stick = {"a": base["id"], "b": new["id"], "color": colour, "player": player}
            rod = resolve_rods({"supports": [base, new], "sticks": [stick]}, s)[0]
            if not self._stick_ok(rod, (base["id"], new["id"])):
                continue
            crossings = sum(
                seg_intersection(rod.p0[:2], rod.p1[:2], r.p0[:2], r.p1[:2]) is not None for r in self.rods
            )
            found.append((crossings, (x, y, h, junction, stick, rod)))
        if not found:
            return None
        pick = max(found, key=lambda f: f[0]) if rng.random() < 0.7 else found[0]
        x, y, h, junction, stick, rod = pick[1]
        new = self.add_support(x, y, h, junction)
        stick["b"] = new["id"]
        self.sticks.append(stick)
        self.rods.append(rod)
        return new

    def try_ramp(self, base: dict[str, Any], player: int, colour: Any) -> bool:
        s, rng = self.sizes, self.rng
        for _ in range(20):
            ang = rng.uniform(0, 2 * np.pi)
            d = 0.9 * np.sqrt(s.stick_length_mm**2 - (base["height"] * s.unit_mm) ** 2)
            end = {
                "x_mm": round(base["x_mm"] + d * np.cos(ang), 2),
                "y_mm": round(base["y_mm"] + d * np.sin(ang), 2),
            }
            stick = {"a": base["id"], "b": end, "color": colour, "player": player}
            rod = resolve_rods({"supports": [base], "sticks": [stick]}, s)[0]
            if self._stick_ok(rod, (base["id"],)):
                self.sticks.append(stick)
                self.rods.append(rod)
                return True
        return False


def random_scene(
    rng: np.random.Generator,
    sizes: PieceSizes | None = None,
    n_sticks: int | None = None,
    distractors: bool = True,
    half_extent: tuple[float, float] = (230.0, 160.0),
) -> dict[str, Any]:
    """A plausible mid-game structure for two players, with cars and (optionally) distractors."""
    sizes = sizes or PieceSizes()
    n_target = int(n_sticks if n_sticks is not None else rng.integers(4, 17))
    b = _Builder(rng, sizes, half_extent)
    mode = rng.choice(["grey", "grey", "players", "pickup"])
    pickup = ["red", "blue", "green", "yellow", "black", "natural", "orange", "teal"]
    player_cols = [["grey"], ["natural"]] if mode == "grey" else [["red"], ["blue"]]
    cars = CAR_SETS[int(rng.integers(len(CAR_SETS)))]
    heads: list[list[dict[str, Any]]] = []
    for _p in range(2):
        for _ in range(50):
            x, y = rng.uniform(-half_extent[0], half_extent[0]), rng.uniform(-half_extent[1], half_extent[1])
            if b._support_ok(x, y):
                heads.append([b.add_support(x, y, int(rng.integers(1, 3)), False)])
                break
    stalls = 0
    while len(b.sticks) < n_target and stalls < 60 and heads:
        p = len(b.sticks) % len(heads)
        colour = (
            str(rng.choice(pickup)) if mode == "pickup" else ("grey" if mode == "grey" else player_cols[p][0])
        )
        open_bases = [heads[p][-1]] + [s for s in heads[p][:-1] if s["junction"]]
        base = open_bases[int(rng.integers(len(open_bases)))]
        if base["height"] == 1 and rng.random() < 0.08 and b.try_ramp(base, p, colour):
            continue
        new = b.try_grow(base, p, colour)
        if new is None:
            stalls += 1
            if stalls % 10 == 0:  # stuck: start a fresh branch elsewhere (a new start road)
                x, y = (
                    rng.uniform(-half_extent[0], half_extent[0]),
                    rng.uniform(-half_extent[1], half_extent[1]),
                )
                if b._support_ok(x, y):
                    heads[p].append(b.add_support(x, y, int(rng.integers(1, 3)), False))
            continue
        heads[p].append(new)
    scene: dict[str, Any] = {
        "supports": b.supports,
        "sticks": b.sticks,
        "cars": [],
        "loose": [],
        "fallen": [],
    }
    for k, st in enumerate(b.sticks):
        if rng.random() < 0.45:
            scene["cars"].append(
                {
                    "stick": k,
                    "t": round(float(rng.uniform(0.3, 0.7)), 3),
                    "color": cars[st.get("player") or 0],
                }
            )
    _drop_cars_near_crossings(scene, b.rods, sizes)
    if distractors:
        if rng.random() < 0.25:
            scene["loose"].append(
                {
                    "x_mm": float(rng.uniform(-1, 1) * half_extent[0] * 1.1),
                    "y_mm": float(rng.choice([-1, 1]) * (half_extent[1] + 45)),
                    "angle_deg": float(rng.uniform(-25, 25)),
                    "color": str(rng.choice(pickup)),
                }
            )
        if rng.random() < 0.15:
            scene["fallen"].append(
                {
                    "x_mm": float(rng.choice([-1, 1]) * (half_extent[0] + 40)),
                    "y_mm": float(rng.uniform(-1, 1) * half_extent[1]),
                    "angle_deg": float(rng.uniform(0, 180)),
                    "units": int(rng.integers(1, 4)),
                }
            )
    return scene


def pickup_scene(
    rng: np.random.Generator, sizes: PieceSizes | None = None, n: int | None = None
) -> dict[str, Any]:
    """A heap of pick-up sticks: each stick lies a little higher than the ones dropped before it, so
    crossings are many and which stick is on top is known."""
    sizes = sizes or PieceSizes()
    n = int(n if n is not None else rng.integers(6, 16))
    colours = ["red", "blue", "green", "yellow", "black", "natural", "orange", "teal", "purple"]
    loose = []
    for k in range(n):
        loose.append(
            {
                "x_mm": float(rng.normal(0, 45)),
                "y_mm": float(rng.normal(0, 35)),
                "angle_deg": float(rng.uniform(0, 180)),
                "color": str(rng.choice(colours)),
                "z_mm": sizes.stick_thickness_mm * (k + 0.5),
            }
        )
    return {"supports": [], "sticks": [], "cars": [], "loose": loose, "fallen": []}


def _drop_cars_near_crossings(scene: dict[str, Any], rods: list[Rod], sizes: PieceSizes) -> None:
    keep = []
    for car in scene["cars"]:
        r = rods[car["stick"]]
        pos = r.p0 + car["t"] * (r.p1 - r.p0)
        near = any(
            seg_distance(pos[:2], o.p0[:2], o.p1[:2]) < sizes.car_length_mm + sizes.stick_width_mm
            for j, o in enumerate(rods)
            if j != car["stick"]
        )
        if not near:
            keep.append(car)
    scene["cars"] = keep
