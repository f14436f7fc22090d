"""STaR selection keeps exactly the verified, clean, non-leaking samples; generation and cold start run."""

import json

from train_helpers import tiny_cfg

from whowrote.train.config import StarRecipe
from whowrote.train.star import Sampled, select_star

LABELS = ["CLAUDE", "CHATGPT", "GEMINI"]
GOOD = "The prose is warm and sincere with direct address and careful hedging about what matters most here"


def done(reason: str, label: str) -> Sampled:
    return Sampled(f"<reason_why>\n{reason}\n</reason_why>\n\n<answer>\n{label}\nConfidence: HIGH\n</answer>")


def test_select_star_keeps_exactly_the_verified():
    rows = [{"id": i, "text": f"t{i}", "provider": p} for i, p in
            enumerate(["CLAUDE", "CLAUDE", "CHATGPT", "GEMINI", "CHATGPT", "GEMINI", "CLAUDE", "GEMINI"])]
    samples = [
        [done(GOOD, "CLAUDE"), done(GOOD + " again", "CLAUDE"), done(GOOD, "GEMINI"), done(GOOD, "CHATGPT")],  # 0 keep
        [done(GOOD, "CLAUDE"), done(GOOD, "GEMINI"), done(GOOD, "GEMINI"), done(GOOD, "GEMINI")],  # 1 majority wrong
        [done("too short", "CHATGPT"), done(GOOD + " two", "CHATGPT"), done(GOOD, "CHATGPT"), done(GOOD, "CLAUDE")],  # 2 keep (2nd)
        [done(GOOD, "GEMINI"), done(GOOD, "CLAUDE"), done(GOOD, "CHATGPT"), done(GOOD, "CLAUDE")],  # 3 one correct
        [done("As the hint says the rhythm is even and careful with many balanced qualifiers", "CHATGPT"),
         done("This reads like chatgpt because of the even and careful rhythm with many qualifiers", "CHATGPT"),
         done(GOOD, "GEMINI"), done(GOOD, "CLAUDE")],  # 4 correct x2 but both rationales leak
        [done(GOOD, "GEMINI"), done(GOOD, "GEMINI"), Sampled("<answer>GEMINI</answer>"), done(GOOD, "CLAUDE")],  # 5 keep
        [Sampled("<answer>CLAUDE</answer>"), Sampled("<answer>CLAUDE</answer>"), Sampled("x"), Sampled("y")],  # 6 no rationale
        [done("word " * 20, "GEMINI"), done(GOOD, "GEMINI"), done(GOOD, "GEMINI"), done(GOOD, "GEMINI")],  # 7 keep (2nd)
    ]
    kept, stats = select_star(rows, samples, StarRecipe(k=4, cap_per_class=0), labels=LABELS)
    assert [r["id"] for r in kept] == [0, 2, 5, 7]
    assert kept[1]["rationale"] == GOOD + " two" and kept[3]["rationale"] == GOOD
    assert stats.rejected == {"leak": 1, "majority": 2, "no_clean_rationale": 1}
    # default cap = the smallest class (balanced): GEMINI has 2, the others 1 -> 1 each
    capped, st = select_star(rows, samples, StarRecipe(k=4), labels=LABELS)
    assert [r["id"] for r in capped] == [0, 2, 5] and st.cap == 1 and st.final_rows == 3


def test_goldcond_accepts_any_clean_correct_sample():
    rows = [{"id": 0, "text": "t", "provider": "CLAUDE"}]
    samples = [[done(GOOD, "GEMINI"), done(GOOD, "CLAUDE")]]
    kept, _ = select_star(rows, samples, StarRecipe(mode="goldcond", k=2), labels=LABELS)
    assert [r["rationale"] for r in kept] == [GOOD]


def test_goldcond_fallback_sentence_when_no_clean_rationale():
    rows = [{"id": 0, "text": "t", "provider": "GEMINI"}, {"id": 1, "text": "u", "provider": "CLAUDE"}]
    samples = [[Sampled("no tags at all"), Sampled("<answer>CLAUDE</answer>")],
               [done("Gemini wrote this, the grand formal voice gives it away with numbered sections", "CLAUDE"),
                done(GOOD, "GEMINI")]]
    cfg = StarRecipe(mode="goldcond", k=2, fallback_rationale=True)
    kept, _ = select_star(rows, samples, cfg, labels=LABELS, cap=False)
    assert kept[0]["star_mode"] == "fallback" and "GEMINI" in kept[0]["rationale"]
    # the first rationale names a provider (a leak) and is skipped; the clean one is kept even
    # though that sample answered another label: the SFT target carries the gold answer.
    assert kept[1]["rationale"] == GOOD and kept[1]["star_mode"] == "goldcond"


def test_star_generation_and_coldstart_end_to_end(tiny_model, splits, tmp_path):
    from whowrote.train.coldstart import run_coldstart, run_star
    from whowrote.train.data import read_rows, write_rows

    cfg = tiny_cfg(tiny_model, splits, tmp_path / "star", "data.n_train=6")
    path, stats = run_star_or_empty(run_star, cfg)
    assert stats["n_items"] == 6 and path.with_suffix(".stats.json").is_file()
    # cold start from rows that already carry rationales (the tiny model's own STaR yield is ~0)
    rows = [{**r, "rationale": GOOD} for r in read_rows(splits["train"])]
    train = write_rows(tmp_path / "rat.jsonl", rows)
    cs = tiny_cfg(tiny_model, {**splits, "train": train}, tmp_path / "cs", "coldstart.generate=false",
                  "coldstart.sft_max_steps=3", "grpo.max_steps=1")
    dirs = run_coldstart(cs)
    sft_state = json.loads((tmp_path / "cs" / "sft" / "train_result.coldstart-sft.json").read_text())
    assert sft_state["global_step"] == 3
    assert (tmp_path / "cs" / "grpo" / "final" / "config.json").is_file() and dirs["sft"].endswith("final")
    stages = {json.loads(line)["stage"] for line in (tmp_path / "cs" / "grpo" / "metrics.jsonl").read_text().splitlines()}
    assert "coldstart-grpo" in stages


def test_star_then_sft_trains_rationale_sft_in_the_sft_subdir(tiny_model, splits, tmp_path):
    from whowrote.train.coldstart import run_star_sft
    from whowrote.train.data import read_rows, write_rows

    rows = write_rows(tmp_path / "star.jsonl", [{**r, "rationale": GOOD} for r in read_rows(splits["train"])])
    cfg = tiny_cfg(tiny_model, splits, tmp_path / "st", "sft.max_steps=1", 'data.val=""')
    final = run_star_sft(cfg, rows)
    assert final == tmp_path / "st" / "sft" / "final" and (final / "config.json").is_file()
    assert (tmp_path / "st" / "sft" / "train_result.star-sft.json").is_file()


def run_star_or_empty(run_star, cfg):
    """run_star raises when nothing is kept (a random model); the stats file is written either way."""
    from whowrote.train.coldstart import star_path
    from whowrote.types import WhowroteError

    try:
        return run_star(cfg)
    except WhowroteError:
        p = star_path(cfg)
        return p, json.loads(p.with_suffix(".stats.json").read_text())


def test_star_with_one_sample_can_accept():
    # k=1: the default min_correct (max(2, ceil(k/2))) is capped at k, or no text could ever pass.
    rows = [{"id": 0, "text": "t", "provider": "CLAUDE"}]
    kept, stats = select_star(rows, [[done(GOOD, "CLAUDE")]], StarRecipe(k=1, cap_per_class=0), labels=LABELS)
    assert [r["id"] for r in kept] == [0] and stats.rejected == {}
