"""Take the page screenshots in docs/img/ with headless Chromium: the bundled recorded matches are
refereed to their end (not in real time), served on a free localhost port, and each shot is the
page as a user opens it. Run: `python scripts/page_screenshots.py` (needs Chromium and Playwright,
the `dev` extra); `--out DIR` writes elsewhere."""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
from pathlib import Path

from waitress.server import create_server

from referee_app.demo import DemoReplays
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import create_app

SHOTS = [  # (file, game, viewport width, height)
    ("page-dice.png", "highway-dice", 1280, 860),
    ("page-grid.png", "highway-grid", 1280, 860),
    ("page-tokyo.png", "tokyo-highway", 1280, 860),
    ("page-phone.png", "highway-dice", 390, 844),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "img")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Chromium is not installed")
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        hub = Hub(MatchStore(data))
        loops = DemoReplays(hub, realtime=False).new_round()
        for loop in loops:
            loop.run()
        hub.bus.drain()
        ids = {loop.session.game.name: loop.session.match_id for loop in loops}
        server = create_server(create_app(hub, stream_seconds=5), host="127.0.0.1", port=0, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium,
                                             args=["--headless=new", "--no-sandbox"])
                for name, game, width, height in SHOTS:
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(f"http://127.0.0.1:{server.effective_port}/?token={hub.admin_token}"
                              f"&match={ids[game]}")
                    page.wait_for_selector("#board svg", timeout=30000)
                    page.wait_for_selector("#latest:not([hidden])", timeout=30000)
                    page.wait_for_function("document.getElementById('live').naturalWidth > 0",
                                           timeout=30000)  # the live view's last frame has come
                    page.wait_for_timeout(500)
                    # desktop: the whole page; phone: its first screen, where the turn and verdict are
                    page.screenshot(path=str(args.out / name), full_page=width > 600)
                    page.close()
                    print(args.out / name)
                print(teach_shot(browser, server.effective_port, hub.admin_token, ids["highway-dice"],
                                 args.out))
                browser.close()
        finally:
            server.task_dispatcher.shutdown(cancel_pending=True, timeout=8)
            server.trigger.pull_trigger(server.close)
            thread.join(timeout=5)
            hub.bus.close()


def teach_shot(browser, port: int, token: str, match: str, out: Path) -> Path:
    """The Teach my dice panel after one photo of the bundled rendered dice."""
    sample = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "dice" / "images"
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.goto(f"http://127.0.0.1:{port}/?token={token}&match={match}")
    page.click("#teach-btn")
    for k, photo in enumerate(sorted(sample.glob("*.jpg"))[:1], start=1):
        page.set_input_files("#teach-file", str(photo))
        page.wait_for_function(f"document.querySelectorAll('.teach-photo img').length === {k}", timeout=30000)
    page.fill("#teach-name", "Ann's dice")
    page.wait_for_timeout(500)
    path = out / "page-teach.png"
    page.locator("#teach-dialog").screenshot(path=str(path))
    page.close()
    return path


if __name__ == "__main__":
    main()
