"""`war serve`'s games list against datasette (issue 51 item 6), started as a user starts it and
held to what `war query` gives for the same question:

- `facet=COLUMN` on any column of the games view: each value's games under every filter but the
  column's own, the FACET_SIZE values of most games when there are more, and it says so;
- `COLUMN=VALUE` on any column, repeated as OR within a column and AND across columns; ranges
  `COLUMN__gte=`, `__lte=`, `__gt=`, `__lt=` (`min_battles`, `max_battles` the older spelling);
- an unknown column or a bad value: 400, one line naming it; values bound, never spliced;
- `/games.json`: an object with total, page, per_page, next, columns and rows, in the `col=`
  order, whose next links walk every page exactly once;
- the SQL page keeps DuckDB's hints (candidate bindings, the caret line), escaped.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

import pytest

from pipeline.jobs.generate import Plan, generate
from pipeline.jobs.query import run
from pipeline.model.rules import build_rules
from pipeline.present.games_sql import FACET_SIZE
from servekit import get, raw_get, war_serve

PAIR = ("steal:always", "steal:never")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("facets") / "ds"
    generate(out, [Plan(build_rules("classic"), 120),
                   Plan(build_rules("steal"), 40, policies=PAIR),
                   Plan(build_rules("steal"), 40, policies=PAIR[::-1])], seed=11)
    return out


@pytest.fixture(scope="module")
def server(root):
    with war_serve(root, "-q") as (url, _):
        yield url


def sql(root, text: str, params=None) -> list[dict]:
    return run(root, sql=text, params=params).to_pylist()


def facet_counts(body: bytes, facet: str) -> dict[str, int]:
    """A facet's values and counts as the page links them."""
    found = re.findall(rf'data-facet="{facet}" data-value="([^"]*)" data-count="(\d+)"', body.decode())
    return {html.unescape(v): int(n) for v, n in found}


def total(body: bytes) -> int:
    return int(re.search(rb'id="count" data-total="(\d+)"', body).group(1))


def listed(server: str, query: str) -> dict:
    status, body = get(f"{server}games.json?{query}")
    assert status == 200, body[:300]
    return json.loads(body)


# ---------------------------------------------------------------- facets


def test_a_facet_on_any_column_counts_its_values_under_the_other_filters(server, root):
    status, body = get(f"{server}games?facet=max_war_depth&facet=first_battle_war&variant=classic&max_war_depth=2")
    assert status == 200
    # counted under every filter but its own: variant=classic, not max_war_depth=2
    want = {str(r["d"]): r["n"] for r in sql(root, "SELECT max_war_depth AS d, count(*) AS n FROM games "
                                                   "WHERE variant = 'classic' GROUP BY d")}
    assert facet_counts(body, "max_war_depth") == want and len(want) > 1
    want = {str(r["w"]).lower(): r["n"] for r in sql(root, "SELECT first_battle_war AS w, count(*) AS n FROM games "
                                                          "WHERE variant = 'classic' AND max_war_depth = 2 GROUP BY w")}
    assert facet_counts(body, "first_battle_war") == want
    assert total(body) == sum(want.values())
    # the default facets are still there, and a facet asked for is a link to click
    assert set(facet_counts(body, "outcome")) <= {"win", "draw", "capped", "cycle"}
    status, body = get(f"{server}games?facet=wars&variant=classic")
    value, count = next(iter(facet_counts(body, "wars").items()))
    href = html.unescape(re.search(rf'href="([^"]+)" data-facet="wars" data-value="{value}"', body.decode()).group(1))
    assert dict(parse_qsl(urlsplit(href).query)) == {"facet": "wars", "variant": "classic", "wars": value}
    assert total(get(server + href.lstrip("/"))[1]) == count


def test_a_facet_of_many_values_shows_those_of_most_games_and_says_so(server, root):
    status, body = get(f"{server}games?facet=battles")
    counts = facet_counts(body, "battles")
    every = sql(root, "SELECT battles, count(*) AS n FROM games GROUP BY battles ORDER BY n DESC, battles")
    assert len(every) > FACET_SIZE
    assert counts == {str(r["battles"]): r["n"] for r in every[:FACET_SIZE]}
    assert re.search(rf'data-values="{len(every)}">the {FACET_SIZE} of most games of {len(every)} values<'.encode(), body)


def test_a_list_column_facets_and_filters_by_what_its_lists_hold(server, root):
    status, body = get(f"{server}games?facet=policies")
    want = {r["p"]: r["n"] for r in sql(root, "SELECT p, count(*) AS n FROM (SELECT unnest(list_distinct(policies)) "
                                              "AS p FROM games) GROUP BY p")}
    assert facet_counts(body, "policies") == want and sorted(want.values()) == [80, 80]
    policy = min(want)
    assert listed(server, urlencode({"policies": policy, "per_page": 1}))["total"] == 80


# ---------------------------------------------------------------- filters


def test_repeated_values_are_any_of_them_and_columns_all_hold(server, root):
    got = listed(server, "outcome=win&outcome=draw&variant=steal&winner=1&winner=0&sort=game_id&order=asc")
    want = sql(root, "SELECT game_id FROM games WHERE outcome IN ('win', 'draw') AND variant = 'steal' "
                     "AND winner IN (0, 1) ORDER BY game_id")
    assert got["total"] == len(want) > 0
    assert [r["game_id"] for r in got["rows"]] == [r["game_id"] for r in want]
    # the last value alone would give fewer games: repeated is OR, not the last kept
    assert listed(server, "outcome=win&outcome=cycle")["total"] == \
        sql(root, "SELECT count(*) AS n FROM games WHERE outcome IN ('win', 'cycle')")[0]["n"] > \
        listed(server, "outcome=cycle")["total"]
    status, body = get(f"{server}games?outcome=win&outcome=draw&variant=steal")
    assert total(body) == sql(root, "SELECT count(*) AS n FROM games WHERE outcome IN ('win', 'draw') "
                                    "AND variant = 'steal'")[0]["n"]
    # both chosen values are marked in their facet, and each chip clears one
    assert body.count(b'<li class="selected"><a href="/games?') >= 3
    assert b'data-filter="outcome" data-value="draw"' in body


def test_ranges_on_any_column(server, root):
    got = listed(server, "wars__gte=3&wars__lt=10&battles__gt=50&battles__lte=400&sort=game_id&order=asc")
    want = sql(root, "SELECT game_id FROM games WHERE wars >= 3 AND wars < 10 AND battles > 50 AND battles <= 400 "
                     "ORDER BY game_id")
    assert got["total"] == len(want) > 0 and [r["game_id"] for r in got["rows"]] == [r["game_id"] for r in want]
    assert listed(server, "min_battles=100&max_battles=200")["total"] == \
        listed(server, "battles__gte=100&battles__lte=200")["total"] == \
        sql(root, "SELECT count(*) AS n FROM games WHERE battles BETWEEN 100 AND 200")[0]["n"]
    assert listed(server, "variant__gte=d")["total"] == sql(root, "SELECT count(*) AS n FROM games "
                                                                  "WHERE variant >= 'd'")[0]["n"]


def test_the_add_filter_form_goes_to_the_lists_own_address(server):
    status, body = raw_get(server, "/games?variant=classic&_filter_column=wars&_filter_op=gte&_filter_value=3")
    assert status == 303
    status, head = _head(server, "/games?variant=classic&_filter_column=wars&_filter_op=gte&_filter_value=3")
    assert "location: /games?variant=classic&wars__gte=3" in head


def _head(url: str, path: str) -> tuple[int, str]:
    import socket

    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head = data.partition(b"\r\n\r\n")[0].decode("latin-1").lower()
    return int(head.split()[1]), head


BAD = [
    ("nope=1", "nope"), ("nope__gte=1", "nope"), ("facet=nope", "nope"), ("wars=many", "wars"),
    ("wars__gte=1.5", "wars__gte"), ("wars__near=3", "wars__near"), ("policies__gt=a", "policies"),
    ("first_battle_war=maybe", "first_battle_war"), ("outcome=lost", "outcome"), ("col=nope", "col"),
    ("facet=wars%3BDROP+TABLE+games", "wars;drop"), ("wars%3BDROP=1", "wars;drop"),
]


def test_an_unknown_column_or_a_bad_value_is_a_400_naming_it(server):
    for query, named in BAD:
        for path in ("/games", "/games.json", "/games.csv"):
            status, body = raw_get(server, f"{path}?{query}")
            assert status == 400, (path, query, body[:200])
            text = body.decode()
            assert text.startswith("400: ") and text.count("\n") == 1 and named in text.lower(), (query, text)


def test_values_are_bound_not_spliced(server, root):
    every = sql(root, "SELECT count(*) AS n FROM games")[0]["n"]
    for value in ("' OR 1=1 --", "x') OR ('1'='1", '" OR "1"="1'):
        assert listed(server, urlencode({"deal": value}))["total"] == 0
        assert listed(server, urlencode({"deal__gte": value}))["total"] == \
            sql(root, "SELECT count(*) AS n FROM games WHERE deal >= $v", {"v": value})[0]["n"]
    assert sql(root, "SELECT count(*) AS n FROM games")[0]["n"] == every
    status, body = get(f"{server}games?" + urlencode({"deal": "<script>alert(1)</script>", "facet": "deal"}))
    assert status == 200 and b"<script>alert" not in body and b"&lt;script&gt;alert(1)&lt;/script&gt;" in body


# ---------------------------------------------------------------- JSON


def test_json_is_an_object_with_total_page_and_next_in_the_col_order(server, root):
    status, body = get(f"{server}games.json?variant=classic&per_page=5&page=2&col=outcome&col=battles&col=game_id")
    doc = json.loads(body, object_pairs_hook=lambda pairs: pairs)
    assert [k for k, _ in doc] == ["total", "page", "per_page", "next", "columns", "rows"]
    got = dict(doc)
    want = sql(root, "SELECT outcome, battles, game_id FROM games WHERE variant = 'classic' "
                     "ORDER BY battles DESC NULLS LAST, game_id")
    assert got["total"] == len(want) and got["page"] == 2 and got["per_page"] == 5
    assert got["columns"] == ["outcome", "battles", "game_id"]
    assert [[k for k, _ in row] for row in got["rows"]] == [got["columns"]] * 5
    assert [dict(row) for row in got["rows"]] == want[5:10]
    assert parse_qsl(urlsplit(got["next"]).query) == [("variant", "classic"), ("page", "3"), ("per_page", "5"),
                                                      ("col", "outcome"), ("col", "battles"), ("col", "game_id")]
    # game_id leads when not placed; every game without a page, no next
    doc = listed(server, "variant=steal&col=wars")
    assert doc["columns"] == ["game_id", "wars"] and doc["page"] is None and doc["per_page"] is None
    assert doc["next"] is None and doc["total"] == len(doc["rows"]) == 80
    # CSV in the same order
    status, body = get(f"{server}games.csv?variant=classic&per_page=2&col=outcome&col=battles")
    assert next(csv.reader(io.StringIO(body.decode()))) == ["game_id", "outcome", "battles"]


def test_next_links_walk_every_page_exactly_once(server, root):
    want = [r["game_id"] for r in sql(root, "SELECT game_id FROM games WHERE outcome IN ('win', 'cycle') "
                                            "ORDER BY wars DESC NULLS LAST, game_id")]
    url, seen, pages = f"{server}games.json?outcome=win&outcome=cycle&sort=wars&per_page=7&col=wars", [], 0
    while url:
        doc = json.loads(get(url)[1])
        assert doc["total"] == len(want)
        seen += [r["game_id"] for r in doc["rows"]]
        pages += 1
        url = server + doc["next"].lstrip("/") if doc["next"] else None
    assert seen == want and pages == -(-len(want) // 7)


# ---------------------------------------------------------------- the SQL page keeps DuckDB's hints


def test_the_sql_page_keeps_duckdbs_hints_escaped(server):
    status, body = get(f"{server}sql?q=" + quote("SELECT outcom FROM games"))
    assert status == 400
    error = html.unescape(re.search(rb'<pre class="error" id="error" role="alert">(.*?)</pre>', body, re.S)
                          .group(1).decode())
    lines = error.splitlines()
    assert lines[0].startswith("SQL error: Binder Error:") and '"outcom"' in lines[0]
    assert lines[1].startswith("  Candidate bindings:") and '"outcome"' in lines[1]
    status, body = get(f"{server}sql?q=" + quote("SELECT <b>1</b> FROM games"))
    error = re.search(rb'<pre class="error" id="error" role="alert">(.*?)</pre>', body, re.S).group(1).decode()
    assert "<b>" not in error and "&lt;b&gt;" in error
    lines = html.unescape(error).splitlines()
    line, caret = next((a, b) for a, b in zip(lines, lines[1:]) if a.lstrip().startswith("LINE 1:"))
    assert line.strip().endswith("SELECT <b>1</b> FROM games") and set(caret.strip()) == {"^"}
    assert line[caret.index("^"):].startswith("<")  # the caret under the place DuckDB points at


def test_the_list_knows_every_column_of_the_games_view_by_its_name():
    """Every column of the games view can be shown, filtered and faceted, by the view's name
    (`max_war_depth`, not a name of the list's own), with the kind of value the view holds."""
    from pipeline.present.games_columns import COLUMNS
    from pipeline.present.sql_page import views

    typed = dict(c.split(" ", 1) for c in dict(views())["games"])
    assert set(COLUMNS) == set(typed)
    for name, col in COLUMNS.items():
        base = typed[name].replace("[]", "")
        kind = "bool" if base == "BOOLEAN" else "text" if base == "VARCHAR" else "int"
        assert (col.kind, col.depth) == (kind, typed[name].count("[]")), name


def test_the_sql_page_lists_the_views_its_dataset_has(tmp_path):
    """On a counts dataset the page listed `events` and `battles`, which fail there, and not
    `counts`, which every exact answer reads (hostile pass E, 7)."""
    from pipeline.jobs.generate import Plan, generate
    from pipeline.model.rules import build_rules
    from pipeline.present.site import Snapshot
    from pipeline.present.sql_page import views_of

    counted = tmp_path / "counted"
    rules = build_rules("classic", {"ranks": "3", "suits": "2", "pickup": "natural", "war_down": "0"})
    generate(counted, [Plan(rules, 0, all_deals=True, log="counts")], seed=1)
    played = tmp_path / "played"
    generate(played, [Plan(build_rules("classic"), 5)], seed=1)
    listed = {}
    for root in (counted, played):
        snap = Snapshot(root, root.name, "", [])
        listed[root.name] = [name for name, _ in views_of(snap.logs, snap.every_deal)]
    assert "counts" in listed["counted"] and not {"events", "battles", "event_rows"} & set(listed["counted"])
    assert {"games", "events", "battles", "rules", "cards"} <= set(listed["played"]) and "counts" not in listed["played"]
