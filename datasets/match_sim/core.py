"""What every simulated match shares: the camera set-up, the ground truth of each move, the scenes a
script produces and the photographer that turns a scene into camera frames.

A script is cheap (engine states and piece positions); frames are rendered only when asked for, one
scene at a time, so a long match at 1920x1080 never sits in memory at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.camera import Pose, apply_lighting, random_pose, table_texture
from drawing.paper import PAPERS  # home paper a large board may be printed on in tiles

LIGHTS = ("normal", "dim", "mixed")


@dataclass(frozen=True)
class Setup:
    """How the table is filmed: frame size in pixels, camera height above the table in mm, tilt from
    straight down in degrees, the room's light, and whether hands cover every change."""

    width: int = 1920
    height: int = 1080
    height_mm: float = 850.0
    tilt_deg: float = 10.0
    light: str = "normal"
    hands: bool = False
    fov_deg: float = 70.0  # the lens: horizontal field of view (a common webcam's)
    # the board printed on home paper ("a4", "letter") and taped together on the table, a few mm apart
    # (print highway-dice --paper); None: the one-piece print
    paper: str | None = None
    # how many cameras film the table (Tokyo Highway only takes two): the second placed `around_deg`
    # around the table from the first, at its own height and tilt (None: the first camera's)
    cameras: int = 1
    second: SecondCamera | None = None

    def __post_init__(self) -> None:
        if self.width < 160 or self.height < 120:
            raise ValueError(f"a {self.width}x{self.height} camera is too small to read anything")
        if not 150.0 <= self.height_mm <= 3000.0:
            raise ValueError(f"camera height {self.height_mm:g} mm is outside 150..3000 mm")
        if not 0.0 <= self.tilt_deg <= 60.0:
            raise ValueError(f"tilt {self.tilt_deg:g} degrees is outside 0..60")
        if not 20.0 <= self.fov_deg <= 120.0:
            raise ValueError(f"field of view {self.fov_deg:g} degrees is outside 20..120")
        if self.light not in LIGHTS:
            raise ValueError(f"light {self.light!r} is not one of {', '.join(LIGHTS)}")
        if self.paper not in (None, *PAPERS):
            raise ValueError(f"paper {self.paper!r} is not one of {', '.join(PAPERS)}")
        if self.cameras not in (1, 2):
            raise ValueError(f"{self.cameras} cameras: the simulator films a table with one or two")
        if self.second is not None and self.cameras < 2:
            raise ValueError("a second camera's placement goes with two cameras")

    @property
    def second_camera(self) -> SecondCamera:
        """The second camera's placement, as given or the default (150 degrees around, 200 mm above the
        first, at its tilt)."""
        return self.second or SecondCamera()

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    def label(self) -> str:
        return (f"{self.width}x{self.height} h{self.height_mm:g} t{self.tilt_deg:g} {self.light}"
                + (" hands" if self.hands else "") + (f" {self.paper} tiles" if self.paper else "")
                + (f" {self.cameras} cameras" if self.cameras > 1 else ""))

    def to_json(self) -> dict[str, Any]:
        out = {"camera": f"{self.width}x{self.height}", "height_mm": self.height_mm,
               "tilt_deg": self.tilt_deg, "light": self.light, "hands": self.hands, "fov_deg": self.fov_deg}
        if self.paper:
            out["paper"] = self.paper
        out["cameras"] = self.cameras
        if self.cameras > 1:
            second = self.second_camera
            out["camera2"] = {"around_deg": second.around_deg,
                              "height_mm": second.height_over(self.height_mm),
                              "tilt_deg": self.tilt_deg if second.tilt_deg is None else second.tilt_deg}
        return out


@dataclass(frozen=True)
class SecondCamera:
    """Where a second camera stands (docs/vision/tokyo-referee.md, "Several cameras": another side of
    the table, at least about 60 degrees around from the first, tilted 12-40 degrees): `around_deg`
    about the table's vertical axis from the first, its own height (None: RAISE_MM above the first's)
    and tilt (None: the first's)."""

    # The default stands higher than the first camera: at 550 mm both, 10 of 500 tuning builds
    # fall outside both pictures; 200 mm higher, none, and tuning seeds 31-60 read 294/300 moves right
    # against 287/300 (docs/vision/tokyo-referee.md, "A lamp's halo is no hand")
    RAISE_MM = 200.0

    around_deg: float = 150.0
    height_mm: float | None = None
    tilt_deg: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= abs(self.around_deg) <= 360.0:
            raise ValueError(f"a second camera {self.around_deg:g} degrees around is outside -360..360")
        if self.height_mm is not None and not 150.0 <= self.height_mm <= 3000.0:
            raise ValueError(f"second camera height {self.height_mm:g} mm is outside 150..3000 mm")
        if self.tilt_deg is not None and not 0.0 <= self.tilt_deg <= 60.0:
            raise ValueError(f"second camera tilt {self.tilt_deg:g} degrees is outside 0..60")

    def height_over(self, first_height_mm: float) -> float:
        """This camera's height above the table, given the first camera's."""
        return first_height_mm + self.RAISE_MM if self.height_mm is None else self.height_mm


@dataclass
class TrueMove:
    """One action the players really made, as the engine judges it."""

    notation: str
    legal: bool
    rule: str
    scripted_illegal: bool = False  # the script chose this move to break a rule


@dataclass
class Scene:
    """One still moment of the table, shown for `hold` frames. `content` is the game's own
    description of what lies on the table; `checkpoint` is the index of the move that is complete
    once this scene's last frame has been seen (the players then look at what the referee logged)."""

    content: Any
    hold: int
    note: str = ""
    hand: bool = False
    checkpoint: int | None = None
    bump: bool = False  # the camera is knocked just before this scene (and stays where it ends up)
    shadow: bool = False  # someone leaning over the table casts a shadow on it
    glare: bool = False  # a reflection of a lamp or window on the sheet


@dataclass
class SimFrame:
    image: np.ndarray
    scene: int  # index of the scene it shows
    checkpoint: int | None = None  # set on a scene's last frame (see Scene.checkpoint)
    others: list[np.ndarray] = field(default_factory=list)  # the other cameras' frames of the moment


@dataclass
class SimMatch:
    """A whole scripted match: the players, the truth, the scenes, and how to draw a scene."""

    game: str
    players: list[str]
    moves: list[TrueMove]
    scenes: list[Scene]
    photographer: Photographer
    draw: Callable[[Any, Any], np.ndarray]  # scene content + pose -> BGR picture before light and noise
    variant: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # what the referee must be told (calibration...)
    # the other cameras over the same table (camera 2 first), each its own lamp, lens and noise; the
    # bump knocks the first camera only
    others: list[Photographer] = field(default_factory=list)

    def frames(self) -> Iterator[SimFrame]:
        index = 0
        for k, scene in enumerate(self.scenes):
            if scene.bump:
                self.photographer.bump()
            still = self.photographer.light(self.draw(scene.content, self.photographer.pose), scene, k)
            stills = [p.light(self.draw(scene.content, p.pose), scene, k) for p in self.others]
            for j in range(scene.hold):
                last = j == scene.hold - 1
                yield SimFrame(self.photographer.expose(still, index), k, scene.checkpoint if last else None,
                               [p.expose(s, index) for p, s in zip(self.others, stills, strict=True)])
                index += 1

    def truncate(self, max_moves: int) -> SimMatch:
        """The same match stopped once its first `max_moves` moves are complete (a quick check)."""
        if max_moves >= len(self.moves):
            return self
        last = next(k for k, s in enumerate(self.scenes) if s.checkpoint == max_moves - 1)
        self.moves = self.moves[:max_moves]
        self.scenes = self.scenes[:last + 1]
        return self

    def frame_count(self) -> int:
        return sum(s.hold for s in self.scenes)


def camera_pose(setup: Setup, area_mm: tuple[float, float], rng: np.random.Generator) -> Pose:
    """The camera of `setup` over a table area of `area_mm` (w, h) with origin at its top-left
    corner: exactly the set-up's height and tilt, from a seeded side, aimed near the area's centre,
    with the set-up's lens (so a higher camera sees the table smaller, as a real one does)."""
    pose = random_pose(rng, area_mm, setup.size, height_mm=(setup.height_mm, setup.height_mm),
                       tilt_deg=(setup.tilt_deg, setup.tilt_deg), yaw_deg=(-4.0, 4.0))
    w, h = setup.size
    f = (w / 2) / np.tan(np.radians(setup.fov_deg) / 2)
    pose.K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    return pose


class Photographer:
    """One camera over one table for the whole match. The lamp stays put (its pattern is seeded
    once); a passing shadow or glare spot belongs to a scene; sensor noise and blur change every
    frame. `bump` knocks the camera once: a small turn and shift that stays."""

    def __init__(self, setup: Setup, pose: Any, seed: int,
                 bumper: Callable[[Any, np.random.Generator], Any] | None = None) -> None:
        self.setup = setup
        self.pose = pose  # a datasets.camera Pose, or what the game's own renderer takes (`bumper`)
        self.seed = seed
        self.bumper = bumper
        self.focus_sigma = float(np.random.default_rng([seed, 106]).uniform(0.3, 0.8))  # the lens, fixed
        self.table = table_texture(np.random.default_rng([seed, 101]), setup.size)
        self.bumped = 0

    def bump(self) -> None:
        rng = np.random.default_rng([self.seed, 102, self.bumped])
        self.bumped += 1
        if self.bumper is not None:
            self.pose = self.bumper(self.pose, rng)
            return
        angle = np.radians(rng.uniform(0.8, 1.6)) * rng.choice([-1, 1])
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        turn, _ = cv2.Rodrigues(axis * angle)
        shift = np.append(rng.uniform(-6.0, 6.0, 2), 0.0)
        self.pose = Pose(self.pose.K.copy(), turn @ self.pose.R, self.pose.C + shift, self.pose.out_size,
                         self.pose.light_dir.copy())

    def light(self, image: np.ndarray, scene: Scene, index: int) -> np.ndarray:
        """The room's light on a scene: the steady lamp, then this scene's shadow and glare."""
        setup = self.setup
        lamp_seed = [self.seed, 103] if setup.light != "mixed" else [self.seed, 103, index // 4]
        strength = 0.35 if setup.light == "normal" else 0.6
        out = apply_lighting(image, np.random.default_rng(lamp_seed), strength)
        rng = np.random.default_rng([self.seed, 104, index])
        if setup.light == "dim":
            out = cv2.convertScaleAbs(out, alpha=0.45, beta=4)
        if setup.light == "mixed":  # warm lamp on one side, cold daylight on the other
            out = _colour_cast(out, rng)
        if scene.shadow:
            out = _person_shadow(out, rng)
        if scene.glare:
            out = _glare_streak(out, rng)
        if scene.hand:
            from datasets.demo_matches import add_hand

            out = add_hand(out, rng)
        return out

    def expose(self, still: np.ndarray, frame: int) -> np.ndarray:
        """One frame of a still scene: the lens's fixed softness, fresh sensor noise (more in dim
        light, where the camera turns its gain up) and the camera's own JPEG compression."""
        rng = np.random.default_rng([self.seed, 105, frame])
        image = cv2.GaussianBlur(still, (0, 0), self.focus_sigma)
        sigma = rng.uniform(1.0, 2.5) * (2.5 if self.setup.light == "dim" else 1.0)
        noisy = image.astype(np.float32) + rng.normal(0.0, sigma, image.shape).astype(np.float32)
        image = np.clip(noisy, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 93))])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image


def _colour_cast(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = image.shape[:2]
    ramp = np.linspace(-1.0, 1.0, w, dtype=np.float32)[None, :, None]
    if rng.random() < 0.5:
        ramp = ramp[:, ::-1]
    warm = np.array([-18.0, 0.0, 22.0], np.float32)  # BGR: more red, less blue
    out = image.astype(np.float32) + ramp * warm * np.ones((h, 1, 1), np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _person_shadow(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A soft dark wedge from one edge, as a player leaning in front of the lamp."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.float32)
    edge = int(rng.integers(4))
    reach = rng.uniform(0.25, 0.5)
    a, b = sorted(rng.uniform(0.1, 0.9, 2))
    if edge in (0, 1):  # top or bottom
        y0 = 0 if edge == 0 else h - 1
        y1 = int(h * reach) if edge == 0 else int(h * (1 - reach))
        pts = [(int(a * w), y0), (int(b * w), y0), (int((a + b) / 2 * w), y1)]
    else:
        x0 = 0 if edge == 2 else w - 1
        x1 = int(w * reach) if edge == 2 else int(w * (1 - reach))
        pts = [(x0, int(a * h)), (x0, int(b * h)), (x1, int((a + b) / 2 * h))]
    cv2.fillConvexPoly(mask, np.array(pts, np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), max(w, h) * 0.03)
    depth = rng.uniform(0.25, 0.45)
    return (image.astype(np.float32) * (1.0 - depth * mask[..., None])).astype(np.uint8)


def _glare_streak(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A long bright reflection across part of the sheet (a window or a strip light)."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
    axes = (int(rng.uniform(0.08, 0.2) * w), int(rng.uniform(0.01, 0.03) * h) + 2)
    cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(w, h) * 0.01)
    out = image.astype(np.float32) + rng.uniform(70, 140) * mask[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


SHADOW_SHARE = 0.12  # of still scenes with someone's shadow across the table
GLARE_SHARE = 0.12  # of still scenes with a glare streak


class Script:
    """The scenes of a match as its script adds them: still scenes (each with its chance of a
    shadow and of glare, drawn from the script's rng) and, when the set-up has hands, hand scenes."""

    def __init__(self, setup: Setup, rng: np.random.Generator, frames_needed: int) -> None:
        self.setup = setup
        self.rng = rng
        self.settle = settle_hold(frames_needed)
        self.scenes: list[Scene] = []

    def still(self, content: Any, note: str, checkpoint: int | None = None, hold: int | None = None) -> None:
        self.scenes.append(Scene(content, hold or self.settle, note, checkpoint=checkpoint,
                                 shadow=bool(self.rng.random() < SHADOW_SHARE),
                                 glare=bool(self.rng.random() < GLARE_SHARE)))

    def hand(self, content: Any, note: str) -> None:
        if self.setup.hands:
            self.scenes.append(Scene(content, 2, note, hand=True))


def settle_hold(frames_needed: int) -> int:
    """Frames a still table is filmed after a change: what the referee needs to settle, and two more."""
    return frames_needed + 2
