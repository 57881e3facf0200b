"""Replay's face to a notebook, from a hostile QA pass (runs/hostile-a.md, items 1, 8, 9, 10, 13):
what the deal sets aside (only what its kinds put aside, never Arneson's War's first draws into
the hands), and the arguments of war.replay_game, war.render_replay and war.render_page refused
on one line naming the argument, never a traceback or a message blaming the dataset.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pipeline as war
from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run as run_query
from pipeline.model.event_kinds import BY_NAME
from pipeline.model.rules import build_rules
from pipeline.present.replay_page import page_data

# Rule sets whose deals differ: draws into the hands (Arneson's War, with and without a card set
# aside), a card set aside (3 seats of 52 cards), won piles (Steal War), 5 seats.
RULE_SETS = [("arneson", {}), ("arneson", {"ranks": "5", "suits": "3"}), ("classic", {"players": "3"}),
             ("steal", {}), ("multiplayer", {"players": "5"})]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "d"
    generate(out, [Plan(build_rules(v, dict(o)), 2) for v, o in RULE_SETS], seed=3)
    return out


@pytest.fixture(scope="module")
def game_ids(dataset) -> list[int]:
    return [r["game_id"] for r in run_query(dataset, sql="select game_id from games order by game_id").to_pylist()]


def deal_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("Deal:") + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("  "))
    return [line.strip() for line in lines[start:end]]


# ---------------------------------------------------------------- the deal (item 1)

def test_the_deal_shows_every_card_of_the_deck_once(dataset, game_ids):
    """The deal section's seats and set-aside lines hold the deck, no more: Arneson's War's
    first draws (battle 0, from the pile into the hand) were listed as set aside too, 58 cards of 52."""
    for gid in game_ids:
        rp = war.replay_game(dataset, gid)
        lines = deal_section(war.render_text(rp))
        listed = [line.split(": ", 1)[1].split() for line in lines
                  if line.startswith(("seat ", "set aside (")) and "): " in line]
        assert sum(map(len, listed)) == rp.deck.size, (gid, lines)


def test_arneson_first_draws_are_said_as_draws(dataset, game_ids):
    """Each seat's opening draw reads as the draw it is, with its cards, and nothing of a 52-card
    Arneson deal is said to be set aside."""
    gid = game_ids[0]
    rp = war.replay_game(dataset, gid)
    assert rp.entry.rules.variant == "arneson" and rp.deck.size == 52
    lines = deal_section(war.render_text(rp))
    draws = [ev for ev in rp.deal if ev.kind == "draw"]
    assert [ev.seat for ev in draws] == [0, 1]
    for ev in draws:
        labels = " ".join(rp.deck.label(c) for c in ev.cards)
        assert f"seat {ev.seat} draws {labels} into its hand" in lines, lines
    assert not any("set aside" in line for line in lines), lines


def test_the_page_sets_aside_only_what_the_deal_sets_aside(dataset, game_ids):
    """The page's deal (battle 0) holds each card once: the seats' piles, won piles and hands,
    and as set aside only the cards of the deal's events that put them aside (the odd card of
    a 15-card Arneson deck, of 3 seats of 52 cards), never the cards drawn into the hands."""
    for gid in game_ids:
        rp = war.replay_game(dataset, gid)
        start = page_data(rp)["keyframes"][0]
        held = [c for place in ("pile", "won", "hand") for cards in start[place] for c in cards]
        aside = [c for ev in rp.deal if BY_NAME[ev.kind].sets_aside for c in ev.cards]
        assert start["aside"] == aside, gid
        assert sorted(held + start["aside"]) == list(range(rp.deck.size)), gid
    odd = [gid for gid in game_ids if war.replay_game(dataset, gid).deck.size == 15]
    assert odd and all(len(page_data(war.replay_game(dataset, gid))["keyframes"][0]["aside"]) == 1 for gid in odd)


# ---------------------------------------------------------------- game_id (items 8, 9, 10)

def test_a_numpy_game_id_replays_the_game(dataset, game_ids):
    """A game id taken from a DataFrame is a numpy.int64: its seed arithmetic overflowed."""
    gid = game_ids[-1]
    frame = run_query(dataset, sql=f"select game_id from games where game_id = {gid}").to_pandas()
    from_frame = frame.loc[0, "game_id"]
    assert isinstance(from_frame, np.integer)
    assert war.render_text(war.replay_game(dataset, from_frame)) == war.render_text(war.replay_game(dataset, gid))


@pytest.mark.parametrize("bad", [3.7, 3.0, "3", True, None, np.float64(1.0)])
def test_a_game_id_that_is_not_an_integer_is_refused_naming_it(dataset, bad):
    """Not an integer: one line naming `game_id` (3.7 was said to be missing from a data file,
    "3" and 3.0 raised TypeErrors, True replayed game 1)."""
    with pytest.raises(war.UsageError) as err:
        war.replay_game(dataset, bad)
    message = str(err.value)
    assert message.startswith("`game_id` must be an integer") and "\n" not in message, message
    assert err.value.params == ("game_id",)


# ---------------------------------------------------------------- render_replay, render_page (items 9, 13)

@pytest.mark.parametrize("fmt", ["html", "xml", None])
def test_render_replay_refuses_a_format_it_does_not_write(dataset, game_ids, fmt):
    """html and xml returned the text rendering, with no error, for a file named .html: the
    refusal lists the formats it writes and where the page is made."""
    rp = war.replay_game(dataset, game_ids[0])
    with pytest.raises(war.UsageError) as err:
        war.render_replay(rp, fmt)
    message = str(err.value)
    assert "`fmt` must be text or json" in message and "war.render_page" in message, message
    assert "\n" not in message and err.value.params == ("fmt",)


@pytest.mark.parametrize("wrong", ["a Path", "a str", "None"])
def test_render_page_refuses_what_is_not_a_replay(dataset, wrong):
    """A dataset's path in place of a replay was an AttributeError ('str' object has no attribute 'deck')."""
    value = {"a Path": dataset, "a str": str(dataset), "None": None}[wrong]
    with pytest.raises(war.UsageError) as err:
        war.render_page(value)
    message = str(err.value)
    assert message.startswith("`rp` must be a game's replay") and "war.replay_game" in message, message
    assert "\n" not in message and err.value.params == ("rp",)
