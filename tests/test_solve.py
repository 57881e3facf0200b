"""war solve: the chain is the table engine's game with its shuffles made chance (docs/solve.md).

Checked three ways: positions ranked one to one, small decks solved by hand, and the real engine's
seeded games from a few deals, whose win rate and mean battles must fall within sampling error of
the solved values."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import pipeline as war
from pipeline.model.all_deals import enumerated_deal
from pipeline.solve import chain as ch
from pipeline.solve.solver import Chain, build_chain, solve


def rules(ranks, suits, **options):
    return war.build_rules("classic", {"ranks": ranks, "suits": suits, "war_down": 0, **options})


def test_ranking_is_a_bijection():
    """Every index of a deck with ties unranks to a sequence that ranks back to it, and the
    sequences are all distinct: the arrays need no table of positions."""
    counts = np.array([2, 1, 3], np.int64)
    m = ch.multinomial(counts)
    assert m == math.factorial(6) // (2 * 1 * 6)
    seen = set()
    seq = np.empty(6, np.int8)
    for i in range(m):
        ch.seq_unrank(i, counts, m, seq)
        assert ch.seq_rank(seq, counts, m) == i
        seen.add(tuple(seq.tolist()))
    assert len(seen) == m and all(sorted(s) == [0, 0, 1, 2, 2, 2] for s in seen)
    chain = build_chain(rules(3, 2, war_down=1))
    for row in range(0, chain.rows, 7):
        assert chain.index_of(*chain.position(row)) == int(chain.ids[row])
        a, b = chain.position(row)
        assert chain.locate(chain.index_of(b, a)) == (row, a != b)  # the twin: the same row, flipped


@pytest.mark.parametrize("options", [dict(), dict(aces="low"), dict(jokers=2, ranks=2)])
def test_deals_start_where_the_engine_deals(options):
    """Deal i's row holds the piles model.all_deals deals for it, as the engine ranks them
    (under aces=low the Ace below the 2; Jokers above all)."""
    from pipeline.engines.table.reference import ranks_of

    r = rules(**{"ranks": 3, "suits": 2, **options})
    chain = build_chain(r)
    rank = ranks_of(r)
    for i in range(0, len(chain.deal_rows), 5):
        piles = enumerated_deal(r, i).piles
        dealt = chain.position(int(chain.deal_rows[i]), bool(chain.deal_flips[i]))
        assert dealt == tuple(tuple(rank[c] for c in p) for p in piles)


def test_one_suit_lasts_n_over_2_squared():
    """One suit of n ranks (no ties): (n/2)^2 battles expected (the published result), even
    chances, exactly."""
    for n in (4, 6):
        s = solve(rules(n, 1), exact=True)
        deck = s.deck()
        assert deck["exact_battles"] == Fraction(n * n, 4)
        assert deck["exact_p_win0"] == deck["exact_p_win1"] == Fraction(1, 2)
        assert abs(deck["battles"] - n * n / 4) <= deck["battles_bound"]


def test_two_by_two_by_hand():
    """2 suits of 2 ranks, open wars, solved on paper: deals 0011 and 1100 draw in one battle,
    0101 and 1010 are won in two, and 0110, 1001 reach the position X (two random piles of one
    of each) from which every path draws: from X half the battles draw at once and half take two
    back to X, so E = 2 + 3 battles and 4 + 8 cards. The deck: 1/6, 1/6, 2/3, 16/6 battles,
    40/6 cards."""
    s = solve(rules(2, 2), exact=True)
    deck = s.deck()
    assert (deck["exact_p_win0"], deck["exact_p_win1"]) == (Fraction(1, 6), Fraction(1, 6))
    assert deck["exact_battles"] == Fraction(8, 3) and deck["exact_laid"] == Fraction(20, 3)
    x, _ = s.chain.locate(s.chain.index_of((0, 1), (1, 0)))  # deal 0110 dealt alternately
    assert s.exact["battles"][x] == 5 and s.exact["laid"][x] == 12
    assert s.exact["p_win0"][x] == s.exact["p_win1"][x] == 0
    assert abs(s.p_draw[x] - 1) <= s.bound


@pytest.mark.parametrize("options", [dict(war_down=0), dict(war_down=1), dict(war_down=2, shortfall="lose"),
                                     dict(war_down=1, war_tiebreak="single_up")])
def test_fractions_and_floats_agree(options):
    """Where both run, the floats are the fractions within the stated bound, and swapping the
    seats swaps the chances."""
    s = solve(rules(3, 2, **options), exact=True)
    for name in ("p_win0", "p_win1", "battles", "laid"):
        exact = np.array([float(v) for v in s.exact[name]])
        bound = s.bound if name.startswith("p_") else getattr(s, f"{name}_bound")
        assert np.all(np.abs(getattr(s, name) - exact) <= bound + 1e-15)
    whole = solve(rules(3, 2, **options), exact=False, chain=build_chain(rules(3, 2, **options), halve=False))
    for row in range(0, whole.chain.rows, 11):
        a, b = whole.chain.position(row)
        swapped = whole.chain.row_of(whole.chain.index_of(b, a))
        assert abs(whole.p_win0[row] - whole.p_win1[swapped]) <= 2 * whole.bound


def test_a_class_without_an_end_is_said():
    """A chain with a closed class (rows 1 and 2 lead only to each other) says those rows never
    end, and a row that may fall into it has infinite expectations and its true chances."""
    r = rules(2, 1)
    chain = Chain(r, np.array([1, 1], np.int64), 2, 2, np.arange(4, dtype=np.int64),
                  kind=np.array([ch.WIN0, ch.GOES_ON, ch.GOES_ON, ch.GOES_ON], np.int8),
                  laid=np.array([2, 2, 2, 2], np.int16), start=np.array([0, 0, 1, 2, 4], np.int64),
                  succ=2 * np.array([2, 1, 0, 1], np.int32), deal_rows=np.array([3], np.int64))
    s = solve(r, exact=True, chain=chain)
    assert s.never_ends.tolist() == [False, True, True, False]
    assert s.may_not_end.tolist() == [False, True, True, True]
    assert s.exact["p_win0"][3] == Fraction(1, 2) and s.exact["battles"][3] is None
    assert math.isinf(s.battles[3]) and abs(s.p_win0[3] - 0.5) < 1e-12


def test_refused_rules_say_why():
    for options in (dict(pickup="table_order"), dict(ranks=3, suits=1)):
        with pytest.raises(war.RulesError, match="war solve plays"):
            build_chain(war.build_rules("classic", {"ranks": 4, "suits": 2, **options}))


@pytest.mark.parametrize("options", [dict(war_down=0), dict(war_down=1)])
def test_the_engine_plays_the_solved_game(options):
    """The real engine's seeded games from three deals: their win rate and mean battles are
    within 4.5 standard errors of the solved values (a loose check; fixed seeds, so it is the
    same every run)."""
    r = rules(3, 2, **options)
    s = solve(r, exact=False)
    games = 3000
    for deal_index in (0, 17, 61):
        row, flip = s.chain.deal_rows[deal_index:deal_index + 1], s.chain.deal_flips[deal_index:deal_index + 1]
        deal = enumerated_deal(r, deal_index)
        wins = battles = 0
        squares = 0
        for seed in range(games):
            _, summary, _ = war.play_game(r, seed, deal=deal)
            wins += summary.outcome == "win" and summary.winner == 0
            battles += summary.battles
            squares += summary.battles ** 2
        p = float(s.at("p_win0", row, flip)[0])
        assert abs(wins / games - p) <= 4.5 * math.sqrt(max(p * (1 - p), 1e-9) / games) + 1e-9
        mean = battles / games
        sd = math.sqrt(max(squares / games - mean * mean, 0.0))
        assert abs(mean - float(s.at("battles", row, flip)[0])) <= 4.5 * sd / math.sqrt(games) + 1e-9


def test_the_dataset_answers_its_named_queries(tmp_path):
    """--out writes every deal's values; the named queries answer what the solution says, the
    fractions in full; the same solution gives the same bytes; a folder that holds something is
    not written over without --overwrite."""
    from pipeline.solve.dataset import read_manifest, solution_query, write_solution

    s = solve(rules(3, 2), exact=True)
    out = tmp_path / "solved"
    write_solution(out, s, positions=True)
    deck = solution_query(out, "deck").to_pylist()[0]
    assert deck["deals"] == 90 and abs(deck["p_win0"] - s.deck()["p_win0"]) < 1e-15
    for d in range(90):
        row = solution_query(out, "deal", deal=d).to_pylist()[0]
        r, flip = s.chain.deal_rows[d:d + 1], s.chain.deal_flips[d:d + 1]
        assert Fraction(row["exact_p_win0"]) == s.exact_at("p_win0", r, flip)[0]
        assert s.chain.locate(row["position"]) == (int(r[0]), bool(flip[0]))
    import pyarrow.parquet as pq

    every = pq.read_table(out / "positions.parquet")
    whole = build_chain(rules(3, 2), halve=False)  # every position reached, each once
    assert every.column("position").to_pylist() == whole.ids.tolist()
    tops = solution_query(out, "by_top_cards").to_pylist()
    assert sum(t["deals"] for t in tops) == 90 and [t["top_cards"] for t in tops] == [0, 1, 2]
    dist = solution_query(out, "distribution").to_pylist()
    assert abs(sum(d["p"] for d in dist) - 1) <= s.bound and dist[-1]["cdf"] == pytest.approx(1, abs=s.bound)
    first = read_manifest(out)["files"]
    write_solution(out, s, positions=True, overwrite=True)
    assert read_manifest(out)["files"] == first
    with pytest.raises(war.DatasetError, match="not empty"):
        write_solution(out, s)
    with pytest.raises(war.QueryError, match="no query"):
        solution_query(out, "odds")


def test_the_command_prints_and_refuses_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, ["solve", "--set", "ranks=4", "--set", "suits=1", "--set", "war_down=0",
                                      "--out", str(tmp_path / "s")], catch_exceptions=False)
    assert result.exit_code == 0 and "exact 4" in result.output and "exact 1/2" in result.output
    result = CliRunner().invoke(app, ["solve", "--from", str(tmp_path / "s"), "--query", "deal", "--deal", "0"])
    assert result.exit_code == 0 and result.output.splitlines()[0].startswith("deal\tposition")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "solve", "--set", "pickup=sorted", "--set", "ranks=2",
                           "--set", "suits=2"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "pickup=sorted" in done.stderr
