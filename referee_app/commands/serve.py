"""`highway-referee serve`: the main job. Watches a camera (or replays the bundled recorded
matches with --demo, the default when the command is run with no arguments), referees, and serves
the page on http://127.0.0.1:8765/ (localhost only unless --host says otherwise)."""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree, positive_number

DEFAULT_PORT = 8765
# the largest body a route takes is a teaching photo (8 MiB); waitress's own default is 1 GiB, which
# it reads (spooling to a temporary file) before the app can refuse it -- even for a request whose
# Host or token is refused. Above this it answers 413 as soon as the headers say so.
MAX_REQUEST_BODY = 8 * 1024 * 1024 + 64 * 1024


def _setup(p: argparse.ArgumentParser) -> None:
    src = p.add_argument_group("what to watch (default: nothing; --demo replays the bundled matches)")
    src.add_argument("--demo", nargs="?", const="all", metavar="GAME",
                     help="replay the bundled recorded matches through the pipeline (all, or one game's)")
    src.add_argument("--camera", type=int, metavar="INDEX", help="camera index (0 = first camera)")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--frames", metavar="DIR", help="a folder of images, read in name order")
    src.add_argument("--stream", metavar="URL", help="a network stream (rtsp://, http://...)")
    p.add_argument("--game", default="highway-dice",
                   help="game watched by the camera (default highway-dice)")
    p.add_argument("--players", default="", help="comma-separated player names for a camera match")
    p.add_argument("--calibration", metavar="FILE",
                   help="camera calibration for readers that need one (Tokyo Highway: "
                        "`highway-referee tokyo calibrate PHOTO --out FILE`)")
    p.add_argument("--mat", choices=("a4", "a3", "a2"), metavar="{a4,a3,a2}",
                   help="tokyo-highway: the printed mat's paper size (`print mat --size`), which the camera "
                        "set-up check measures the camera's height against (default a3)")
    p.add_argument("--dice-profile", metavar="JSON",
                   help="read the players' own dice with this profile (`highway-referee teach dice`)")
    p.add_argument("--camera2", metavar="SPEC",
                   help="a second camera watching the same table (index, video file, folder or stream URL; "
                        "Tokyo Highway reads column heights from both views). Folders and videos pair "
                        "with the first source frame by frame, a live camera by its latest frame")
    p.add_argument("--calibration2", metavar="FILE",
                   help="the second camera's calibration (`tokyo calibrate` on the same printed mat); "
                        "without one the referee reads the first camera alone and says so")
    p.add_argument("--camera-extra", action="append", default=[], metavar="SPEC",
                   help="one more camera watching the table, written like --camera2; repeat it for each "
                        "(numbered in order after the first and any --camera2: cameras 3, 4 ... with "
                        "--camera2, else 2, 3 ...). "
                        "Tokyo Highway reads every calibrated view")
    p.add_argument("--calibration-extra", action="append", default=[], metavar="FILE",
                   help="an extra camera's calibration, repeatable: the n-th goes with the n-th "
                        "--camera-extra (an extra camera without one is left out of the reading, and "
                        "the referee says so)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--data", metavar="DIR",
                   help="data folder (match logs and index); default: the user data dir")
    p.add_argument("--threads", type=int, default=32,
                   help="server threads (each open stream holds one; streams may use all but a quarter of "
                        "them, at least 4 are kept for the API)")
    p.add_argument("--led", metavar="PORT",
                   help="serial port of an LED board (see `highway-referee led list`)")
    p.add_argument("--led-protocol", default="adalight", choices=["adalight", "native"])
    p.add_argument("--led-layout", metavar="FILE|GAME",
                   help="LED layout file or game name (default: the watched game's bundled layout)")
    p.add_argument("--speed", type=positive_number, default=1.0, help="demo playback speed factor")
    p.add_argument("--exit-when-done", action="store_true", help="stop once the demo matches are replayed")


def demo_loops(hub: Any, speed: float = 1.0, only: str = "all") -> list[Any]:
    """One match per bundled recorded match (the same match each replay), each with its referee
    loop (not started)."""
    from referee_app.demo import DemoReplays

    return DemoReplays(hub, speed, only).new_round()


def build_referee(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The hub with its loops started, as `serve` would run it (also used by tests)."""
    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter
    from referee_app.hub import Hub, check_new_match
    from referee_app.loop import RefereeLoop
    from referee_app.matchlog import MatchLogError
    from referee_app.session import SessionError
    from referee_app.setup_watch import watch_setup
    from referee_app.store import MatchStore, default_data_dir

    profile = _dice_profile(args)  # checked before anything is opened or written
    mat = _mat(args)
    _check_source_path(args)
    if args.led and args.led_layout:  # a named layout file is read now: before any match is written
        from referee_app.led import LayoutError, find_layout

        try:
            find_layout(args.led_layout)
        except LayoutError as exc:
            raise CliError(f"LED board: {exc}", 2) from exc
    # every argument, the demo's name and the camera are checked before the data folder is made or a
    # match log written (a wrong --demo name or two sources used to leave the demo's logs behind)
    if args.demo:
        games = sorted(d.game for d in bundled_demos())
        if not games:
            raise CliError("no bundled demo matches were found in this installation", 1)
        if args.demo not in ("all", *games):
            raise CliError(f"no bundled recorded match for {args.demo!r} (there are: {', '.join(games)})")
    sources = [a for a in ("camera", "video", "frames", "stream") if getattr(args, a) is not None]
    if len(sources) > 1:
        raise CliError("watch one source at a time: give only one of --camera, --video, --frames, --stream")
    extras, extra_calibrations = list(args.camera_extra or []), list(args.calibration_extra or [])
    if args.calibration and not sources:  # the demo's recordings bring their own: it was ignored
        raise CliError("--calibration is the calibration of the camera watched: give --camera, --video, "
                       "--frames or --stream")
    if (args.camera2 or args.calibration2 or extras or extra_calibrations) and not sources:
        raise CliError("--camera2, --calibration2, --camera-extra and --calibration-extra go with a first "
                       "source: --camera, --video, --frames or --stream")
    if args.calibration2 and not args.camera2:
        raise CliError("--calibration2 is the second camera's calibration: give --camera2 too")
    if extra_calibrations and not extras:
        raise CliError("--calibration-extra is an extra camera's calibration: give --camera-extra too")
    if len(extra_calibrations) > len(extras):
        raise CliError(f"{len(extra_calibrations)} --calibration-extra for {len(extras)} --camera-extra: "
                       "the n-th calibration goes with the n-th extra camera, so give at most one each")
    frames: Any = None
    if sources:
        from vision.sources import open_source

        kind = sources[0]
        spec = getattr(args, kind)
        try:
            frames = open_source(spec)
        except Exception as exc:
            raise CliError(f"cannot open {kind} {spec!r}: {exc}", 1) from exc
        _check_camera_opened(frames, kind, spec)
        # the loop's own adapter (as the demo's): its reader, calibration and dice profile are this
        # camera's, never the shared one the web routes draw boards and hints with
        shared = get_adapter(args.game)
        adapter = shared.__class__() if shared.has_reader else shared
        if args.calibration:
            if not hasattr(adapter, "use_calibration"):
                raise CliError(f"{args.game}'s reader takes no camera calibration file")
            try:
                adapter.use_calibration(args.calibration)
            except Exception as exc:
                raise CliError(f"cannot use the calibration {args.calibration!r}: {exc}", 1) from exc
        if profile is not None:
            if not hasattr(adapter, "use_dice_profile"):
                frames.close()
                raise CliError(f"{args.game}'s reader reads no pip dice, so --dice-profile does not apply")
            adapter.use_dice_profile(profile)
        if args.camera2 or extras:
            frames = _pair(frames, adapter, args)
        if not adapter.has_reader:
            raise CliError(f"{args.game} has no camera reader yet: referee it by manual entry on the page", 1)
        players = [s.strip() for s in args.players.split(",") if s.strip()] or ["Player 1", "Player 2"]
        try:
            check_new_match(args.game, players, {})
        except SessionError as exc:
            frames.close()
            raise CliError(f"--players: {exc}", 2) from None
    data_dir = Path(args.data) if args.data else default_data_dir()
    try:
        store = MatchStore(data_dir)
    except MatchLogError as exc:  # --data names a file, or a folder that cannot be made
        if frames is not None:
            frames.close()
        raise CliError(str(exc), 2) from None
    store.reindex()  # the logs are the truth: a crash may have left the index behind them
    hub = Hub(store)
    loops = []
    if args.demo:
        loops.extend(demo_loops(hub, args.speed, args.demo))
    if sources:
        session = hub.create_match(args.game, players)
        loops.append(RefereeLoop(hub, session, adapter, frames))
        watch_setup(loops[-1], args.game, mat)  # the check of the first usable frame, off the frame path
        hub.featured = session.match_id
    if args.led:
        from referee_app.led import LayoutError, attach_led_board

        featured = hub.sessions.get(hub.featured or "")
        layout = args.led_layout or (featured.game.name if featured else args.game)
        try:
            hub.led = attach_led_board(hub.bus, args.led, layout=layout, protocol=args.led_protocol,
                                       match_id=hub.featured)
        except LayoutError as exc:
            raise CliError(f"LED board: {exc}", 2) from exc
    return hub, loops


def _dice_profile(args: argparse.Namespace) -> Any:
    """The --dice-profile loaded, or None; a bad file or a profile with nothing to read is refused."""
    if not getattr(args, "dice_profile", None):
        return None
    sources = [a for a in ("camera", "video", "frames", "stream") if getattr(args, a, None) is not None]
    if not sources:
        raise CliError("--dice-profile is for the dice a camera watches: give --camera, --video, --frames "
                       "or --stream")
    from vision.learned.profile import load_profile
    from vision.types import VisionError

    try:
        profile = load_profile(args.dice_profile)
        profile.net()  # the crop model it was taught with, and the run time it needs, are here
    except VisionError as exc:
        raise CliError(f"--dice-profile: {exc}") from exc
    return profile


def _mat(args: argparse.Namespace) -> str:
    """The printed Tokyo mat's size for the set-up check: --mat, else a3 (what `print mat` prints).
    Refused, like --dice-profile, where nothing would use it: no camera, or a game with no mat."""
    from referee_app.camera_setup import MAT_GAMES, CameraError, check_mat

    mat = getattr(args, "mat", None)
    if mat is None:
        return "a3"
    try:
        check_mat(mat)
    except CameraError as exc:
        raise CliError(f"--mat: {exc}", 2) from None
    if not any(getattr(args, a, None) is not None for a in ("camera", "video", "frames", "stream")):
        raise CliError("--mat is the size of the printed mat a camera watches: give --camera, --video, "
                       "--frames or --stream", 2)
    if args.game not in MAT_GAMES:
        raise CliError(f"{args.game} has no printed mat: --mat is for {', '.join(MAT_GAMES)}", 2)
    return mat


def _check_source_path(args: argparse.Namespace) -> None:
    """A --video that is no file, or --frames that is no folder of images, is said before the data
    folder is made or a match is started: an empty folder served a match that ended at once (exit 0)."""
    from vision.sources import IMAGE_SUFFIXES

    if args.video is not None and not Path(args.video).is_file():
        what = "it is a folder: give it as --frames" if Path(args.video).is_dir() else "no such file"
        raise CliError(f"cannot open video {args.video!r}: {what}", 1)
    if args.frames is not None:
        folder = Path(args.frames)
        if not folder.is_dir():
            what = "it is a file: give a video as --video" if folder.is_file() else "no such folder"
            raise CliError(f"cannot open frames {args.frames!r}: {what}", 1)
        if not any(p.suffix.lower() in IMAGE_SUFFIXES for p in folder.iterdir()):
            kinds = ", ".join(sorted(IMAGE_SUFFIXES))
            raise CliError(f"cannot open frames {args.frames!r}: no images in it ({kinds})", 1)


def _check_camera_opened(frames: Any, kind: str, spec: Any) -> None:
    """A camera number that opens no device is a mistake to say before serving: the source would
    otherwise only retry in the background behind a page with no picture. (A stream that is down
    at start is left to retry: it may come up later.)"""
    from vision.sources import CaptureSource

    if kind == "camera" and isinstance(frames, CaptureSource) and frames.status.state == "lost":
        frames.close()
        raise CliError(f"cannot open camera {spec}: no camera answered at that number (is it "
                       "connected, and is the number right? the first camera is 0)", 1)


def _other_cameras(args: argparse.Namespace) -> list[tuple[str, str, str | None, str]]:
    """(option, spec, calibration file or None, its option) of cameras 2, 3 ... in order: --camera2
    first, then each --camera-extra with the --calibration-extra at its position."""
    out: list[tuple[str, str, str | None, str]] = []
    if args.camera2:
        out.append(("--camera2", args.camera2, args.calibration2, "--calibration2"))
    calibrations = list(args.calibration_extra or [])
    for k, spec in enumerate(args.camera_extra or []):
        out.append(("--camera-extra", spec, calibrations[k] if k < len(calibrations) else None,
                    "--calibration-extra"))
    return out


def _pair(frames: Any, adapter: Any, args: argparse.Namespace) -> Any:
    """The first source paired with the other cameras (--camera2, then each --camera-extra); their
    calibrations given to the adapter. Whatever was opened is closed again when one cannot be used."""
    from vision.sources import CaptureSource, PairedSource, open_source

    cameras = _other_cameras(args)
    opened: list[Any] = [frames]

    def fail(message: str, code: int = 1) -> CliError:
        for source in opened:
            source.close()
        return CliError(message, code)

    if not hasattr(adapter, "use_camera_calibration"):
        raise fail(f"{args.game}'s reader uses one camera: {cameras[0][0]} is for tokyo-highway", 2)
    for number, (option, spec, calibration, calibration_option) in enumerate(cameras, start=2):
        # today's wording for --camera2 ("camera2", "calibration2"); camera N for the extra ones
        name = "camera2" if option == "--camera2" else f"camera {number} ({option})"
        try:
            source = open_source(spec)
        except Exception as exc:
            raise fail(f"cannot open {name} {spec!r}: {exc}") from exc
        opened.append(source)
        if isinstance(source, CaptureSource) and isinstance(source.target, int) \
                and source.status.state == "lost":  # a wrong index, not a camera that dropped out
            raise fail(f"cannot open {name} {spec!r}: {source.status.message}")
        if calibration:
            which = ("calibration2" if option == "--camera2"
                     else f"calibration of camera {number} ({calibration_option})")
            try:
                adapter.use_camera_calibration(number, calibration)
            except Exception as exc:
                raise fail(f"cannot use the {which} {calibration!r}: {exc}") from exc
    return PairedSource(*opened)


def _quiet_opencv() -> None:
    """OpenCV's own warnings off (its errors stay): a camera number with no camera printed two lines of
    OpenCV's before the referee's clear message, and a lost camera or stream is said on the page and
    in the log in the referee's words (vision.sources' status)."""
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def web_server(app: Any, host: str, port: int, threads: int) -> Any:
    """The waitress server `serve` runs the page on (not started)."""
    from waitress.server import create_server

    return create_server(app, host=host, port=port, threads=threads, channel_timeout=30,
                         connection_limit=200, max_request_body_size=MAX_REQUEST_BODY,
                         channel_request_lookahead=1)  # lets a stream see its client leave


def _run(args: argparse.Namespace) -> int:
    from referee_app.heap import limit_heap_growth
    from referee_app.web.app import create_app

    limit_heap_growth()  # before the loops' threads start: they run for hours
    _quiet_opencv()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    hub, loops = build_referee(args)
    from referee_app.web.streams import default_cap

    # open streams are capped below the thread count, so some threads always answer the API
    app = create_app(hub, allow_remote=args.host not in ("127.0.0.1", "localhost", "::1"),
                     max_streams=default_cap(args.threads))
    try:
        server = web_server(app, args.host, args.port, args.threads)
    except OSError as exc:
        for loop in loops:
            loop.stop()
        busy = exc.errno == errno.EADDRINUSE
        hint = (f"; another program (perhaps another referee) uses port {args.port}: use --port N for "
                "another port (--port 0 picks a free one)") if busy else ""
        raise CliError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}{hint}", 1) from exc
    for loop in loops:
        loop.start()
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{host}:{server.effective_port}/"
    print(f"Highway Referee is serving {url}", flush=True)
    print(f"Open {url}?token={hub.admin_token} to referee (the token lets the page change matches).",
          flush=True)
    for loop in loops:
        print(f"  {loop.session.game.name}: match {loop.session.match_id}", flush=True)
    print("Press Ctrl+C to stop.", flush=True)

    stopping = threading.Event()

    def _done_watcher() -> None:
        from referee_app.demo import DemoReplays

        def done(_finished: list[Any]) -> None:
            print("All recorded matches have been refereed; their logs are kept.", flush=True)

        if args.exit_when_done or not args.demo:
            for loop in loops:
                loop.finished.wait()
            hub.bus.drain()
            done(loops)
            if args.exit_when_done:
                server.close()
            return
        # the main job keeps the page alive: the recordings are replayed again, each in its own
        # match (replaced, not added: the Match list and the memory stay as they are)
        DemoReplays(hub, args.speed, args.demo).run(loops, stopping, on_round=done)

    if loops:
        threading.Thread(target=_done_watcher, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: server.close())
    try:
        server.run()
    except (KeyboardInterrupt, OSError):
        pass
    finally:
        stopping.set()
        for loop in list(hub.loops.values()):  # the replays' loops too
            loop.stop()
        hub.bus.drain()
        if getattr(hub, "led", None) is not None:
            hub.led.stop()
        print("Stopped. Every judged move is in the match logs.", file=sys.stderr, flush=True)
    return 0


def register(cli: CommandTree) -> None:
    cli.add(("serve",), _setup, _run, help="referee from a camera or the bundled demo and serve the page")
