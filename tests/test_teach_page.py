"""Teach my dice through the page's HTTP routes (issue 21): photos read and corrected, the profile saved
by a sanitised name in the referee's own folder -- the same profile `teach dice` makes from the same
photos and labels --, a running camera match taking it up; and every bad request refused clearly with
nothing kept or written (no token, a photo with no dice, a value of 7, an unreadable or too-large
photo, a photo id the referee does not hold)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
import test_page_table

from referee_app.cli import main
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app
from tests.still_camera import StillCamera
from vision.realdata import greedy_match, iou_matrix

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "dice"
LABELS = json.loads((SAMPLE / "labels.json").read_text())
FIRST = sorted(LABELS["items"], key=lambda it: it["image"])[:3]


@pytest.fixture()
def web(tmp_path: Path):
    hub = Hub(MatchStore(tmp_path / "data"))
    app = create_app(hub)
    yield hub, app.test_client(), {"X-Referee-Token": hub.admin_token}
    hub.bus.close()


class SampleCamera(StillCamera):
    """Camera 1 sees the sample's first photo."""

    view = cv2.imread(str(SAMPLE / FIRST[0]["image"]))


def camera_referee(tmp_path: Path):
    """`serve --frames` of a folder of one blank picture: a highway-dice match with its camera loop
    (not started, so the picture is never read)."""
    from referee_app.commands import serve

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0001.png"), np.full((48, 64, 3), 128, np.uint8))
    p = argparse.ArgumentParser()
    serve._setup(p)
    return serve.build_referee(p.parse_args(["--frames", str(frames), "--data", str(tmp_path / "d")]))


def upload(client, token: dict, data: bytes, kind: str = "image/jpeg"):
    return client.post("/api/teach/photos", data=data, headers=token | {"Content-Type": kind})


def true_values(found: dict, item: dict) -> list[int]:
    """What a player would answer for each found die: its labelled value, 0 where no die is labelled."""
    gt = np.array([o["bbox"] for o in item["objects"]], np.float64).reshape(-1, 4)
    boxes = np.array([d["box"] for d in found["dice"]], np.float64).reshape(-1, 4)
    pairs = dict((j, i) for i, j in greedy_match(iou_matrix(gt, boxes), 0.5))
    return [int(item["objects"][pairs[j]]["value"]) if j in pairs else 0 for j in range(len(boxes))]


def profiles_dir(hub: Hub) -> Path:
    return hub.store.data_dir / "dice-profiles"


def test_the_page_saves_the_profile_teach_dice_makes_from_the_same_photos(web, tmp_path: Path, capsys):
    hub, client, token = web
    found, answers = [], []
    for item in FIRST:
        r = upload(client, token, (SAMPLE / item["image"]).read_bytes())
        assert r.status_code == 201, r.get_json()
        photo = r.get_json()
        assert photo["width"] == 1280 and photo["dice"] and photo["source"] == "upload"
        assert all(d["value"] in range(1, 7) and len(d["box"]) == 4 for d in photo["dice"])
        found.append(photo)
        answers.append(true_values(photo, item))
    # the player corrects one reading (the profile learns the player's word, right or wrong)
    answers[0][0] = answers[0][0] % 6 + 1
    # the photo comes back as the page shows it
    r = client.get(f"/api/teach/photos/{found[1]['photo']}.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    body = {"name": "Ann's Dice!", "symbols": {"6": "emblem"},  # this set's 6 carries an emblem
            "photos": [{"photo": p["photo"], "values": v} for p, v in zip(found, answers, strict=True)]}
    r = client.post("/api/teach/profiles", json=body, headers=token)
    assert r.status_code == 201, r.get_json()
    saved = r.get_json()
    assert saved["name"] == "ann-s-dice" and saved["photos"] == 3 and saved["symbols"] == {"6": "emblem"}
    path = profiles_dir(hub) / "ann-s-dice.json"
    assert Path(saved["file"]) == path.resolve() and f"--dice-profile {path.resolve()}" in saved["serve"]
    assert client.get("/api/teach/profiles").get_json() == {"profiles": ["ann-s-dice"]}

    # `teach dice` on a folder of the same photos labelled with the found boxes and the same values
    folder = tmp_path / "ann-s-dice"
    folder.mkdir()
    items = []
    for n, (photo, values, item) in enumerate(zip(found, answers, FIRST, strict=True), start=1):
        (folder / f"photo-{n}.png").write_bytes((SAMPLE / item["image"]).read_bytes())
        items.append({"image": f"photo-{n}.png", "width": photo["width"], "height": photo["height"],
                      "objects": [{"kind": "die", "value": v, "bbox": d["box"]} | ({"symbol": "emblem"} if v == 6 else {})
                                  for d, v in zip(photo["dice"], values, strict=True) if v]})
    (folder / "labels.json").write_text(json.dumps({"items": items}))
    cli = tmp_path / "cli.json"
    assert main(["teach", "dice", str(folder), "--first", "3", "--out", str(cli)]) == 0
    capsys.readouterr()
    page, made = json.loads(path.read_text()), json.loads(cli.read_text())
    assert page["taught_on"] == {"folder": "ann-s-dice", "photos": ["photo-1.png", "photo-2.png", "photo-3.png"],
                                 "box_convention": "whole_die"}
    assert page == made
    # the same name again is refused unless the player asks to replace it; nothing changes
    before = path.read_bytes()
    r = client.post("/api/teach/profiles", json=body | {"name": "ann s dice"}, headers=token)
    assert r.status_code == 409 and "exists already" in r.get_json()["error"]
    assert path.read_bytes() == before
    body["photos"] = body["photos"][:1]
    r = client.post("/api/teach/profiles", json=body | {"replace": True}, headers=token)
    assert r.status_code == 201 and json.loads(path.read_text())["taught_on"]["photos"] == ["photo-1.png"]


def blank_png(w: int = 640, h: int = 480) -> bytes:
    return cv2.imencode(".png", np.full((h, w, 3), 190, np.uint8))[1].tobytes()


def png_claiming(w: int, h: int) -> bytes:
    """A tiny file whose PNG header claims a w x h picture."""
    data = bytearray(blank_png(40, 40))
    data[16:20], data[20:24] = w.to_bytes(4, "big"), h.to_bytes(4, "big")
    return bytes(data)


@pytest.mark.parametrize("data, kind, status, message", [
    (blank_png(), "image/png", 422, "no die was found on this photo"),
    (b"\xff\xd8\xff\xe0 not really a jpeg", "image/jpeg", 400, "not an image the referee can read"),
    (b"", "image/jpeg", 400, "the upload is empty"),
    (b"\0" * (8 * 1024 * 1024 + 1), "image/jpeg", 413, "larger than 8 MiB"),
    (png_claiming(20000, 20000), "image/png", 413, "20000×20000 pixels"),
    (b'{"camera": "zero"}', "application/json", 400, "or {\"camera\": n}"),
])
def test_a_photo_that_cannot_teach_is_refused_and_not_kept(web, data: bytes, kind: str, status: int,
                                                           message: str):
    hub, client, token = web
    r = upload(client, token, data, kind)
    assert r.status_code == status and message in r.get_json()["error"], r.get_json()
    assert not client.application.config["teaching"].photos and not profiles_dir(hub).exists()


def test_a_camera_frame_is_read_and_a_missing_camera_said_so(web):
    hub, client, token = web
    client.application.config["camera_opener"] = SampleCamera
    r = client.post("/api/teach/photos", json={"camera": 1}, headers=token)
    assert r.status_code == 201 and r.get_json()["source"] == "camera 1" and r.get_json()["dice"]
    shown = client.get(f"/api/teach/photos/{r.get_json()['photo']}.jpg")
    assert cv2.imdecode(np.frombuffer(shown.data, np.uint8), cv2.IMREAD_COLOR).shape == SampleCamera.view.shape
    r = client.post("/api/teach/photos", json={"camera": 0}, headers=token)
    assert r.status_code == 404 and "upload a photo instead" in r.get_json()["error"]


def test_a_frame_of_the_camera_a_match_watches_is_taken_plain(tmp_path: Path):
    """The referee holds the match's camera: the photo is its next frame, without the annotations."""
    import threading

    from vision.types import Frame

    hub, loops = camera_referee(tmp_path)
    loop, client = loops[-1], create_app(hub).test_client()
    admin = {"X-Referee-Token": hub.admin_token}
    stop = threading.Event()

    def camera():  # the loop's frames, as its thread would take them
        k = 0
        while not stop.wait(0.05):
            loop.process(Frame(SampleCamera.view.copy(), 0.0, "camera:0", k))
            k += 1

    feeder = threading.Thread(target=camera)
    try:
        r = client.post("/api/teach/photos", json={"match": loop.session.match_id}, headers=admin)
        assert r.status_code == 404 and "has sent no frame yet" in r.get_json()["error"]  # 3 s, no frame
        feeder.start()
        r = client.post("/api/teach/photos", json={"match": loop.session.match_id}, headers=admin)
        assert r.status_code == 201, r.get_json()
        photo = r.get_json()
        assert photo["source"] == f"camera of match {loop.session.match_id}" and photo["dice"]
        kept = client.application.config["teaching"].photo(photo["photo"]).image
        assert np.array_equal(kept, SampleCamera.view)  # the plain frame
        assert loop.camera_checks[1]["state"] != "waiting"  # the set-up check still sees the frames
        r = client.post("/api/teach/photos", json={"match": "nope"}, headers=admin)
        assert r.status_code == 404 and "no camera watches match 'nope'" in r.get_json()["error"]
    finally:
        stop.set()
        if feeder.is_alive():
            feeder.join(10)
        loop.frames.close()
        hub.bus.close()


def test_bad_values_names_and_tokens_write_nothing(web):
    hub, client, token = web
    r = upload(client, token, (SAMPLE / FIRST[0]["image"]).read_bytes())
    photo = r.get_json()
    n = len(photo["dice"])
    good = [d["value"] for d in photo["dice"]]

    def save(values, name="mine", headers=token, photo_id=photo["photo"], symbols=None):
        return client.post("/api/teach/profiles", headers=headers,
                           json={"name": name, "photos": [{"photo": photo_id, "values": values}], "symbols": symbols})

    cases = [
        (save(good[:-1] + [7]), 400, f"photo 1, die {n}: value 7; a die's value is 1..6"),
        (save([0] * n), 400, "photo 1: every die on it is marked 'not a die'"),
        (save(good[:-1]), 400, f"one per die found on it ({n})"),
        (save([True] + good[1:]), 400, "value True"),
        (save(good, name="!!!"), 400, "no letter or digit"),
        (save(good, symbols={"7": True}), 400, "symbols: '7' is not a face value 1..6"),
        (save(good, symbols={"6": 6}), 400, "face 6 shows '6'; give true or a name"),
        (save(good, photo_id="0123456789abcdef"), 404, "no photo '0123456789abcdef'"),
        (save(good, headers={}), 403, "a valid token is needed"),
        (save(good, headers={"X-Referee-Token": "wrong"}), 403, "a valid token is needed"),
        (upload(client, {}, (SAMPLE / FIRST[0]["image"]).read_bytes()), 403, "a valid token is needed"),
        (client.post("/api/teach/profiles", data=b"[" * 40 + b"]" * 40, headers=token
                     | {"Content-Type": "application/json"}), 400, "nested more than"),
    ]
    for r, status, message in cases:
        assert r.status_code == status and message in r.get_json()["error"], (status, r.get_json())
    assert not profiles_dir(hub).exists()
    assert list(client.application.config["teaching"].photos) == [photo["photo"]]  # the 403 kept none
    # a name with a path in it stays in the referee's folder
    r = save(good, name="../../etc/passwd")
    assert r.status_code == 201 and [p.name for p in profiles_dir(hub).iterdir()] == ["etc-passwd.json"]


def test_a_running_camera_match_takes_up_a_saved_profile_at_its_next_frame(tmp_path: Path):
    hub, loops = camera_referee(tmp_path)
    camera_match = loops[-1].session.match_id
    typed = hub.create_match("highway-grid", ["A", "B"]).match_id
    client = create_app(hub).test_client()
    admin = {"X-Referee-Token": hub.admin_token}
    try:
        photo = upload(client, admin, (SAMPLE / FIRST[0]["image"]).read_bytes()).get_json()
        r = client.post("/api/teach/profiles", headers=admin, json={
            "name": "ann", "photos": [{"photo": photo["photo"], "values": [d["value"] for d in photo["dice"]]}]})
        assert r.status_code == 201
        adapter = loops[-1].adapter
        adapter.read(np.full((480, 640, 3), 128, np.uint8))
        old_reader = adapter._reader
        own = {"X-Referee-Token": hub.sessions[camera_match].token}
        url = f"/api/matches/{camera_match}/dice-profile"
        for body, headers, status, message in [
            ({"profile": "ann"}, {}, 403, "a valid token is needed"),
            ({"profile": "bob"}, own, 404, "no dice profile named 'bob' (saved ones: ann)"),
            ({}, own, 400, "give the profile a 'name'"),
        ]:
            r = client.post(url, json=body, headers=headers)
            assert r.status_code == status and message in r.get_json()["error"]
        assert adapter._profile is None
        r = client.post(f"/api/matches/{typed}/dice-profile", json={"profile": "ann"}, headers=admin)
        assert r.status_code == 409 and "no camera watches" in r.get_json()["error"]
        r = client.post(url, json={"profile": "ann"}, headers=own)
        assert r.status_code == 200 and "next frame" in r.get_json()["note"]
        assert adapter._profile is not None and adapter._profile.taught_on["folder"] == "ann"
        adapter.read(np.full((480, 640, 3), 128, np.uint8))  # the next frame
        assert adapter._reader is not old_reader and adapter._reader.zones.profile is adapter._profile
    finally:
        loops[-1].frames.close()
        hub.bus.close()


# -- the panel in headless Chromium ------------------------------------------------------------------
browser = test_page_table.browser  # skips without Chromium


def test_the_panel_teaches_from_a_camera_frame_and_an_upload_then_the_match_uses_it(tmp_path: Path, browser):
    from waitress_server import serving

    hub, loops = camera_referee(tmp_path)
    match = loops[-1].session.match_id
    app = create_app(hub, stream_seconds=2)
    app.config["camera_opener"] = SampleCamera
    blank = tmp_path / "empty-table.png"
    blank.write_bytes(blank_png())
    try:
        with serving(app, threads=8, drain=4) as port:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/?token={hub.admin_token}&match={match}")
            page.click("#teach-btn")
            page.wait_for_function("document.getElementById('teach-dialog').open && "
                                   "document.getElementById('teach-camera').options.length === 2", timeout=60000)
            assert page.evaluate("[...document.getElementById('teach-camera').options].map(o => o.text)") == [
                "This match's camera", "Camera 1"]
            # a photo with no dice: said on the page, nothing added
            page.set_input_files("#teach-file", str(blank))
            page.wait_for_selector("#teach-message.bad:has-text('no die was found on this photo')", timeout=60000)
            assert page.locator(".teach-photo").count() == 0 and page.is_disabled("#teach-save")
            # a frame of camera 1, then an uploaded photo: each shows its dice boxed, with a value menu each
            page.select_option("#teach-camera", "1")
            page.click("#teach-take")
            page.wait_for_selector(".teach-photo >> nth=0", timeout=60000)
            page.set_input_files("#teach-file", str(SAMPLE / FIRST[1]["image"]))
            page.wait_for_function("document.querySelectorAll('.teach-photo').length === 2", timeout=60000)
            first = page.locator(".teach-photo").nth(0)
            n = first.locator(".teach-box").count()
            assert n > 3 and first.locator(".teach-value").count() == n
            assert "camera 1" in first.inner_text() and "2 of 6 photos" in page.inner_text("#teach-count")
            page.wait_for_function("document.querySelector('.teach-picture img').naturalWidth === 1280")
            # the player corrects die 1 and marks die 2 as not a die
            read = int(first.locator(".teach-value").nth(0).input_value())
            first.locator(".teach-value").nth(0).select_option(str(read % 6 + 1))
            first.locator(".teach-value").nth(1).select_option("0")
            assert "not-die" in (first.locator(".teach-box").nth(1).get_attribute("class") or "")
            # ... and boxes a die the reader "missed" (there: die 2's place) with a click on the photo
            picture = first.locator(".teach-picture img")
            width = picture.bounding_box()["width"]
            x1, y1, x2, y2 = app.config["teaching"].photos[next(iter(app.config["teaching"].photos))].boxes[1]
            scale = width / 1280
            picture.click(position={"x": (x1 + x2) / 2 * scale, "y": (y1 + y2) / 2 * scale})
            page.wait_for_selector(".teach-photo >> nth=0 >> .teach-box.added", timeout=5000)
            picture.click(position={"x": (x1 + x2) / 2 * scale, "y": (y1 + y2) / 2 * scale})  # once only
            page.wait_for_selector("#teach-message.bad:has-text('boxed already')", timeout=5000)
            assert first.locator(".teach-box.added").count() == 1 and first.locator(".teach-added").count() == 1
            page.fill("#teach-name", "Ann's dice")
            page.check("#teach-symbols input[value='6']")  # this set's 6 shows a symbol
            page.click("#teach-save")  # its value is not chosen yet: said, nothing saved
            page.wait_for_selector("#teach-message.bad:has-text('choose the value of each die you boxed')",
                                   timeout=5000)
            assert not (hub.store.data_dir / "dice-profiles").exists()
            first.locator(".teach-added").select_option(str(read))
            page.click("#teach-save")
            page.wait_for_selector("#teach-message.ok:has-text('Saved the profile “ann-s-dice”')", timeout=60000)
            path = hub.store.data_dir / "dice-profiles" / "ann-s-dice.json"
            assert f"--dice-profile {path.resolve()}" in page.inner_text("#teach-result")
            saved = json.loads(path.read_text())
            assert saved["taught_on"]["photos"] == ["photo-1.png", "photo-2.png"]
            assert saved["symbols"] == {"6": "symbol"} and "faces with a symbol: 6" in page.inner_text("#teach-message")
            # the same name again: refused on the page, the file unchanged
            before = path.read_bytes()
            page.click("#teach-save")
            page.wait_for_selector("#teach-message.bad:has-text('exists already')", timeout=60000)
            assert path.read_bytes() == before
            # the match on show takes it up at its next frame
            page.click("#teach-use")
            page.wait_for_selector("#teach-message.ok:has-text('reads the dice with “ann-s-dice” now')",
                                   timeout=60000)
            assert loops[-1].adapter._profile.taught_on["folder"] == "ann-s-dice"
            context.close()
            # on a phone, without the token: the panel fits, says how to get the token, adds no photo
            context = browser.new_context(viewport={"width": 390, "height": 844})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/?match={match}")
            page.evaluate("localStorage.clear()")
            # the match list comes in only after the panel opened (a slow first load; it once raced
            # the click on a loaded machine): the panel must still find the match's camera
            held = []
            page.route("**/api/matches", lambda route: held.append(route))
            page.reload()
            page.click("#teach-btn")
            page.wait_for_selector("#teach-message.bad:has-text('may not teach')", timeout=60000)
            assert page.evaluate("document.getElementById('teach-dialog').scrollWidth") <= 390
            assert held and page.is_hidden("#teach-use-row")
            for route in held:
                route.continue_()
            page.unroute("**/api/matches")
            # the saved profile is listed for the match (kept in the referee's folder, as after a restart)
            page.wait_for_selector("#teach-use-row:not([hidden])", timeout=60000)
            assert page.evaluate("[...document.getElementById('teach-saved').options].map(o => o.value)") == [
                "ann-s-dice"]
            page.evaluate("document.getElementById('teach-message').className = 'result'")
            page.set_input_files("#teach-file", str(SAMPLE / FIRST[1]["image"]))  # the server says 403
            page.wait_for_selector("#teach-message.bad:has-text('may not teach')", timeout=60000)
            assert page.locator(".teach-photo").count() == 0
            assert len(app.config["teaching"].photos) == 2  # the two the referee's page took
            context.close()
    finally:
        loops[-1].frames.close()
        hub.bus.close()


class SlowCamera(SampleCamera):
    """A camera that takes a moment to open, as real ones do: a camera list holds the referee's one
    set-up request slot for a while."""

    def __init__(self, index: int) -> None:
        import time

        time.sleep(0.05)
        super().__init__(index)


def test_the_panel_lists_each_camera_once_when_refreshes_overlap(tmp_path: Path, browser):
    """Opening the panel while the page learns its match refreshes the list twice at once: the list
    must end with each camera once (it once doubled the match's camera or lost the machine's when the
    second camera-list request was refused as busy)."""
    from waitress_server import serving

    hub, loops = camera_referee(tmp_path)
    match = loops[-1].session.match_id
    app = create_app(hub, stream_seconds=2)
    app.config["camera_opener"] = SlowCamera
    try:
        with serving(app, threads=8, drain=4) as port:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/?token={hub.admin_token}&match={match}")
            page.wait_for_function("document.getElementById('match-select').value !== ''", timeout=60000)
            page.evaluate("""() => {
                document.getElementById('teach-btn').click();
                document.dispatchEvent(new Event('referee:match-shown'));
                document.dispatchEvent(new Event('referee:match-shown'));
            }""")
            page.wait_for_function("document.getElementById('teach-camera').options.length >= 2", timeout=60000)
            page.wait_for_load_state("networkidle", timeout=60000)
            page.wait_for_timeout(300)
            assert page.evaluate("[...document.getElementById('teach-camera').options].map(o => o.text)") == [
                "This match's camera", "Camera 1"]
            context.close()
    finally:
        loops[-1].frames.close()
        hub.bus.close()


def test_the_oldest_photos_are_let_go_and_a_save_naming_one_says_take_it_again(web):
    hub, client, token = web
    client.application.config["teaching"].max_photos = 1  # holds 2
    ids = [upload(client, token, (SAMPLE / it["image"]).read_bytes()).get_json()["photo"] for it in FIRST]
    assert list(client.application.config["teaching"].photos) == ids[1:]
    r = client.post("/api/teach/profiles", headers=token, json={"name": "x", "photos": [{"photo": ids[0], "values": [1]}]})
    assert r.status_code == 404 and "take it again" in r.get_json()["error"] and not profiles_dir(hub).exists()
    assert client.get(f"/api/teach/photos/{ids[0]}.jpg").status_code == 404


def test_a_die_the_reader_missed_is_boxed_by_the_player_and_taught(web, tmp_path: Path, capsys):
    """A die the found list lacks, boxed on the page ("added"), is a label like any other: the profile is
    the one `teach dice` makes with that box in the label file, and it counts the die."""
    hub, client, token = web
    item = FIRST[0]
    photo = upload(client, token, (SAMPLE / item["image"]).read_bytes()).get_json()
    values = true_values(photo, item)
    j = next(k for k, v in enumerate(values) if v)
    missed = {"box": photo["dice"][j]["box"], "value": values[j]}  # as if the reader had not found die j
    dropped = values[:j] + [0] + values[j + 1:]

    def save(name: str, **entry):
        body = {"name": name, "photos": [{"photo": photo["photo"]} | entry]}
        r = client.post("/api/teach/profiles", json=body, headers=token)
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    without = save("without", values=dropped)
    boxed = save("boxed", values=dropped, added=[missed])
    v = str(values[j])
    assert boxed["dice_per_value"][v] == without["dice_per_value"].get(v, 0) + 1
    # `teach dice` on the photo labelled with the kept found boxes and the player's box
    folder = tmp_path / "boxed"
    folder.mkdir()
    (folder / "photo-1.png").write_bytes((SAMPLE / item["image"]).read_bytes())
    objects = [{"kind": "die", "value": x, "bbox": d["box"]} for d, x in zip(photo["dice"], dropped, strict=True) if x]
    objects.append({"kind": "die", "value": missed["value"], "bbox": missed["box"]})
    (folder / "labels.json").write_text(json.dumps({"items": [
        {"image": "photo-1.png", "width": photo["width"], "height": photo["height"], "objects": objects}]}))
    cli = tmp_path / "cli.json"
    assert main(["teach", "dice", str(folder), "--first", "1", "--out", str(cli)]) == 0
    capsys.readouterr()
    assert json.loads((profiles_dir(hub) / "boxed.json").read_text()) == json.loads(cli.read_text())


def test_a_bad_box_for_a_missed_die_is_refused_and_nothing_written(web):
    hub, client, token = web
    photo = upload(client, token, (SAMPLE / FIRST[0]["image"]).read_bytes()).get_json()
    good = [d["value"] for d in photo["dice"]]
    found = photo["dice"][0]["box"]
    free = [1.0, 1.0, 31.0, 31.0]  # the photo's corner: no die found there

    def save(added):
        return client.post("/api/teach/profiles", headers=token, json={
            "name": "mine", "photos": [{"photo": photo["photo"], "values": good, "added": added}]})

    cases = [
        ([{"box": free, "value": 7}], "added die 1: value 7; a die's value is 1..6"),
        ([{"box": free, "value": 0}], "added die 1: value 0"),
        ([{"box": free, "value": True}], "added die 1: value True"),
        ([{"box": free}], "added die 1: value None"),
        ([{"box": [1, 2, 3], "value": 2}], "'box' is [x1, y1, x2, y2]"),
        ([{"box": [1, 2, "3", 4], "value": 2}], "'box' is [x1, y1, x2, y2]"),
        ([{"box": [0, 0, 1e300, 30], "value": 2}], "'box' is [x1, y1, x2, y2]"),
        ([{"box": [1250, 1, 1290, 41], "value": 2}], "is not inside the 1280×720 photo"),
        ([{"box": [31, 1, 1, 31], "value": 2}], "is not inside"),
        ([{"box": [1, 1, 4, 4], "value": 2}], "cannot hold one die"),
        ([{"box": [1, 1, 101, 31], "value": 2}], "cannot hold one die"),
        ([{"box": found, "value": 2}], "added die 1: the box covers a die found there already"),
        ([{"box": free, "value": 2}, {"box": [3, 3, 33, 33], "value": 3}], "added die 2: the box covers another added die"),
        ({"box": free, "value": 2}, "'added' lists at most"),
        ([[1, 1, 31, 31]], "added die 1: give"),
        ([{"box": free, "value": 2}] * 61, "'added' lists at most"),
    ]
    for added, message in cases:
        r = save(added)
        assert r.status_code == 400 and message in r.get_json()["error"], (added, r.get_json())
    assert not profiles_dir(hub).exists()
    # the die found there, marked "not a die", may be boxed again by the player
    r = client.post("/api/teach/profiles", headers=token, json={"name": "mine", "photos": [
        {"photo": photo["photo"], "values": [0] + good[1:], "added": [{"box": found, "value": good[0]}]}]})
    assert r.status_code == 201, r.get_json()
