"""The running referee: open match sessions, their event history (for the page's event stream),
the camera status and the latest annotated frame (for the live view).

The web app, the referee loops and the LED output all meet here; none of them knows the others.
"""

from __future__ import annotations

import collections
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from engine import EngineError
from referee_app import events
from referee_app.events import Event, EventBus
from referee_app.matchlog import MatchLogError, read_log
from referee_app.replay import ReplayError
from referee_app.session import MatchSession, SessionError

HISTORY = 5000  # events kept per match for resuming streams


def check_new_match(game: str, players: list[str], variant: dict[str, Any],
                    initial_state: dict[str, Any] | None = None) -> None:
    """Raise SessionError (400) unless the engine can start this match."""
    import engine

    try:
        found = engine.get_game(game)
    except EngineError as exc:
        raise SessionError(str(exc), 400) from None
    if not found.min_players <= len(players) <= found.max_players:
        raise SessionError(f"{found.name} takes {found.min_players}-{found.max_players} players, "
                           f"not {len(players)}", 400)
    if not isinstance(variant, dict) or not all(isinstance(k, str) and k.isidentifier() for k in variant):
        raise SessionError("'variant' must be an object of option names and values", 400)
    try:
        if initial_state is not None:
            found.state_from_json(initial_state)
        else:
            found.new_state(players=len(players), **variant)
    except (EngineError, TypeError, ValueError, KeyError) as exc:
        raise SessionError(f"cannot start {found.name}: {exc}", 400) from None


class Hub:
    def __init__(self, store: Any, bus: EventBus | None = None, admin_token: str | None = None) -> None:
        self.store = store
        self.bus = bus or EventBus()
        self.admin_token = admin_token or secrets.token_urlsafe(16)
        self.sessions: dict[str, MatchSession] = {}
        self._history: dict[str, collections.deque[Event]] = {}
        self._cond = threading.Condition()
        self._lock = threading.RLock()
        self.camera: dict[str, Any] = {"status": "none", "message": "no camera: manual entry",
                                       "since": time.time()}
        self._frames: dict[str, tuple[int, bytes]] = {}  # match id -> (frame number, JPEG)
        self.loops: dict[str, Any] = {}
        self.bus.subscribe(self._remember)
        self.bus.subscribe(self._index)
        self.featured: str | None = None  # the match the page opens by default
        self.led: Any = None  # an LED board output, when one is attached

    # -- events -----------------------------------------------------------------------------
    def _remember(self, event: Event) -> None:
        with self._cond:
            self._history.setdefault(event.match_id, collections.deque(maxlen=HISTORY)).append(event)
            self._cond.notify_all()

    def _index(self, event: Event) -> None:
        """Keep the SQLite index's row of a match current (counts, status, result)."""
        if event.kind not in (events.VERDICT, events.MATCH_END):
            return
        session = self.sessions.get(event.match_id)
        if session is None:
            return
        outcome = session.state.outcome()
        over = session.state.is_terminal() or session.ended is not None
        self.store.update(event.match_id, actions=session.writer.actions,  # as reindex counts them
                          status="finished" if over else "playing",
                          outcome=outcome.to_json() if outcome else None)

    def last_event_id(self, match_id: str) -> int:
        with self._cond:
            history = self._history.get(match_id)
            return history[-1].id if history else 0

    def events_since(self, match_id: str, last_id: int) -> list[Event]:
        with self._cond:
            return [e for e in self._history.get(match_id, ()) if e.id > last_id]

    def wait_events(self, match_id: str, last_id: int, timeout: float) -> list[Event]:
        with self._cond:
            found = self.events_since(match_id, last_id)
            if not found:
                self._cond.wait(timeout)
                found = self.events_since(match_id, last_id)
            return found

    # -- matches ----------------------------------------------------------------------------
    def create_match(self, game: str, players: list[str], variant: dict[str, Any] | None = None,
                     initial_state: dict[str, Any] | None = None, match_id: str | None = None,
                     extra: dict[str, Any] | None = None) -> MatchSession:
        """A new match, its log and index row. Everything is checked first (game, player count,
        variant, set-up position): a match the engine cannot start writes nothing."""
        check_new_match(game, players, variant or {}, initial_state)
        writer = self.store.create(game, players, variant or {}, initial_state=initial_state,
                                   match_id=match_id, extra=extra)
        session = MatchSession(writer, self.bus)
        with self._lock:
            self.sessions[session.match_id] = session
        self.bus.publish(events.MATCH_START, session.match_id, game, players=players)
        return session

    def replace_match(self, match_id: str, game: str, players: list[str],
                      variant: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
                      replaceable: str = "demo") -> MatchSession:
        """Start match `match_id` afresh: its loop, session, events and picture are dropped from
        memory and its log replaced by a new one. Only a log whose header carries `extra[replaceable]`
        (a bundled recording's replay) may be replaced: a match people played is never touched."""
        with self._lock:
            path = self.store.path(match_id)
            if path.exists():
                try:
                    header = read_log(path).header
                except MatchLogError:
                    header = None
                if header is None or not header.extra.get(replaceable):
                    raise SessionError(f"match {match_id!r} is not a {replaceable} replay: its log is kept",
                                       409)
            self.retire(match_id)
            path.unlink(missing_ok=True)
            return self.create_match(game, players, variant, match_id=match_id, extra=extra)

    def retire(self, match_id: str) -> None:
        """Forget an open match (its log stays): stop its camera loop and drop what the hub keeps of
        it, so a finished replay holds no memory. Reading it again resumes it from its log."""
        with self._lock:
            loop = self.loops.pop(match_id, None)
            session = self.sessions.pop(match_id, None)
        if loop is not None:
            loop.stop()
        if session is not None:
            session.writer.close()
        with self._cond:
            self._history.pop(match_id, None)
            self._frames.pop(match_id, None)

    def end_match(self, match_id: str, reason: str, source: str = "manual") -> MatchSession:
        """End a match before the rules end it (players stop, a wrong game was started): logged
        as an end record without an outcome; the match takes no more moves."""
        session = self.session(match_id)
        session.end(reason, source=source)
        loop = self.loops.get(match_id)
        if loop is not None:
            loop.stop()
        return session

    def session(self, match_id: str) -> MatchSession:
        """An open session, resuming it from its log if the server restarted since."""
        with self._lock:
            found = self.sessions.get(match_id)
            if found is not None:
                return found
            path = self.store.path(match_id)  # validates the id
            if not path.exists():
                raise SessionError(f"no match {match_id!r}", 404)
            contents = read_log(path)
            writer = self.store.open_writer(match_id)
            try:
                session = MatchSession.resume(contents, writer, self.bus)
            except (EngineError, ReplayError, TypeError, ValueError, KeyError, IndexError) as exc:
                writer.close()  # a damaged header (unknown game, bad set-up): nothing to resume
                raise SessionError(f"match {match_id!r} cannot be resumed from its log: {exc}", 422) from None
            self.sessions[match_id] = session
            return session

    def check_token(self, match_id: str | None, token: str | bytes | None) -> bool:
        """Compared as bytes: compare_digest refuses non-ASCII str, and a header is any bytes."""
        if not token:
            return False
        given = token if isinstance(token, bytes) else token.encode("utf-8", "surrogatepass")
        if secrets.compare_digest(given, self.admin_token.encode()):
            return True
        if match_id:
            s = self.sessions.get(match_id)
            return s is not None and secrets.compare_digest(given, s.token.encode())
        return False

    # -- camera -----------------------------------------------------------------------------
    def set_camera(self, status: str, message: str, match_id: str | None = None) -> None:
        changed = status != self.camera.get("status")
        self.camera = {"status": status, "message": message, "since": time.time()}
        if changed and match_id:
            self.bus.publish(events.CAMERA, match_id, self.sessions[match_id].game.name if match_id in
                             self.sessions else "", status=status, message=message)

    def publish_frame(self, jpeg: bytes | Callable[[], bytes | None], match_id: str = "") -> None:
        """The latest annotated frame of a match's camera loop (each match has its own view): its JPEG,
        or a function that encodes it, called only when a viewer asks for this frame (a loop nobody
        watches encodes nothing)."""
        with self._cond:
            number = self._frames.get(match_id, (0, b""))[0] + 1
            self._frames[match_id] = (number, jpeg)
            self._cond.notify_all()

    def _frame(self, match_id: str) -> tuple[int, bytes]:
        """(number, JPEG) of `match_id`'s latest frame, encoded now if it was published unencoded;
        b"" when none (or it cannot be encoded). Call with `_cond` held."""
        number, frame = self._frames.get(match_id, (0, b""))
        if callable(frame):
            frame = frame() or b""
            self._frames[match_id] = (number, frame)  # every viewer gets these same bytes
        return number, frame

    def has_frame(self, match_id: str) -> bool:
        """Whether any annotated frame was ever published for `match_id` (a stream has a view to show)."""
        with self._cond:
            return match_id in self._frames

    def frames(self, duration: float, match_id: str = "") -> Iterator[bytes]:
        """Yield each new annotated frame of `match_id` as it arrives, for at most `duration` s."""
        end = time.time() + duration
        seen = -1
        while time.time() < end:
            with self._cond:
                number, frame = self._frame(match_id)
                if number == seen or not frame:
                    self._cond.wait(min(1.0, max(0.0, end - time.time())))
                    number, frame = self._frame(match_id)
                if not frame:
                    continue
                # a still scene (or a finished recording) is re-sent once a second: some browsers
                # draw a part only when the next one starts, and it shows the viewer is alive
                seen = number
            yield frame
