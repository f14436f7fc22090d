"""run_study on a small real sample of the shared corpus: files, self-containment, consistency of
the report with summary.json, determinism, and the central finding (style beats content)."""

from __future__ import annotations

import base64
import json
import re

import pytest

from whowrote.study import run_study
from whowrote.study.report import FIGURES
from whowrote.style.edits import edits

OPTS = dict(max_per_class=12, content_eval_cap=12, map_points=200, progress=False)


@pytest.fixture(scope="module")
def small_corpus(corpus):
    return corpus  # run_study samples max_per_class texts per (genre, provider) itself


@pytest.fixture(scope="module")
def study(small_corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    summary = run_study(small_corpus, out, seed=0, **OPTS)
    return out, summary


def test_files_written(study):
    out, _ = study
    for name in ("report.html", "summary.md", "summary.json", *(f"study_{f}.png" for f in FIGURES)):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    for f in FIGURES:
        assert (out / f"study_{f}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_is_self_contained(study):
    out, _ = study
    html = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    imgs = re.findall(r"<img[^>]*src='data:image/png;base64,([A-Za-z0-9+/=]+)'", html)
    assert len(imgs) == len(FIGURES)
    assert all(base64.b64decode(b)[:4] == b"\x89PNG" for b in imgs)
    assert all(src.startswith("data:") for src in re.findall(r"src='([^']*)'", html))


def test_summary_json_contract(study):
    out, summary = study
    data = json.loads((out / "summary.json").read_text())
    assert {"style_probe", "content_probe"} <= set(data)
    for key in ("style_probe", "content_probe"):
        assert {"val", "val_ood", "logo_blog", "logo_debate", "logo_fiction", "logo_longform"} <= set(data[key])
        for m in data[key].values():
            assert 0.0 <= m["accuracy"] <= 1.0 and 0.0 <= m["macro_f1"] <= 1.0
            cm = m["confusion"]
            assert sum(map(sum, cm)) == m["n"]
            assert sum(cm[i][i] for i in range(len(cm))) == round(m["accuracy"] * m["n"])
    assert data["style_probe"] == json.loads(json.dumps(summary["style_probe"]))
    assert list(data["robustness"]["accuracy"]) == list(edits())
    assert data["length_curve"]["lengths"] == [50, 100, 200, 400, 800, 1500, 3000]
    assert set(data["cross_genre"]["logo"]) == {"blog", "debate", "fiction", "longform"}


def test_numbers_in_report_match_json(study):
    out, summary = study
    md = (out / "summary.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in md.splitlines()
            if line.startswith("| ") and re.match(r"\| (val|val_ood|logo_\w+) \| \d+ \|", line)}
    assert set(rows) == set(summary["style_probe"])
    for split, line in rows.items():
        cells = [c.strip() for c in line.strip("|").split("|")]
        s, c = summary["style_probe"][split], summary["content_probe"][split]
        assert cells[1] == str(s["n"])
        assert cells[3] == f"{s['accuracy']:.3f} / {s['macro_f1']:.3f}"
        assert cells[-1] == f"{c['accuracy']:.3f} / {c['macro_f1']:.3f}"
        assert f"<td>{s['accuracy']:.3f} / {s['macro_f1']:.3f}</td>" in html
    lead = f"style probe reaches accuracy {summary['style_probe']['val']['accuracy']:.3f}"
    assert lead in md and lead in html
    for edit, accs in summary["robustness"]["accuracy"].items():
        row = next(line for line in md.splitlines() if line.startswith(f"| {edit} | "))
        assert row == "| " + " | ".join([edit, *(f"{v:.3f}" for v in accs.values())]) + " |"
    for items in summary["ratio_sentences"].values():
        for it in items:
            assert it["sentence"] in md
            assert f"<code>{it['feature']}</code>" in html


def test_style_beats_content_and_chance(study):
    _, summary = study
    s, c = summary["style_probe"], summary["content_probe"]
    assert s["val"]["accuracy"] > c["val"]["accuracy"]
    assert s["val"]["accuracy"] > s["val"]["chance"] + 0.2
    logo = [k for k in s if k.startswith("logo_")]
    assert sum(s[k]["accuracy"] for k in logo) > sum(c[k]["accuracy"] for k in logo)
    # the robustness table starts from the same probe: its raw row is the val accuracy
    assert summary["robustness"]["accuracy"]["raw"]["style"] == s["val"]["accuracy"]
    curve = summary["length_curve"]["accuracy"]["style"]
    assert curve["50"] < curve["3000"]  # style needs text: 50 words tell less than 3,000


def test_deterministic_for_a_seed(study, small_corpus):
    out, _ = study
    first_json = (out / "summary.json").read_text()
    first_html = (out / "report.html").read_bytes()
    again = run_study(small_corpus, out, seed=0, **OPTS)  # same dir: re-uses the embedding cache
    assert (out / "summary.json").read_text() == first_json
    assert json.loads(first_json)["style_probe"] == json.loads(json.dumps(again["style_probe"]))
    assert (out / "report.html").read_bytes() == first_html  # figures included, byte for byte
