"""Typed errors. Each says where things went wrong; the CLI prints it on one line.

The library speaks in its own terms: a message about an argument of a library call names it in
backticks (`workers`) and lists it in the error's `params`. A front end says those names its own
way with `spoken`: the CLI puts its flags in their place (`workers` -> --workers).
"""

from __future__ import annotations

from typing import Callable, Iterable


class WarError(Exception):
    """Base of every error a user can cause; the CLI turns it into one line and exit code 2.

    `params` are the arguments the message names, each written `name` in it."""

    exit_code = 2
    params: tuple[str, ...] = ()

    def __init__(self, *args: object, params: Iterable[str] = ()) -> None:
        super().__init__(*args)
        if params:
            self.params = tuple(params)

    def spoken(self, say: Callable[[str], str]) -> str:
        """The message with `say(name)` in place of each `name` of `params`."""
        text = str(self)
        for name in self.params:
            text = text.replace(f"`{name}`", say(name))
        return text


class RulesError(WarError):
    """An unknown variant or option, a bad option value, a rule set that cannot be dealt."""


class DealError(WarError):
    """An explicit deal that is not the rule set's deck."""


class DatasetError(WarError):
    """A missing, unfinished, or already-occupied dataset folder, or a file in it that cannot be read."""


class GameNotFound(WarError):
    """A game id that the dataset does not hold."""


class QueryError(WarError):
    """An unknown named query, a bad parameter, or SQL that DuckDB rejects."""


class ReportError(WarError):
    """A report or chart file that cannot be written where it was asked."""


class LogMismatch(WarError):
    """A game's event log disagrees with the engine: carries the game, the event and both sides."""

    def __init__(self, seq: int, expected: object, found: object, game_id: int | None = None,
                 what: str = "event") -> None:
        self.seq, self.expected, self.found, self.game_id, self.what = seq, expected, found, game_id, what
        super().__init__(self._text())

    def _text(self) -> str:
        where = f"game {self.game_id} " if self.game_id is not None else ""
        return f"{where}{self.what} seq {self.seq}: expected {self.expected}, found {self.found}"

    def at_game(self, game_id: int) -> "LogMismatch":
        self.game_id = game_id
        self.args = (self._text(),)
        return self
