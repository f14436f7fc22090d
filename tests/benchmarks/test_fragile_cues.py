"""The markup-sensitivity measure behind the ``fragile`` flag (benchmarks/fragile_cues.py) on real
corpus texts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import numpy as np  # noqa: E402
from fragile_cues import measure, moved  # noqa: E402

from whowrote.style import load_model  # noqa: E402


def test_moved_is_a_relative_change_over_ten_percent():
    a = np.array([[10.0, 0.0, 5.0, 1e-12]])
    b = np.array([[10.5, 0.0, 6.0, 0.0]])
    assert moved(a, b).tolist() == [[False, False, True, False]]


def test_markup_texts_move_hyphens_and_plain_ones_do_not(corpus):
    longform = corpus[corpus["genre"] == "longform"]
    dashed = longform[longform["text"].str.contains(r"(?m)^- \S")].head(20)["text"].tolist()
    got = measure(load_model(), dashed)
    assert got["n_texts"] == len(dashed) and got["n_with_block_markup"] == len(dashed)
    hyphen = got["features"]["hyphen"]
    # every text has "- " bullets, so rewriting them as "* " moves the hyphen rate of most of them
    assert hyphen["with_block_markup"]["star_bullets"] >= 0.5 and hyphen["in_library_list"]
    # word choice does not move under any Markdown edit
    assert max(got["features"]["fw_the"]["with_block_markup"].values()) == 0.0


def test_flip_ranking_scores_only_texts_with_markup(corpus):
    from fragile_cues import flip_ranking

    from whowrote.style.explain import has_markup

    longform = corpus[corpus["genre"] == "longform"]
    dashed = longform[longform["text"].str.contains(r"(?m)^- \S")].head(15)["text"].tolist()
    others = longform[~longform["text"].str.contains(r"(?m)^- \S")].head(40)["text"].tolist()
    model = load_model()
    gate = [has_markup(model, x) for x in model.features(others)]
    assert not all(gate)  # some texts without markup are in the mix
    got = flip_ranking(model, dashed + others)
    assert got["n_with_block_markup"] == len(dashed) + sum(gate)
    for edit in ("strip_markdown", "markdown_html", "star_bullets"):
        r = got[edit]
        assert 0 <= r["markup_zeroed_hits"] <= r["flips"] <= got["n_with_block_markup"]
        # an AUROC only when both outcomes occur
        assert (r["auroc_negative_margin"] is None) == (r["flips"] in (0, got["n_with_block_markup"]))


def test_the_figure_is_drawn_from_a_results_record(tmp_path):
    from fragile_cues import figure

    shares = {"strip_markdown": 0.3, "markdown_html": 0.2, "star_bullets": 0.0}
    out = {"n_with_block_markup": 10, "markup_sensitive_by_rule": ["hyphen", "period"],
           "features": {"hyphen": {"with_block_markup": shares}, "period": {"with_block_markup": {**shares, "star_bullets": 0.1}}}}
    figure(out, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_ends_fragile_counts_the_tells_the_cut_adds(corpus):
    """Chat answers with a closing paragraph: the cut's check can only add fragile tells, and the
    framing phrases are among the cues it adds on a text that closes with them."""
    from fragile_cues import ends_fragile

    chat = corpus[corpus["genre"] == "chat"].head(40)["text"].tolist()
    closing = ("Gardening rewards patience. Soil takes years to build.\n\nWater in the morning. Mulch in the "
               "autumn.\n\nIn summary, let me know if you'd like more tips: I'm happy to help!")
    got = ends_fragile(load_model(), ["Sure! Here's a piece:\n\n" + closing] + chat, ["framed"] + ["chat"] * len(chat))
    assert got["n_texts"] == len(chat) + 1 and 0 <= got["flips"] <= got["n_texts"]
    for g in got["per_genre"].values():
        assert 0 <= g["fragile_without_cut"] <= g["fragile_with_cut"] <= 1
    assert got["per_genre"]["framed"]["fragile_with_cut"] > got["per_genre"]["framed"]["fragile_without_cut"]
    assert "ph_let_me" in got["added_cues"]
