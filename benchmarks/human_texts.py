"""Texts written by people (issue 17, "the texts users actually bring"): what the bundled model says
when the writer is none of the three assistants, nor any model.

OTHER means "none of them" (README), but every OTHER text the model was trained and measured on is
by a language model: the corpus has no human writing. People will paste their own writing, or a
colleague's, to check it; a tool that names an assistant for a person's text accuses them. This
benchmark measures how often that happens. Nothing is fitted, chosen or tuned on these texts; the
bundled model (or ``--model``) is scored once.

Protocol, fixed before the first run (this file was committed before it ran):

- Inputs.
  - ``--m4``: M4's English ``*_llama2.jsonl`` files (mbzuai-nlp/M4 at 3045ae6; Wang et al. 2024):
    ``human_text`` from Reddit ELI5 answers, WikiHow articles, Wikipedia articles and arXiv
    abstracts, all written before 2023, and ``machine_text``, LLaMA-2-70B-chat's text for the same
    prompt (an open model of 2023: OTHER by the provider rules), 100 of each per source.
  - ``--blogs``: personal and team blog posts (Markdown sources from the blogs' public
    repositories, dated before 2022-11-30, ChatGPT's release), listed in a manifest
    (``results/human_texts/blogs.tsv``: ``blog``, ``repo``, ``commit``, ``path``, ``date``,
    ``words``, ``sha256``) and read from the repositories' mirrors (``--mirror``; each file's bytes
    checked against its sha256). Each post is read as ``whowrote predict`` reads a file (its bytes
    decoded by ``whowrote.cli.decoding.decode``, then ``attribute``: YAML frontmatter dropped,
    Markdown as written).
- Every text is kept (the abstain rule already calls texts under 100 words uncertain).
- Per group (each M4 source, M4 all, each blog, blogs all, LLaMA-2 all and per source):
  - ``attributed``: the share a user is told is by one of the three assistants (not ``uncertain``,
    verdict CLAUDE, CHATGPT or GEMINI); ``attributed_confident``: the same with confidence >= 0.9.
    For human texts every such verdict is wrong; this is the headline number.
  - ``other``: the share given the verdict OTHER and not uncertain (right); ``uncertain``: the
    share flagged; ``called``: the top label of every text, uncertain or not.
  - ``p_other``: mean probability of OTHER; ``distance``: median distance to the training data and
    the share beyond the model's distance threshold (those are uncertain with a warning).
  - ``among3_attributed``: the share not uncertain when read with ``--among CLAUDE,CHATGPT,GEMINI``
    (every verdict is then one of the three, so every such verdict on a human text is wrong).
  - 95 % intervals (1,000 draws) of ``attributed`` and ``among3_attributed``: M4 resamples texts
    (each text answers its own prompt), blogs resample whole blogs (an author's posts are not
    independent).
- Reported whatever they show; a figure of the shares per group.

Added after the first run (M4 only, before the blogs were collected), descriptive, nothing chosen on
them: ``--arena`` adds a reference group, the assistants' answers to Arena-Hard-Auto's half-B prompts
(``external_answers.read_answers``; never trained on), with ``attributed_right`` (told the right
assistant); and every group gets ``among3_reads_other``, the share told one of the three under
``--among`` whose result also says "without that assumption it reads as OTHER" (the four-way top
label is OTHER), the note ``predict`` adds since this benchmark's first run. Later the same day, also
descriptive: ``attributed_tells``, the top three tells of the people's texts told an assistant (which
cues, and how many are marked fragile).

::

    OMP_NUM_THREADS=1 python benchmarks/human_texts.py --m4 /tmp/m4 --blogs results/human_texts/blogs.tsv \\
        --arena /tmp/arena/data/arena-hard-v0.1/model_answer --out results/human_texts \\
        --figure docs/figures/human_texts.png
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from external_answers import N_BOOT
from trial_noise import topic_weights, weighted_mean

from whowrote.cli.decoding import decode
from whowrote.data.generate.store import atomic_write
from whowrote.types import LABELS, OTHER

THREE = tuple(c for c in LABELS if c != OTHER)
M4_SOURCES = {"eli5": "Reddit ELI5 answers", "wikihow": "WikiHow articles",
              "wikipedia-20220301.en": "Wikipedia articles", "arxiv": "arXiv abstracts"}


def read_m4(folder: Path) -> list[dict]:
    """One dict per text: ``text``, ``writer`` (``human`` / ``llama-2-70b-chat``), ``source``, ``cluster``."""
    rows = []
    for path in sorted(folder.glob("*_llama2.jsonl")):
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f):
                r = json.loads(line)
                source = M4_SOURCES.get(r["source"], r["source"])
                rows.append({"text": r["human_text"], "writer": "human", "source": source, "cluster": f"{path.stem}:{i}"})
                rows.append({"text": r["machine_text"], "writer": r["model"], "source": source, "cluster": f"{path.stem}:{i}"})
    return rows


def read_blogs(manifest: Path, mirror: Path) -> list[dict]:
    """One dict per post of the manifest: its file at its commit in the blog's mirror (a bare git
    directory, ``<mirror>/<owner>+<name>/repo``), checked against its sha256 and decoded as
    ``predict`` decodes a file."""
    rows = []
    with open(manifest, encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            where = f"{r['repo']}@{r['commit'][:7]}:{r['path']}"
            git_dir = mirror / r["repo"].replace("/", "+") / "repo"
            got = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{r['commit']}:{r['path']}"],
                                 capture_output=True, check=False)
            if got.returncode or hashlib.sha256(got.stdout).hexdigest() != r["sha256"]:
                sys.exit(f"error: {where}: not in the mirror or changed (fetch github:{r['repo']})")
            item = decode(got.stdout, where)
            if item.error:
                sys.exit(f"error: {where}: {item.error}")
            rows.append({"text": item.text, "writer": "human", "source": f"blog: {r['blog']}", "cluster": r["blog"],
                         "date": r["date"]})
    return rows


def read_arena(folder: Path) -> list[dict]:
    """The assistants' answers to Arena-Hard-Auto's half-B prompts (the reference group)."""
    from external_answers import read_answers

    frame = read_answers(folder)
    frame = frame[~frame.half_a & (frame.provider != OTHER)]
    return [{"text": t, "writer": p, "source": "assistants: Arena-Hard half B", "cluster": q}
            for t, p, q in zip(frame.text, frame.provider, frame.question, strict=True)]


def told(a) -> bool:
    """The user is told one of the three assistants wrote it (the protocol's ``attributed``)."""
    return not a.uncertain and a.provider in THREE


def shares(found: list, among3: list, threshold: float, writers: list[str]) -> dict:
    """The group's numbers (see the protocol)."""
    n = len(found)
    called = {c: sum(a.provider == c for a in found) / n for c in LABELS}
    attributed = np.array([told(a) for a in found])
    return {"n": n, "words_median": float(np.median([a.n_words for a in found])),
            "attributed": float(attributed.mean()),
            "attributed_confident": float(np.mean([bool(x) and a.confidence >= 0.9 for x, a in zip(attributed, found, strict=True)])),
            "attributed_by_label": {c: float(np.mean([not a.uncertain and a.provider == c for a in found])) for c in THREE},
            "other": float(np.mean([not a.uncertain and a.provider == OTHER for a in found])),
            "uncertain": float(np.mean([a.uncertain for a in found])), "called": called,
            "p_other": float(np.mean([a.probabilities[OTHER] for a in found])),
            "distance_median": float(np.median([a.distance for a in found])),
            "beyond_distance": float(np.mean([a.distance > threshold for a in found])),
            "among3_attributed": float(np.mean([not a.uncertain for a in among3])),
            "among3_reads_other": float(np.mean([not b.uncertain and a.provider == OTHER
                                                 for a, b in zip(found, among3, strict=True)])),
            "attributed_right": float(np.mean([not a.uncertain and a.provider == w
                                               for a, w in zip(found, writers, strict=True)]))}


def interval(flags: np.ndarray, clusters: np.ndarray) -> list[float] | None:
    """95 % interval resampling ``clusters``; None for one cluster (one blog: no resampling)."""
    if len(set(clusters.tolist())) < 2:
        return None
    boot = weighted_mean(flags, topic_weights(clusters, N_BOOT, np.random.default_rng(0)))
    return [round(float(v), 4) for v in np.percentile(boot, (2.5, 97.5))]


def figure(groups: dict, out: Path) -> None:
    """Per group: the shares attributed to each assistant, called OTHER and uncertain (bars), and
    the share attributed under ``--among`` the three (dots)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(groups)
    fig, ax = plt.subplots(figsize=(10, 0.34 * len(names) + 1.6))
    y = np.arange(len(names))
    left = np.zeros(len(names))
    colours = {"CLAUDE": "#d97757", "CHATGPT": "#10a37f", "GEMINI": "#4285f4"}
    for c in THREE:
        vals = np.array([groups[g]["attributed_by_label"][c] for g in names])
        ax.barh(y, vals, left=left, color=colours[c], label=f"told {c}")
        left += vals
    for key, colour, label in (("other", "#999999", "told OTHER"), ("uncertain", "#dddddd", "uncertain")):
        vals = np.array([groups[g][key] for g in names])
        ax.barh(y, vals, left=left, color=colour, label=label)
        left += vals
    ax.plot([groups[g]["among3_attributed"] for g in names], y, "kx", label="told one of the three\nwith --among the three")
    ax.set_yticks(y)
    ax.set_yticklabels([f"{g} ({groups[g]['n']})" for g in names], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of texts")
    ax.set_title("Texts by people (and LLaMA-2-70B-chat): what the bundled model tells the user", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--m4", type=Path, required=True, help="folder of M4's *_llama2.jsonl files")
    ap.add_argument("--blogs", type=Path, default=None, help="the blog posts' manifest (results/human_texts/blogs.tsv)")
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where the blogs' repositories are mirrored")
    ap.add_argument("--arena", type=Path, default=None, help="Arena-Hard-Auto's model_answer folder (reference group)")
    ap.add_argument("--model", default=None, help="a model directory (default: the bundled model)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--figure", type=Path, default=None, help="also write the figure here")
    args = ap.parse_args()
    from whowrote.style import load_model

    t0 = time.time()
    rows = read_m4(args.m4) + (read_blogs(args.blogs, args.mirror) if args.blogs else []) + (read_arena(args.arena) if args.arena else [])
    if not rows:
        sys.exit("error: no texts read")
    model = load_model(args.model)
    texts = [r["text"] for r in rows]
    found = model.attribute(texts, n_tells=0)
    among3 = model.attribute(texts, n_tells=0, among=THREE)
    print(f"{len(rows):,} texts scored twice ({time.time() - t0:.0f} s)", file=sys.stderr)
    writer = np.array([r["writer"] for r in rows])
    source = np.array([r["source"] for r in rows])
    clusters = np.array([r["cluster"] for r in rows])
    masks = {}
    blog = np.char.startswith(source.astype(str), "blog: ")
    for who, prefix in (("human", "people"), ("llama-2-70b-chat", "LLaMA-2-70B-chat")):
        m4 = (writer == who) & ~blog
        if m4.any():
            masks[f"{prefix}: M4, all"] = m4
            masks.update({f"{prefix}: {s}": m4 & (source == s) for s in M4_SOURCES.values() if (m4 & (source == s)).any()})
    if blog.any():
        masks["people: blogs, all"] = blog
        masks.update({s: source == s for s in sorted(set(source[blog].tolist()))})
    if args.arena:
        masks["assistants: Arena-Hard half B"] = source == "assistants: Arena-Hard half B"
    groups = {}
    threshold = float(model.ood_threshold_)
    for name, m in masks.items():
        idx = np.flatnonzero(m)
        g = shares([found[i] for i in idx], [among3[i] for i in idx], threshold, writer[idx].tolist())
        flags = np.array([told(found[i]) for i in idx])
        flags3 = np.array([not among3[i].uncertain for i in idx])
        g["attributed_ci"] = interval(flags, clusters[idx])
        g["among3_attributed_ci"] = interval(flags3, clusters[idx])
        groups[name] = g
        print(f"{name} (n {g['n']}): attributed {g['attributed']:.3f} {g['attributed_ci']}, OTHER {g['other']:.3f}, "
              f"uncertain {g['uncertain']:.3f}, >=0.9 attributed {g['attributed_confident']:.3f}, "
              f"among-3 attributed {g['among3_attributed']:.3f} (reads OTHER {g['among3_reads_other']:.3f})",
              file=sys.stderr)
    people = [i for i, a in enumerate(found) if writer[i] == "human" and told(a)]
    named = model.attribute([texts[i] for i in people], n_tells=3)
    cues = Counter(f"{a.provider}: {t.feature}" for a in named for t in a.tells)
    result = {"model": args.model or "bundled", "distance_threshold": threshold, "groups": groups,
              "attributed_tells": {"texts": len(named), "tells": sum(len(a.tells) for a in named),
                                   "fragile": sum(t.fragile for a in named for t in a.tells),
                                   "texts_with_a_fragile_tell": sum(any(t.fragile for t in a.tells) for a in named),
                                   "cues": dict(cues.most_common(15))},
              "seconds": round(time.time() - t0, 1)}
    print(f"people's texts told an assistant: {result['attributed_tells']}", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(result, indent=1) + "\n")
    if args.figure:
        figure(groups, args.figure)


if __name__ == "__main__":
    main()
