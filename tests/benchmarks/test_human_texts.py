"""benchmarks/human_texts.py: what the model tells a user about texts written by people."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from human_texts import THREE, interval, read_blogs, read_m4, shares  # noqa: E402

POST = "---\ntitle: Cycling\ndate: 2014-05-01\n---\n" + "We rode along the river until the light went. " * 40


def test_m4_rows_give_a_person_and_llama_text_per_prompt(tmp_path) -> None:
    rows = [{"prompt": "p", "human_text": f"person {i}", "machine_text": f"model {i}", "model": "llama-2-70b-chat",
             "source": "eli5", "source_ID": str(i)} for i in range(2)]
    (tmp_path / "reddit_llama2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "reddit_chatGPT.jsonl").write_text("not read\n", encoding="utf-8")  # only the LLaMA-2 files
    got = read_m4(tmp_path)
    assert [(r["text"], r["writer"]) for r in got] == [("person 0", "human"), ("model 0", "llama-2-70b-chat"),
                                                       ("person 1", "human"), ("model 1", "llama-2-70b-chat")]
    assert {r["source"] for r in got} == {"Reddit ELI5 answers"}
    assert got[0]["cluster"] == got[1]["cluster"] != got[2]["cluster"]  # a prompt's two texts resample together


def _repo_with_post(tmp_path: Path) -> tuple[Path, str]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "_posts").mkdir()
    (work / "_posts" / "2014-05-01-cycling.md").write_text(POST, encoding="utf-8")
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), *env, "commit", "-qm", "post"], check=True)
    mirror = tmp_path / "mirror"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror / "someone+blog" / "repo")], check=True)
    commit = subprocess.run(["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    return mirror, commit


def test_blog_posts_are_read_from_the_mirror_and_checked(tmp_path) -> None:
    mirror, commit = _repo_with_post(tmp_path)
    sha = hashlib.sha256(POST.encode()).hexdigest()
    manifest = tmp_path / "blogs.tsv"
    head = "blog\trepo\tcommit\tpath\tdate\twords\tsha256\n"
    manifest.write_text(head + f"b\tsomeone/blog\t{commit}\t_posts/2014-05-01-cycling.md\t2014-05-01\t1\t{sha}\n",
                        encoding="utf-8")
    (row,) = read_blogs(manifest, mirror)
    assert row["text"] == POST and row["writer"] == "human" and row["source"] == "blog: b" and row["cluster"] == "b"
    manifest.write_text(head + f"b\tsomeone/blog\t{commit}\t_posts/2014-05-01-cycling.md\t2014-05-01\t1\t{'0' * 64}\n",
                        encoding="utf-8")
    with pytest.raises(SystemExit, match="not in the mirror or changed"):
        read_blogs(manifest, mirror)


def test_the_shares_add_up_and_among_only_adds_verdicts(corpus_sample) -> None:
    """Every text is told an assistant, told OTHER or uncertain; conditioning on the three keeps
    every verdict that named one of them, so it can only add verdicts."""
    from whowrote.style import load_model

    model = load_model()
    texts = corpus_sample([("chat", 10), ("fiction", 4), ("debates", 4)])
    found, among3 = model.attribute(texts, n_tells=0), model.attribute(texts, n_tells=0, among=THREE)
    writers = [a.provider for a in found]  # as if each were by its verdict's label
    g = shares(found, among3, float(model.ood_threshold_), writers)
    assert g["n"] == len(texts)
    assert np.isclose(g["attributed"] + g["other"] + g["uncertain"], 1.0)
    assert np.isclose(sum(g["attributed_by_label"].values()), g["attributed"])
    assert g["among3_attributed"] >= g["attributed"]
    assert g["attributed_right"] == pytest.approx(1 - g["uncertain"])  # every sure verdict names its writer here
    assert g["among3_reads_other"] <= g["among3_attributed"]
    assert 0 < g["uncertain"] < 1  # the sample has both kinds


def test_one_blog_has_no_interval() -> None:
    assert interval(np.array([1, 0, 1]), np.array(["a", "a", "a"])) is None
    lo, hi = interval(np.array([1, 0, 1, 1]), np.array(["a", "b", "c", "d"]))
    assert 0 <= lo <= 0.75 <= hi <= 1
