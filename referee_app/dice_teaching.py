"""Teach my dice from the page: photos held in memory while the player corrects what the reader found,
then one dice profile saved, by name, in the referee's own folder (DATA/dice-profiles/NAME.json).

The profile is made by vision.learned.teach.teach_images from the same images and labels `teach dice`
would read from a folder (the found boxes, with the player's values), so the two are the same profile.
Nothing is written until every photo and value has been checked; the file is written whole or not at
all (vision.jsonfile)."""

from __future__ import annotations

import re
import secrets
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAX_PHOTOS = 6  # photos one profile is taught from (`teach dice` uses 3)
# photos held: twice that (Teaching), so a page that removed some and took others still finds the ones
# it shows; and at most this many bytes of them (the oldest go first)
HELD_BYTES = 256 * 1024 * 1024
MAX_UPLOAD = 8 * 1024 * 1024  # bytes of one uploaded photo
MAX_PIXELS = 4096 * 3072  # a decoded photo's width x height
MAX_DICE = 60  # dice listed per photo (a tray photo holds a dozen)
PROFILE_DIR = "dice-profiles"
PHOTO_ID = re.compile(r"^[0-9a-f]{16}$")
NAME_CHARS = re.compile(r"[^a-z0-9]+")


class TeachError(Exception):
    """A request the teaching cannot take (message, HTTP status): nothing was kept or written."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Photo:
    id: str
    image: np.ndarray  # BGR, as cv2 decodes it (the pixels `teach dice` reads from the same file)
    boxes: list[list[float]]  # found dice, xyxy rounded to 0.1 px: these are the labels' boxes
    values: list[int]  # what the reader read on each
    confidence: list[float]
    source: str

    def to_json(self) -> dict[str, Any]:
        h, w = self.image.shape[:2]
        return {"photo": self.id, "width": w, "height": h, "source": self.source,
                "dice": [{"box": b, "value": v, "confidence": c}
                         for b, v, c in zip(self.boxes, self.values, self.confidence, strict=True)]}


def decode_photo(data: bytes) -> np.ndarray:
    """An uploaded photo's bytes -> BGR image; TeachError (400/413) when it cannot be one."""
    import cv2

    if not data:
        raise TeachError("the upload is empty: send the photo's bytes (JPEG or PNG) as the body")
    if len(data) > MAX_UPLOAD:
        raise TeachError(f"the photo is {len(data)} bytes; at most {MAX_UPLOAD // (1024 * 1024)} MiB", 413)
    # the header's size first: a small file may claim a huge picture (decoding it would take the memory).
    # Only JPEG and PNG, whose headers are read here: OpenCV would also decode TIFF, WebP, PNM ...
    # whose claimed size nothing checks before it allocates.
    if data[:3] != b"\xff\xd8\xff" and data[:8] != PNG_MAGIC:
        raise TeachError("the upload is not a JPEG or PNG photo: send one of those")
    size = _declared_size(data)
    if size is None:
        raise TeachError("the upload is not an image the referee can read: its header gives no size (send "
                         "a whole JPEG or PNG photo)")
    if size[0] * size[1] > MAX_PIXELS:
        raise TeachError(f"the photo is {size[0]}×{size[1]} pixels; at most {MAX_PIXELS // 1_000_000} "
                         "megapixels (a 1280×720 camera frame is plenty)", 413)
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:  # a header the decoder reads otherwise than _declared_size: refused, not a 500
        image = None
    if image is None:
        raise TeachError("the upload is not an image the referee can read: send a JPEG or PNG photo")
    h, w = image.shape[:2]
    if w * h > MAX_PIXELS:
        raise TeachError(f"the photo is {w}×{h} pixels; at most {MAX_PIXELS // 1_000_000} megapixels", 413)
    if min(w, h) < 32:
        raise TeachError(f"the photo is {w}×{h} pixels: too small to show a die")
    return image


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# JPEG frame headers (SOF0..SOF15 less DHT, JPG and DAC), which hold the picture's size
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, None when the header does not say.

    A JPEG is walked as libjpeg walks it: bytes between segments that are not a marker are
    skipped (libjpeg only warns about them), so junk before the frame header cannot hide the
    size from this check and still be decoded at that size."""
    if data[:8] == PNG_MAGIC:
        if len(data) >= 24 and data[12:16] == b"IHDR":
            return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        return None
    if data[:2] != b"\xff\xd8":
        return None
    k = 2
    while k < len(data):
        if data[k] != 0xFF:  # junk between segments
            k += 1
            continue
        while k < len(data) and data[k] == 0xFF:  # fill bytes
            k += 1
        if k + 2 >= len(data):
            return None
        marker = data[k]
        if marker == 0x00:  # a stuffed 0xFF00 is no marker
            k += 1
            continue
        if marker in _SOF:
            if k + 7 >= len(data):
                return None
            return int.from_bytes(data[k + 6:k + 8], "big"), int.from_bytes(data[k + 4:k + 6], "big")
        if marker == 0xDA or marker == 0xD9:  # scan data or the end before any frame header
            return None
        if 0xD0 <= marker <= 0xD8 or marker == 0x01:  # markers without a length
            k += 1
            continue
        k += 1 + int.from_bytes(data[k + 1:k + 3], "big")
    return None


class FrameTap:
    """Keeps the latest plain frame a match's camera loop reads (the loop's pictures are annotated),
    chained in front of whatever already watches its frames (the set-up check)."""

    def __init__(self, loop: Any) -> None:
        self.after = loop.on_frame
        self.image: np.ndarray | None = None
        self.fresh = threading.Event()
        loop.on_frame = self

    def __call__(self, frame: Any) -> None:
        self.image = frame.image
        self.fresh.set()
        if self.after is not None:
            self.after(frame)

    def take(self, seconds: float) -> np.ndarray | None:
        """The next frame (waiting up to `seconds` for one), else the last one seen, else None."""
        self.fresh.clear()
        self.fresh.wait(seconds)
        image = self.image
        return None if image is None else image.copy()


def match_frame(loop: Any, seconds: float = 3.0) -> np.ndarray | None:
    """A plain frame of the camera watching a match (its loop), None when none comes in `seconds`."""
    tap = loop.on_frame if isinstance(loop.on_frame, FrameTap) else FrameTap(loop)
    return tap.take(seconds)


def profile_name(text: Any) -> str:
    """The file name a profile is saved under: lower-case letters, digits and dashes, 1-40 of them."""
    if not isinstance(text, str) or len(text) > 80:
        raise TeachError("give the profile a 'name' (1-40 letters or digits, e.g. \"Ann's dice\")")
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    name = NAME_CHARS.sub("-", ascii_).strip("-")[:40].strip("-")
    if not name:
        raise TeachError(f"{text!r} has no letter or digit to name the profile with: give a name such "
                         "as \"ann-dice\"")
    return name


def symbol_faces(symbols: Any) -> dict[int, str | bool]:
    """{"6": "emblem"} (or true for an unnamed symbol) -> {6: "emblem"}; TeachError on anything else."""
    if symbols is None:
        return {}
    if not isinstance(symbols, dict) or len(symbols) > 6:
        raise TeachError("'symbols' maps a face value to what it shows instead of pips, "
                         "e.g. {\"6\": \"emblem\"}")
    out: dict[int, str | bool] = {}
    for key, what in symbols.items():
        if key not in ("1", "2", "3", "4", "5", "6"):
            raise TeachError(f"symbols: {str(key)[:20]!r} is not a face value 1..6")
        if what is True or (isinstance(what, str) and 0 < len(what.strip()) <= 40):
            out[int(key)] = what.strip() if isinstance(what, str) else True
        elif what is not False:
            raise TeachError(f"symbols: face {key} shows {str(what)[:40]!r}; give true or a name of 1-40 "
                             "characters")
    return out


def added_dice(added: Any, photo: Photo, kept: list[list[float]],
               n: int) -> list[tuple[tuple[float, ...], int]]:
    """The dice the player boxed on photo n because the reader missed them: [{"box": [x1, y1, x2, y2],
    "value": 1..6}] -> [(box, value)], each box checked against the photo and the dice already kept
    (TeachError 400 naming the die)."""
    from vision.realdata import iou_matrix

    if added is None:
        return []
    room = MAX_DICE - len(photo.boxes)
    if not isinstance(added, list) or len(added) > room:
        raise TeachError(f"photo {n}: 'added' lists at most {max(room, 0)} dice the reader missed, each "
                         "{\"box\": [x1, y1, x2, y2], \"value\": 1..6}")
    h, w = photo.image.shape[:2]
    out: list[tuple[tuple[float, ...], int]] = []
    for k, die in enumerate(added, start=1):
        where = f"photo {n}, added die {k}"
        if not isinstance(die, dict):
            raise TeachError(f"{where}: give {{\"box\": [x1, y1, x2, y2], \"value\": 1..6}}")
        value, box = die.get("value"), die.get("box")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise TeachError(f"{where}: value {value!r:.20}; a die's value is 1..6")
        # plain numbers of a sane size (JSON allows 1e999 and 400-digit integers)
        numbers = isinstance(box, list) and len(box) == 4 and all(
            isinstance(c, int | float) and not isinstance(c, bool) and -1e6 < c < 1e6 for c in box)
        if not numbers:
            raise TeachError(f"{where}: 'box' is [x1, y1, x2, y2] in the photo's pixels")
        x1, y1, x2, y2 = (round(float(c), 1) for c in box)
        if not (0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h):
            raise TeachError(f"{where}: the box {[x1, y1, x2, y2]} is not inside the {w}×{h} photo")
        side, other = max(x2 - x1, y2 - y1), min(x2 - x1, y2 - y1)
        if other < 6 or side > min(w, h) / 2 or side > 2 * other:
            raise TeachError(f"{where}: a {x2 - x1:g}×{y2 - y1:g} px box cannot hold one die (6 px and "
                             f"up, at most {min(w, h) // 2} px, about square)")
        others = np.array(kept + [list(b) for b, _ in out], np.float64).reshape(-1, 4)
        overlap = iou_matrix(others, np.array([[x1, y1, x2, y2]], np.float64))[:, 0] > 0.3
        if overlap.any():
            what = "a die found there already" if overlap[:len(kept)].any() else "another added die"
            raise TeachError(f"{where}: the box covers {what}; box each die once")
        out.append(((x1, y1, x2, y2), value))
    return out


class Teaching:
    """The photos of the teaching in progress (in memory: a restart forgets them) and the profiles'
    folder. One photo is read and one profile taught at a time; a second request meanwhile is told to
    wait (TeachError 429), so no page can hold the server's threads on the reader."""

    def __init__(self, data_dir: Path, max_photos: int = MAX_PHOTOS) -> None:
        self.folder = Path(data_dir) / PROFILE_DIR
        self.max_photos = max_photos
        self.photos: OrderedDict[str, Photo] = OrderedDict()
        self._lock = threading.Lock()  # the photos
        self._busy = threading.Lock()  # the reader / the teaching
        self._reader: Any = None

    # -- photos ---------------------------------------------------------------------------------
    def add_photo(self, image: np.ndarray, source: str) -> Photo:
        """Read the dice on a photo and keep it; TeachError 422 (nothing kept) when none is found."""
        from vision.types import VisionError

        with self._working():
            try:
                if self._reader is None:
                    from vision.learned.reader import LearnedDiceReader

                    # the reader `teach dice` pairs labels with (at the default acceptance threshold,
                    # on the crop network's own boxes)
                    self._reader = LearnedDiceReader(mode="crops", grow=False)
                det = self._reader.read(image)
            except VisionError as exc:
                raise TeachError(f"the dice reader cannot run: {exc}", 422) from exc
        if not len(det):
            raise TeachError("no die was found on this photo, so it cannot teach anything (nothing was "
                             "kept): roll the dice into view, well lit, and take another", 422)
        order = np.lexsort((det.xyxy[:, 0], np.round(det.xyxy[:, 1] / 40)))[:MAX_DICE]  # rows, left to right
        photo = Photo(secrets.token_hex(8), image,
                      [[round(float(v), 1) for v in det.xyxy[i]] for i in order],
                      [int(det.values[i]) for i in order],
                      [round(float(det.value_confidence[i]), 3) for i in order], source)
        with self._lock:
            self.photos[photo.id] = photo
            while len(self.photos) > 1 and (len(self.photos) > 2 * self.max_photos or
                                            sum(p.image.nbytes for p in self.photos.values()) > HELD_BYTES):
                self.photos.popitem(last=False)
        return photo

    def photo(self, photo_id: Any) -> Photo:
        found = self.photos.get(photo_id) if isinstance(photo_id, str) else None
        if found is None:
            raise TeachError(f"no photo {str(photo_id)[:40]!r}: the referee keeps the "
                             f"{2 * self.max_photos} latest photos until it restarts; take it again", 404)
        return found

    # -- the profile ----------------------------------------------------------------------------
    def labelled(self, photos: Any, symbols: Any = None) -> tuple[list[Any], list[np.ndarray]]:
        """The page's corrections -> realdata items and their images, every value checked first.
        `photos`: [{"photo": id, "values": [v per found die: 1..6, 0 = not a die], "added": [{"box",
        "value"}, ...] (dice the reader missed, boxed by the player)}, ...]; `symbols`:
        {"6": "emblem", ...}, the faces that show a symbol instead of pips (each such die is labelled
        with it, as a label file would)."""
        from vision.learned.teach import check_labels
        from vision.realdata import LabelledImage, LabelledObject
        from vision.types import VisionError

        if not isinstance(photos, list) or not 1 <= len(photos) <= self.max_photos:
            raise TeachError(f"give 'photos': 1-{self.max_photos} of "
                             "{\"photo\": id, \"values\": [value of each found die, 0 = not a die]}")
        faces = symbol_faces(symbols)
        items, images, seen = [], [], set()
        for n, entry in enumerate(photos, start=1):
            if not isinstance(entry, dict):
                raise TeachError(f"photo {n}: give {{\"photo\": id, \"values\": [...]}}")
            photo = self.photo(entry.get("photo"))
            if photo.id in seen:
                raise TeachError(f"photo {n}: photo {photo.id} is given twice")
            seen.add(photo.id)
            values = entry.get("values")
            if not isinstance(values, list) or len(values) != len(photo.boxes):
                raise TeachError(f"photo {n}: give 'values', one per die found on it ({len(photo.boxes)})")
            objects = []
            for k, v in enumerate(values, start=1):
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 6:
                    raise TeachError(f"photo {n}, die {k}: value {v!r}; a die's value is 1..6 "
                                     "(0: not a die)")
                if v:
                    extra = {"symbol": faces[v]} if v in faces else {}
                    objects.append(LabelledObject("die", v, tuple(photo.boxes[k - 1]), extra=extra))  # type: ignore[arg-type]
            kept = [photo.boxes[k] for k, v in enumerate(values) if v]
            for box, v in added_dice(entry.get("added"), photo, kept, n):
                extra = {"symbol": faces[v]} if v in faces else {}
                objects.append(LabelledObject("die", v, box, extra=extra))  # type: ignore[arg-type]
            if not objects:
                raise TeachError(f"photo {n}: every die on it is marked 'not a die', so it teaches nothing: "
                                 "a teaching photo must show labelled dice (drop it, or give its values)")
            h, w = photo.image.shape[:2]
            items.append(LabelledImage(f"photo-{n}.png", w, h, objects))
            images.append(photo.image)
        try:
            check_labels(items)  # the checks `teach dice` makes of a label file
        except VisionError as exc:
            raise TeachError(str(exc)) from exc
        return items, images

    def save(self, name: Any, photos: Any, replace: bool = False, symbols: Any = None) -> tuple[Path, Any]:
        """Teach from the corrected photos and save the profile as NAME; (file, profile)."""
        from vision.learned.profile import save_profile
        from vision.learned.teach import teach_images
        from vision.types import VisionError

        safe = profile_name(name)
        items, images = self.labelled(photos, symbols)
        path = self.folder / f"{safe}.json"
        if path.exists() and not replace:
            raise TeachError(f"a dice profile named {safe!r} exists already: choose another name, or "
                             "replace it", 409)
        with self._working():
            try:
                profile = teach_images(items, images, "whole_die", safe)
            except VisionError as exc:
                raise TeachError(f"{exc}; nothing was written", 422) from exc
        try:
            save_profile(profile, path)
        except OSError as exc:
            raise TeachError(f"cannot write the profile: {exc.strerror or exc}", 507) from exc
        return path, profile

    def profile_path(self, name: Any) -> Path:
        path = self.folder / f"{profile_name(name)}.json"
        if not path.is_file():
            raise TeachError(f"no dice profile named {profile_name(name)!r} (saved ones: "
                             f"{', '.join(self.names()) or 'none yet'})", 404)
        return path

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if re.fullmatch(r"[a-z0-9-]{1,40}", p.stem))

    @contextmanager
    def _working(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise TeachError("the referee is busy with another teaching photo; try again in a moment", 429)
        try:
            yield
        finally:
            self._busy.release()
