"""One refereed match in progress: the engine state, its durable log and its events.

Camera-read and hand-typed actions take the same path (`submit`), with the source recorded.
Every submission is judged, logged (fsync'ed) and only then published, so an event that a page
or LED board shows is always already in the log. A lock serialises submissions, so two browsers
correcting at once each get a clear answer instead of interleaving.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from typing import Any

import engine
from engine import Action, EngineError, GameState, Verdict
from referee_app import events
from referee_app.events import EventBus
from referee_app.matchlog import MatchLogContents, MatchLogWriter
from referee_app.typed_moves import MoveReader


class SessionError(Exception):
    """A request the match cannot take (bad notation, nothing to correct...). `status` is the HTTP
    status the web app answers with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Played:
    seq: int
    action: Action
    verdict: Verdict
    source: str
    confidence: float
    player: int


class MatchSession:
    def __init__(self, writer: MatchLogWriter, bus: EventBus, token: str | None = None) -> None:
        header = writer.header
        self.game = engine.get_game(header.game)
        self.writer = writer
        self.bus = bus
        self.match_id = header.match_id
        self.players = list(header.players)
        self.token = token or secrets.token_urlsafe(16)
        self._lock = threading.RLock()
        if header.initial_state is not None:
            start = self.game.state_from_json(header.initial_state)
        else:
            start = self.game.new_state(players=len(self.players), **header.variant)
        self.states: list[GameState] = [start]  # states[k] = after the k-th action in force
        self.played: list[Played] = []  # actions in force, in order
        self.events_logged = 0
        self.ended: str | None = None  # why the match was ended before the rules ended it

    # -- reading ---------------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self.states[-1]

    def summary(self) -> dict[str, Any]:
        with self._lock:
            state = self.state
            outcome = state.outcome()
            player = state.current_player()
            if state.is_chance_node() and isinstance(getattr(state, "turn", None), int):
                player = state.turn  # a roll is awaited: from the player whose turn it is
            return {
                "match_id": self.match_id,
                "game": self.game.name,
                "title": self.game.title,
                "players": self.players,
                "to_move": player,
                "to_move_name": self.players[player] if 0 <= player < len(self.players) else None,
                "chance": state.is_chance_node(),
                "terminal": state.is_terminal(),
                "ended": self.ended,
                "outcome": outcome.to_json() if outcome else None,
                "state": state.to_json(),
                "history": [
                    {"seq": p.seq, "notation": p.action.notation(), "verdict": p.verdict.to_json(),
                     "source": p.source, "confidence": p.confidence, "player": p.player}
                    for p in self.played
                ],
            }

    # -- changing ----------------------------------------------------------------------------
    def parse(self, notation: str) -> Action:
        """A typed move in the game's notation; a player may be named by name ("Ann done")."""
        try:
            return MoveReader(self.game.name, self.game.parse_action, self.players).parse(notation)
        except EngineError as exc:
            raise SessionError(str(exc)) from exc
        except (ValueError, OverflowError) as exc:  # a number in the text no parser check caught
            raise SessionError(f"cannot read {notation[:80]!r}: {exc}") from exc

    def submit(self, action: Action, source: str = "manual", confidence: float = 1.0,
               frame: str | int | None = None, corrects: int | None = None,
               cells: list[str] | None = None, margin: float | None = None) -> Played:
        with self._lock:
            self._check_open()
            state = self.state
            player = state.current_player()
            try:
                verdict = state.judge(action)
                new_state = state.apply(action, verdict)
            except EngineError as exc:
                raise SessionError(str(exc)) from exc
            extra = {"margin": round(float(margin), 3)} if margin is not None and margin < 1e9 else {}
            seq = self.writer.action(action.to_json(), action.notation(), verdict.to_json(), source,
                                     confidence, frame=frame, corrects=corrects, player=player, **extra)
            played = Played(seq, action, verdict, source, confidence, player)
            self.played.append(played)
            self.states.append(new_state)
            self.bus.publish(events.VERDICT, self.match_id, self.game.name, seq=seq, player=player,
                             action=action.to_json(), notation=action.notation(),
                             verdict=verdict.to_json(), source=source, confidence=confidence,
                             cells=cells or [])
            self._publish_turn(state)
            return played

    def submit_notation(self, notation: str, source: str = "manual", **kw: Any) -> Played:
        return self.submit(self.parse(notation), source=source, **kw)

    def correct(self, target: int | None = None, replacement: str | None = None,
                source: str = "manual", reason: str = "") -> dict[str, Any]:
        """Withdraw the latest action in force (its seq may be given to make sure the right one is
        withdrawn) and optionally play a replacement in its place."""
        with self._lock:
            self._check_open()
            if not self.played:
                raise SessionError("there is no action to correct", 409)
            latest = self.played[-1]
            if target is not None and target != latest.seq:
                raise SessionError(
                    f"only the latest action (seq {latest.seq}, {latest.action.notation()}) can be "
                    f"corrected, not seq {target}; it may have been corrected by someone else", 409)
            replacement_action = self.parse(replacement) if replacement else None
            seq = self.writer.correction(latest.seq, source=source, reason=reason)
            self.played.pop()
            self.states.pop()
            self.bus.publish(events.VERDICT, self.match_id, self.game.name, seq=seq, correction=True,
                             target=latest.seq, notation=latest.action.notation(),
                             verdict={"legal": True, "rule": "referee.correction",
                                      "reason": f"withdrawn: {latest.action.notation()}"
                                                + (f" ({reason})" if reason else ""),
                                      "consequence": "none"},
                             source=source, cells=[])
            out: dict[str, Any] = {"withdrawn": latest.seq, "correction_seq": seq}
            if replacement_action is not None:
                played = self.submit(replacement_action, source=source, corrects=latest.seq)
                out["replacement"] = {"seq": played.seq, "verdict": played.verdict.to_json()}
            else:
                self._publish_turn(None)
            return out

    def end(self, reason: str, source: str = "manual") -> int:
        """End the match now (the players stop): an end record without an outcome, then no more
        moves or corrections. A match the rules have already ended cannot be ended again."""
        with self._lock:
            self._check_open()
            if self.state.is_terminal():
                raise SessionError("the match is already over by the rules", 409)
            reason = reason or "ended by the players"
            seq = self.writer.end(None, reason=reason, source=source)
            self.ended = reason
            self.bus.publish(events.MATCH_END, self.match_id, self.game.name, seq=seq, outcome=None,
                             ended=reason, source=source)
            return seq

    def _check_open(self) -> None:
        if self.ended is not None:
            raise SessionError(f"the match was ended ({self.ended}): it takes no more moves; "
                               "start a new match", 409)

    def note(self, kind: str, message: str, **data: Any) -> int:
        """Log and publish a non-action event (table mismatch, camera lost, confirmation needed)."""
        with self._lock:
            seq = self.writer.event(kind, message, **data)
            self.bus.publish(kind, self.match_id, self.game.name, seq=seq, message=message, **data)
            return seq

    def _publish_turn(self, before: GameState | None) -> None:
        state = self.state
        if state.is_terminal():
            if before is None or not before.is_terminal():
                outcome = state.outcome()
                self.writer.end(outcome.to_json() if outcome else None)
                self.bus.publish(events.MATCH_END, self.match_id, self.game.name,
                                 outcome=outcome.to_json() if outcome else None)
            return
        player = state.current_player()
        if state.is_chance_node() and isinstance(getattr(state, "turn", None), int):
            player = state.turn  # the roll is this player's
        self.bus.publish(events.TURN, self.match_id, self.game.name, player=player,
                         players=self.players, chance=state.is_chance_node())

    # -- resuming ---------------------------------------------------------------------------
    @classmethod
    def resume(cls, contents: MatchLogContents, writer: MatchLogWriter, bus: EventBus,
               token: str | None = None) -> MatchSession:
        """Rebuild a session from its log (after a restart or crash) and continue it: the actions
        still in force, as the log's replay re-judges them."""
        from referee_app.replay import replay

        session = cls(writer, bus, token)
        report = replay(contents)
        records = {r["seq"]: r for r in contents.records if r["type"] == "action"}
        session.states = [before for _check, before in report.in_force] + [report.final_state]
        for check, _before in report.in_force:
            rec = records[check.seq]
            session.played.append(Played(check.seq, session.game.action_from_json(rec["action"]),
                                         Verdict.from_json(check.engine or {}), rec["source"],
                                         float(rec.get("confidence", 1.0)), check.player))
        ends = [r for r in contents.records if r["type"] == "end"]
        if ends and not session.state.is_terminal():  # ended by the players, not by the rules
            session.ended = str(ends[-1].get("reason") or "ended by the players")
        return session
