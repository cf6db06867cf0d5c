"""Reading moves typed as text: a list of moves split into single moves, and players named by name.

Moves in several games hold spaces ('R 3 5', '3>W07 +5', 'p0 railway_curve B3 R--R'), so a list
cannot be split on spaces. Where the list has ';' or line breaks they separate the moves; otherwise
each move is the longest run of words, from where the previous one ended, that the game's notation
reads as one move. Words that start no move are one unreadable entry, reported with the game's
explanation, and reading goes on after them: one typo costs only itself.

Players: the engines write a seat token in some notations (Railroad Ink `p0`, Tokyo Highway `p1`).
A typed move may name the player instead (`Ann done`); printed moves show the name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.core import Action, EngineError

UNDO = "undo"
MAX_MOVE_WORDS = 40  # longer than any one move in any notation (a Tokyo build with its extras)

# seat index -> the token the game's notation uses for that player (games not listed write none)
SEAT_TOKENS: dict[str, Callable[[int], str]] = {
    "railroad-ink": lambda seat: f"p{seat}",
    "tokyo-highway": lambda seat: f"p{seat + 1}",
}

Parse = Callable[[str], Action]


@dataclass(frozen=True)
class TypedMove:
    """One entry of a typed list: a move (`action`), the word undo (`undo`), or text that could not
    be read (`error` says why)."""

    text: str
    action: Action | None = None
    undo: bool = False
    error: str = ""


class MoveReader:
    def __init__(self, game_name: str, parse: Parse, names: Sequence[str] = ()) -> None:
        self._parse = parse
        self._token = SEAT_TOKENS.get(game_name)
        # longest names first, so "Ann Lee" wins over "Ann"
        named = [(n.split(), seat) for seat, n in enumerate(names) if n.split()]
        self._names = sorted(named, key=lambda item: -len(item[0]))

    # -- players ------------------------------------------------------------------------------
    def _with_seat(self, words: list[str]) -> list[str]:
        """`words` with a leading player name replaced by the notation's seat token."""
        if self._token is None:
            return words
        lowered = [w.lower() for w in words]
        for name, seat in self._names:
            if lowered[:len(name)] == [w.lower() for w in name]:
                return [self._token(seat), *words[len(name):]]
        return words

    def display(self, notation: str, names: Sequence[str]) -> str:
        """A move's notation with its seat token written as the player's name."""
        if self._token is None:
            return notation
        first, _, rest = notation.partition(" ")
        for seat, name in enumerate(names):
            if first == self._token(seat):
                return f"{name} {rest}" if rest else name
        return notation

    # -- reading ------------------------------------------------------------------------------
    def parse(self, text: str) -> Action:
        """One move, its player possibly named by name; raises EngineError when it cannot be read.
        The notation is tried first, so a name that is also a notation word changes nothing."""
        try:
            return self._parse(text)
        except EngineError:
            words = text.split()
            seated = self._with_seat(words)
            if seated == words:
                raise
        try:
            return self._parse(" ".join(seated))
        except EngineError:
            pass
        return self._parse(text)  # raises, in the words the user typed

    def read_one(self, text: str) -> TypedMove:
        if text.strip().lower() == UNDO:
            return TypedMove(text, undo=True)
        try:
            return TypedMove(text, self.parse(text))
        except EngineError as exc:
            return TypedMove(text, error=str(exc))

    def _longest(self, words: list[str], start: int) -> tuple[int, Action] | None:
        """The end of the longest run of words from `start` that reads as one move."""
        stop = min(len(words), start + MAX_MOVE_WORDS)
        for k in range(start + 1, stop):  # never read through an undo
            if words[k].lower() == UNDO:
                stop = k
                break
        for end in range(stop, start, -1):
            try:
                return end, self.parse(" ".join(words[start:end]))
            except EngineError:
                continue
        return None

    def read_list(self, text: str) -> list[TypedMove]:
        if ";" in text or "\n" in text:
            parts = [p.strip() for p in text.replace("\n", ";").split(";")]
            return [self.read_one(p) for p in parts if p]
        words = text.split()
        out: list[TypedMove] = []
        start = 0
        while start < len(words):
            if words[start].lower() == UNDO:
                out.append(TypedMove(words[start], undo=True))
                start += 1
                continue
            found = self._longest(words, start)
            if found is not None:
                end, action = found
                out.append(TypedMove(" ".join(words[start:end]), action))
                start = end
                continue
            # unreadable: up to the next word where a move (or undo) can start
            end = start + 1
            while end < len(words) and words[end].lower() != UNDO and self._longest(words, end) is None:
                end += 1
            out.append(self.read_one(" ".join(words[start:end])))
            start = end
        return out
