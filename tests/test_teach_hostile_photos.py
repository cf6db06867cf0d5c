"""Teaching photos a hostile or careless upload sends: formats other than JPEG and PNG (whose
claimed size nothing checks before OpenCV allocates it) and a JPEG whose frame header hides behind
junk bytes libjpeg skips. Each is a 4xx, never a 500 and never a decode at the claimed size
(audit23)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.dice_teaching import TeachError, _declared_size, decode_photo
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app


def jpeg(w: int = 64, h: int = 48) -> bytes:
    return cv2.imencode(".jpg", np.full((h, w, 3), 128, np.uint8))[1].tobytes()


def jpeg_claiming(w: int, h: int, junk: bytes = b"") -> bytes:
    """A small JPEG whose frame header claims w x h, with `junk` just before that header."""
    data = bytearray(jpeg())
    k = data.index(b"\xff\xc0")
    data[k + 5:k + 7], data[k + 7:k + 9] = h.to_bytes(2, "big"), w.to_bytes(2, "big")
    return bytes(data[:k]) + junk + bytes(data[k:])


@pytest.mark.parametrize("junk", [b"", b"\x00", b"junk", b"\xff\x00\x12"])
def test_the_size_check_sees_a_frame_header_behind_junk_bytes(junk):
    assert _declared_size(jpeg_claiming(65500, 65500, junk)) == (65500, 65500)
    with pytest.raises(TeachError) as err:
        decode_photo(jpeg_claiming(65500, 65500, junk))
    assert err.value.status == 413  # main: with junk, cv2.error escaped (a 500)


def test_the_size_read_from_the_header_is_the_decoded_size():
    for w, h in ((64, 48), (33, 700), (1280, 720)):
        data = jpeg(w, h)
        assert _declared_size(data) == (w, h)
        assert decode_photo(data).shape[:2] == (h, w)


@pytest.mark.parametrize("data", [
    b"P6\n60000 60000\n255\n" + b"\0" * 1000,  # PNM: main asked OpenCV to allocate it (500)
    b"PF\n30000 30000\n-1.0\n" + b"\0" * 1000,
    b"BM" + b"\0" * 200,
    b"II*\0" + b"\0" * 200,  # TIFF
    b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 200,
])
def test_formats_other_than_jpeg_and_png_are_refused_before_decoding(data, tmp_path):
    hub = Hub(MatchStore(tmp_path / "data"))
    client = create_app(hub).test_client()
    r = client.post("/api/teach/photos", data=data, headers={"X-Referee-Token": hub.admin_token,
                                                             "Content-Type": "image/png"})
    assert r.status_code == 400, r.get_json()
    assert "JPEG or PNG" in r.get_json()["error"]
    assert not client.application.config["teaching"].photos
    hub.bus.close()
