"""Hostile QA pass B (runs/hostile-b.md), D5 to D9 and D12: what `war generate` says of rule
files, of options given twice, of a resume with other arguments, of a folder that is not a
dataset and of a name two rule files share. Each case ends in one line `error: ...` that names
what is at fault (and not what is not), with exit 2 and nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline as war_api
import pipeline.jobs.generate as generate_job
from faultkit import one_line, tree, war


def rule_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- D5, D6: rule files


def test_a_json_rule_file_that_gives_a_key_twice_is_refused_as_toml_is(tmp_path, monkeypatch, capsys):
    """json.loads keeps the last of two keys without a word: `players` 2 then 3 played 3-player
    games, where the same file in TOML is refused. The file and the key are named."""
    path = rule_file(tmp_path, "dup.json", '{"variant": "classic", "players": 2, "players": 3}\n')
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", path, "--games", "2", "--out", tmp_path / "d", "-q")
    line = one_line(code, out, err, 2, "dup.json", "'players' twice")
    assert "not valid JSON" not in line
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("name,text,said", [
    ("str.json", '{"variant": "classic", "players": "3"}', "'players' wants an integer, got the text '3'"),
    ("spaced.json", '{"variant": "classic", "max_battles": " 5_0 "}', "'max_battles' wants an integer, got the text ' 5_0 '"),
    ("str.toml", 'variant = "classic"\nwar_down = "1"\n', "'war_down' wants an integer >= 0 or 'by_rank', got the text '1'"),
])
def test_a_rule_file_s_text_is_not_read_as_a_number(tmp_path, monkeypatch, capsys, name, text, said):
    """README: values in a file have their own types. `"3"` was read as 3, and `" 5_0 "` as 50,
    while `2.5` and `true` were refused: a text for an integer option is refused the same way."""
    path = rule_file(tmp_path, name, text)
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", path, "--games", "2", "--out", tmp_path / "d", "-q")
    one_line(code, out, err, 2, name, said)
    assert not (tmp_path / "d").exists()


def test_a_rule_file_s_text_is_a_value_where_the_option_takes_words(tmp_path):
    """An option whose values are words takes its words as text (war_down's `by_rank`, a pickup,
    a win rule), by what the option declares; the same option's number as text is refused."""
    words = rule_file(tmp_path, "words.toml", 'variant = "classic"\nwar_down = "by_rank"\npickup = "natural"\n'
                                              'win = "wars:3"\n')
    rules = war_api.load_rules(words)
    assert (rules.war_down, rules.pickup, rules.win) == ("by_rank", "natural", "wars:3")
    number = rule_file(tmp_path, "number.json", '{"variant": "classic", "war_down": "2"}')
    with pytest.raises(war_api.RulesError, match="got the text '2'"):
        war_api.load_rules(number)
    assert war_api.build_rules("classic", {"war_down": "2"}).war_down == 2  # --set's texts are read as numbers


# ---------------------------------------------------------------- D7: an option given twice


@pytest.mark.parametrize("twice,said", [
    (["--seed", "1", "--seed", "2"], "--seed given twice (--seed 1, --seed 2)"),
    (["-s", "1", "--seed=2"], "--seed given twice (-s 1, --seed=2)"),
    (["--games", "2", "--games", "3"], "--games given twice"),
    (["--workers", "1", "--workers", "2"], "--workers given twice"),
    (["--log", "games", "--log", "events"], "--log given twice"),
    (["--deals", "a.jsonl", "--deals", "b.jsonl"], "--deals given twice"),
])
def test_generate_refuses_an_option_given_twice(tmp_path, monkeypatch, capsys, twice, said):
    """README: an option given twice is refused. click kept the last (`--seed 1 --seed 2` played
    seed 2), which a shell alias or a script adding its own --seed makes without a word."""
    code, out, err = war(monkeypatch, capsys, "generate", *twice, "--out", tmp_path / "d", "-q")
    one_line(code, out, err, 2, said)
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("args,said", [
    (["query", "DATASET", "--sql", "SELECT 1", "--sql", "SELECT 2"], "--sql given twice (--sql 'SELECT 1', --sql 'SELECT 2')"),
    (["replay", "DATASET", "1", "--format", "json", "--format", "text"], "--format given twice"),
    (["solve", "--exact", "--float"], "--exact/--float given twice"),
    (["validate", "DATASET", "--workers", "1", "--workers", "2"], "--workers given twice"),
])
def test_every_command_refuses_an_option_given_twice(monkeypatch, capsys, args, said):
    """Not generate's alone: the check is the command line's, for every command, before the
    command runs (the dataset here need not exist)."""
    code, out, err = war(monkeypatch, capsys, *args)
    one_line(code, out, err, 2, said, f"war {args[0]} --help")


def test_repeatable_options_stay_repeatable_next_to_one_given_twice(tmp_path, monkeypatch, capsys):
    """-v, --set, --rules, --name repeat; a flag said twice says the same. Only the option that
    takes one value is named."""
    first = rule_file(tmp_path, "a.toml", 'variant = "jokers"\n')
    second = rule_file(tmp_path, "b.toml", 'variant = "razboi"\n')
    base = ["generate", "-v", "classic", "-v", "multiplayer", "--set", "war_down=1", "--set", "pickup=table_order",
            "--games", "2", "-q", "-q"]
    code, out, err = war(monkeypatch, capsys, *base, "--seed", "1", "--seed", "1", "--out", tmp_path / "d")
    line = one_line(code, out, err, 2, "--seed given twice")
    assert "--set" not in line and "--variant" not in line and "--quiet" not in line
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", first, "--rules", second, "--games", "2",
                         "--seed", "1", "-q", "-q", "--out", tmp_path / "e")
    assert code == 0, err
    code, out, err = war(monkeypatch, capsys, *base, "--name", "a", "--name", "b", "--out", tmp_path / "f")
    assert code == 0, err


# ---------------------------------------------------------------- D8: a resume with other arguments


@pytest.fixture
def interrupted(tmp_path, monkeypatch, capsys) -> Path:
    """`war generate -v classic --games 4000 --out ds` (two shards of the default 2,000),
    stopped by Ctrl-C once its first shard is written."""
    root = tmp_path / "ds"
    real, done = generate_job.run_shard, []

    def stop(shard, tick=None):
        if done:
            raise KeyboardInterrupt
        done.append(shard.part)
        return real(shard, tick)

    with monkeypatch.context() as patch:
        patch.setattr(generate_job, "run_shard", stop)
        code, _, err = war(monkeypatch, capsys, "generate", "-v", "classic", "--games", "4000", "--out", root, "-q")
    assert code == 130, err
    assert (root / ".war").is_dir() and not (root / "manifest.json").exists()
    return root


@pytest.mark.parametrize("other", [[], ["--shard-size", "2000"]])
def test_a_resume_with_another_log_names_the_log(interrupted, monkeypatch, capsys, other):
    """--log games changes the default shard size too: the message blamed --shard-size, which
    was never given, or said only "the plan differs". It names --log, with both values."""
    before = tree(interrupted)
    code, out, err = war(monkeypatch, capsys, "generate", "-v", "classic", "--games", "4000", "--out", interrupted,
                         "--resume", "--log", "games", "-q", *other)
    line = one_line(code, out, err, 2, "--log games (the interrupted run: events)")
    assert "--shard-size" not in line and "the plan differs" not in line
    assert tree(interrupted) == before


def test_a_resume_with_a_name_says_no_name_not_none(interrupted, monkeypatch, capsys):
    """Python's None leaked into the message for the interrupted run's missing name."""
    code, out, err = war(monkeypatch, capsys, "generate", "-v", "classic", "--games", "4000", "--out", interrupted,
                         "--resume", "--name", "x", "-q")
    line = one_line(code, out, err, 2, "--name for classic: 'x' (the interrupted run: no name)")
    assert "None" not in line


# ---------------------------------------------------------------- D9: a folder that is not a dataset


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
def test_a_folder_of_other_files_is_said_not_to_be_a_dataset_at_once(tmp_path, monkeypatch, capsys, overwrite):
    """The first refusal advised --overwrite, which the second then refused: both say at once
    that the folder is not a war dataset and name its files, and neither advises --overwrite."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "NOTES.md").write_text("hi", encoding="utf-8")
    before = tree(notes)
    code, out, err = war(monkeypatch, capsys, "generate", "--games", "2", "--out", notes, "-q", *overwrite)
    line = one_line(code, out, err, 2, "not a war dataset", "NOTES.md")
    assert "use --overwrite" not in line
    assert tree(notes) == before


def test_a_dataset_with_other_files_is_not_advised_an_overwrite_that_is_refused(tmp_path, monkeypatch, capsys):
    """A dataset beside a file of the user's: --overwrite would be refused for that file, so the
    refusal without it names the file rather than advising --overwrite."""
    root = tmp_path / "ds"
    generate_job.generate(root, [generate_job.Plan(war_api.build_rules("classic"), 4)], seed=1)
    (root / "NOTES.md").write_text("hi", encoding="utf-8")
    code, out, err = war(monkeypatch, capsys, "generate", "--games", "2", "--out", root, "-q")
    line = one_line(code, out, err, 2, "holds files war did not write: NOTES.md")
    assert "use --overwrite" not in line


# ---------------------------------------------------------------- D12: what rule file errors name


def test_a_name_two_rule_files_give_names_the_files(tmp_path, monkeypatch, capsys):
    """Two rule files' `name = "quick"` clashed as `--name: 'quick' already names ...`, though no
    --name was given: the files (or the --name and the file) are named instead."""
    first = rule_file(tmp_path, "q.toml", 'variant = "jokers"\nname = "quick"\nwar_down = 1\n')
    second = rule_file(tmp_path, "q2.toml", 'variant = "classic"\nname = "quick"\nwar_down = 2\n')
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", first, "--rules", second, "--games", "2",
                         "--out", tmp_path / "d", "-q")
    line = one_line(code, out, err, 2, "q.toml", "q2.toml", "'quick'")
    assert "--name" not in line
    code, out, err = war(monkeypatch, capsys, "generate", "-v", "classic", "--name", "quick", "--rules", first,
                         "--games", "2", "--out", tmp_path / "d", "-q")
    one_line(code, out, err, 2, "--name for classic and rule file", "q.toml", "'quick'")
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("variant", [["-v", "classic"], []])
def test_set_beside_rules_says_they_cannot_be_combined(tmp_path, monkeypatch, capsys, variant):
    """`--rules q.toml -v classic --set war_down=1` was told "--set applies to --variant", which
    is what it did: --set is refused beside --rules whether or not a --variant is given."""
    path = rule_file(tmp_path, "q.toml", 'variant = "jokers"\nwar_down = 1\n')
    code, out, err = war(monkeypatch, capsys, "generate", "--rules", path, *variant, "--set", "war_down=1",
                         "--games", "2", "--out", tmp_path / "d", "-q")
    line = one_line(code, out, err, 2, "--set cannot be combined with --rules")
    assert "applies to --variant" not in line
