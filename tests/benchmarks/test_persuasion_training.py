"""The persuasion-chat trial (benchmarks/persuasion_training.py): which propositions train and test,
the cap, what a LOGO fold without the debates may see, the rule, and its --write-train file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from persuasion_training import (  # noqa: E402
    by_writer,
    others_rule,
    persuasion_rule,
    proposition_halves,
    training_chats,
    without_debate_kin,
)

from whowrote.data import load_corpus  # noqa: E402


def chats(props: list[str], models: list[str], per_cell: int) -> pd.DataFrame:
    rows = [{"topic": p, "model": m, "file": f"{p}__{m}__{i}.md", "role": "persuader" if i % 2 else "target",
             "provider": "OTHER", "text": f"text {p} {m} {i}"}
            for p in props for m in models for i in range(per_cell)]
    return pd.DataFrame(rows)


def test_propositions_alternate_between_train_and_test() -> None:
    topics = pd.Series(["prop_0021", "prop_0004", "prop_0028", "prop_0004", "prop_0037", "prop_0043"])
    assert proposition_halves(topics) == (["prop_0004", "prop_0028", "prop_0043"], ["prop_0021", "prop_0037"])


def test_training_chats_are_capped_per_model_and_proposition_and_seeded() -> None:
    frame = chats(["prop_0004", "prop_0028", "prop_0037"], ["glm-5", "gpt-5.4-high"], 40)
    picked = training_chats(frame, ["prop_0004", "prop_0028"], seed=0, cap=30)
    assert picked.groupby(["topic", "model"]).size().tolist() == [30, 30, 30, 30]
    assert set(picked.genre) == {"persuasion"} and picked.id.is_unique
    assert picked.id.iloc[0] == picked.file.iloc[0] + ":" + picked.role.iloc[0]
    assert list(picked.subgenre) == list(picked.role)
    again, other = training_chats(frame, ["prop_0004", "prop_0028"], seed=0, cap=30), training_chats(frame, ["prop_0004", "prop_0028"], seed=1, cap=30)
    assert list(again.id) == list(picked.id) and list(other.id) != list(picked.id)
    small = training_chats(chats(["prop_0004"], ["glm-5"], 5), ["prop_0004"], seed=0, cap=30)
    assert len(small) == 5  # a cell under the cap keeps every text


def test_a_fold_without_the_debates_sees_neither_their_copies_nor_the_chats() -> None:
    add = pd.DataFrame({"genre": ["arena-hard", "debate", "persuasion"], "id": ["a", "b", "c"]})
    with_debates = pd.DataFrame({"genre": ["blog", "debate"]})
    without = pd.DataFrame({"genre": ["blog", "chat"]})
    assert list(without_debate_kin(add, with_debates).id) == ["a", "b", "c"]
    assert list(without_debate_kin(add, without).id) == ["a"]


def results(diffs: dict[str, float], lower: float = 0.01, logo: float = 0.0, combined: float = 0.0) -> dict:
    """A trial's results with each test's 4-way accuracy moved by ``diffs`` (points)."""
    tests = {t: {"bundled": {"accuracy": 0.5}, "persuasion": {"accuracy": 0.5 + diffs.get(t, 0.0) / 100},
                 "diff_intervals": {"accuracy": [lower, 0.05]}} for t in ("P", "S", "D", "A", "M", "T3")}
    row = {"bundled": {"accuracy_3way": 0.8}, "persuasion": {"accuracy_3way": 0.8 + logo / 100}}
    return {"tests": tests, "LOGO": {"blog": row, "chat": row},
            "T3 edits": {"bundled": {"combined": {"diff": 5.0}}, "persuasion": {"combined": {"diff": 5.0 + combined}}}}


def test_the_rule_passes_only_when_every_clause_holds() -> None:
    assert all(persuasion_rule(results({"P": 4.0})).values())
    assert not persuasion_rule(results({"P": 2.0}))["(a) P 4-way +3, interval above 0"]
    assert not persuasion_rule(results({"P": 4.0}, lower=-0.01))["(a) P 4-way +3, interval above 0"]
    assert not persuasion_rule(results({"P": 4.0, "S": -1.5}))["(b) S and D at most -1"]
    assert not persuasion_rule(results({"P": 4.0, "D": -1.5}))["(b) S and D at most -1"]
    assert not persuasion_rule(results({"P": 4.0, "A": -0.8}))["(c) A at most -0.5, M at most -1"]
    assert persuasion_rule(results({"P": 4.0, "M": -0.8}))["(c) A at most -0.5, M at most -1"]
    assert not persuasion_rule(results({"P": 4.0, "T3": -0.8}))["(d) T3 at most -0.5"]
    assert not persuasion_rule(results({"P": 4.0}, logo=-0.8))["(e) LOGO 3-way mean at most -0.5"]
    assert not persuasion_rule(results({"P": 4.0}, combined=0.8))["(f) combined drop at most +0.5"]


def test_the_others_rule_asks_the_stories_to_gain_and_nothing_else_to_lose() -> None:
    assert all(others_rule(results({"S": 2.5})).values())
    assert not others_rule(results({"S": 1.5}))["(a) S 4-way +2, interval above 0"]
    assert not others_rule(results({"S": 2.5}, lower=-0.01))["(a) S 4-way +2, interval above 0"]
    assert not others_rule(results({"S": 2.5, "D": -1.5}))["(b) D and P at most -1"]
    assert not others_rule(results({"S": 2.5, "P": -1.5}))["(b) D and P at most -1"]
    assert others_rule(results({"S": 2.5, "P": -0.5}))["(b) D and P at most -1"]  # P need not gain here
    assert not others_rule(results({"S": 2.5, "A": -0.8}))["(c) A at most -0.5, M at most -1"]
    assert not others_rule(results({"S": 2.5, "T3": -0.8}))["(d) T3 at most -0.5"]
    assert not others_rule(results({"S": 2.5}, logo=-0.8))["(e) LOGO 3-way mean at most -0.5"]
    assert not others_rule(results({"S": 2.5}, combined=0.8))["(f) combined drop at most +0.5"]
    assert len(others_rule(results({"S": 2.5}))) == 6


def test_the_arms_split_the_chats_by_who_wrote_them() -> None:
    frame = chats(["prop_0004"], ["glm-5", "kimi-k2.5"], 2).assign(provider="OTHER")
    frame = pd.concat([frame, chats(["prop_0004"], ["gpt-5.4-high"], 2).assign(provider="CHATGPT"),
                       chats(["prop_0004"], ["claude-opus-4-6-adaptive"], 2).assign(provider="CLAUDE")])
    assert len(by_writer(frame, "all")) == 8
    assert sorted(set(by_writer(frame, "others").model)) == ["glm-5", "kimi-k2.5"]
    assert sorted(set(by_writer(frame, "assistants").model)) == ["claude-opus-4-6-adaptive", "gpt-5.4-high"]


def transcript(persuader: str, target: str, n: int) -> str:
    def turn(k: int, role: str, model: str) -> str:
        return f"## Turn {k}\n\n- speaker_role: `{role}`\n- speaker_model: `{model}`\n\nTurn {k} of {model}, chat {n}.\n\n"

    return "## Proposition\n\nA claim.\n\n" + "".join(
        turn(k, r, m) for k, (r, m) in enumerate([("persuader", persuader), ("target", target)] * 2, 1))


def test_write_train_gives_a_corpus_file_and_bad_input_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    for n in range(3):
        for prop in ("prop_0004", "prop_0021"):
            (folder / f"{prop}__gpt-5.4-high__glm-5__pro__t{n}.md").write_text(
                transcript("gpt-5.4-high", "glm-5", n), encoding="utf-8")
    script = str(REPO / "benchmarks" / "persuasion_training.py")
    out = tmp_path / "chats.jsonl"
    done = subprocess.run([sys.executable, script, "--persuasion", str(folder), "--corpus", "unused", "--out", "unused",
                           "--write-train", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    corpus = load_corpus([out])
    assert len(corpus) == 12 and set(corpus.genre) == {"persuasion"}  # 3 chats x 2 participants x 2 propositions
    assert corpus.groupby("provider").size().to_dict() == {"CHATGPT": 6, "OTHER": 6}
    assert set(corpus.subgenre) == {"persuader", "target"} and set(corpus.topic) == {"prop_0004", "prop_0021"}
    others = tmp_path / "others.jsonl"
    done = subprocess.run([sys.executable, script, "--persuasion", str(folder), "--corpus", "unused", "--out", "unused",
                           "--write-train", str(others), "--arm", "others"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert load_corpus([others]).groupby("model").size().to_dict() == {"glm-5": 6}
    for args, message in ((["--persuasion", str(tmp_path / "none"), "--write-train", str(out)], "not a folder"),
                          (["--persuasion", str(folder)], "required: --arena")):
        done = subprocess.run([sys.executable, script, *args, "--corpus", "c", "--out", "o"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
        assert done.stderr.strip().splitlines()[-1].count("error") == 1


def test_the_verdict_figure_is_drawn_from_results_alone(tmp_path: Path, figure_only) -> None:
    counts = {"gpt-5.5-xhigh": {"bundled": {"CLAUDE": 0, "CHATGPT": 8, "GEMINI": 0, "OTHER": 17},
                                "persuasion": {"CLAUDE": 0, "CHATGPT": 18, "GEMINI": 0, "OTHER": 7}},
              "qwen3.8-max": {"bundled": {"CLAUDE": 0, "CHATGPT": 6, "GEMINI": 1, "OTHER": 18},
                              "persuasion": {"CLAUDE": 0, "CHATGPT": 22, "GEMINI": 0, "OTHER": 3}}}
    (tmp_path / "results.json").write_text(json.dumps({"tests": {"S": {"per_version": counts}, "D": {"per_version": counts}}}),
                                           encoding="utf-8")
    done = figure_only("persuasion_training.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "verdicts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = figure_only("persuasion_training.py", tmp_path / "none")
    assert done.returncode != 0 and "no trial results" in done.stderr and "Traceback" not in done.stderr
