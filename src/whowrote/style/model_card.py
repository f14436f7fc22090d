"""The bundled model's card (``MODEL_CARD.md``): Hugging Face YAML header, data, recipe, measured
numbers in numeric order, and the limits stated plainly."""

from __future__ import annotations

from typing import Any

from whowrote.style.edits import edits as edit_names
from whowrote.style.heldout import LOGO_SCORES

_WEIGHTING = {
    "cell": "Rows are weighted so each (genre, provider) cell counts equally.",
    "sqrt": ("A row weighs 1 / sqrt(texts in its genre x texts in its (genre, provider) cell): halfway "
             "(geometrically) between balancing genres and balancing every (genre, provider) cell."),
}


def _f(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) and v == v else "—"


def _header(model) -> str:
    m = model.metrics_.get("topic_holdout_val") or {}
    lg = model.metrics_.get("leave_one_genre_out") or {}
    results = [("accuracy", "topic hold-out (in-genre)", m.get("accuracy")),
               ("accuracy", "leave-one-genre-out, 4-way (mean over genres)", lg.get("mean_accuracy")),
               ("accuracy", "leave-one-genre-out, 3-way (mean over genres)", lg.get("mean_accuracy_3way"))]
    lines = [f"  - type: {t}\n    name: {name}\n    value: {v:.4f}" for t, name, v in results if v is not None]
    return ("---\nlicense: apache-2.0\nlanguage:\n- en\nlibrary_name: whowrote\npipeline_tag: text-classification\n"
            "tags:\n- authorship-attribution\n- ai-text-detection\n- stylometry\n- scikit-learn\n"
            "metrics:\n- accuracy\n- ece\nmodel-index:\n- name: whowrote-style-default\n  results:\n"
            "  - task:\n      type: text-classification\n    metrics:\n" + "\n".join(
                "  " + ln.replace("\n", "\n  ") for ln in lines) + "\n---\n\n")


def model_card(model) -> str:
    t = model.training_
    counts = "\n".join(f"| {k.split('/')[0]} | {k.split('/')[1]} | {v} |" for k, v in sorted(t.get("counts", {}).items()))
    m = model.metrics_.get("topic_holdout_val") or {}
    per_genre = "\n".join(f"| {g} | {v['n']} | {v['accuracy']:.3f} |" for g, v in sorted(m.get("per_genre", {}).items()))
    fo = model.metrics_.get("length_falloff") or {}
    falloff = "\n".join(f"| {n} | {a:.3f} |" for n, a in sorted(fo.items(), key=lambda kv: int(kv[0])))
    lg = model.metrics_.get("leave_one_genre_out") or {}
    logo = "\n".join(f"| {g} | {v['n']} | " + " | ".join(_f(v.get(k)) for k in LOGO_SCORES) + " |"
                     for g, v in sorted(lg.items()) if isinstance(v, dict) and "n" in v)
    logo += ("\n| **mean** | | " + " | ".join(_f(lg.get(f"mean_{k}")) for k in LOGO_SCORES) + " |") if lg else ""
    edit_rows = [("topic hold-out", model.metrics_.get("topic_holdout_edits") or {})]
    edit_rows += [(f"LOGO {g}", v) for g, v in sorted((lg.get("edits") or {}).items())]
    names = [e for e in edit_names() if any(e in r for _, r in edit_rows)]
    edits = "\n".join(f"| {name} | " + " | ".join(_f(r.get(e, {}).get("accuracy")) for e in names) + " |"
                      for name, r in edit_rows if r)
    files = ", ".join(f"`{f['name']}` (sha256 {f['sha256'][:12]}…)" for f in t.get("files", []))
    aug = t.get("augmentation") or {}
    return _header(model) + f"""# whowrote default style model

**What it does.** Names the assistant that wrote an English text: CLAUDE, CHATGPT, GEMINI, or
OTHER (another model), from {len(model.feature_names_)} stylometric features (`{model.feature_set}` set) of the text's
canonical form (quotes, apostrophes and dashes in ASCII, lower case, `\\n` line endings without trailing
spaces: {"yes" if model.canonical else "no"}; "* ", "+ " and "- " bullets read alike: {"yes" if model.canonical_lists else "no"}){_invariant(model)}. Weighted average of a standardised logistic
regression (C={model.C}, weight {1 - model.tree_weight:.2f}) and gradient-boosted trees ({model.tree_iter} rounds,
{model.tree_leaves} leaves, weight {model.tree_weight:.2f}{_blend(model)}). {_copies(aug)}

**Calibrated for texts like and unlike the training data.** The temperature grows with the text's
distance d to the training data: T(d) = {model.temperature_:.3f} × (1 + d)^{getattr(model, "temperature_slope_", 0.0):.3f}, so texts
like the training data get sharp probabilities and texts unlike it soft ones. It was fitted on
out-of-genre predictions (every genre predicted by a model trained without it) together with
in-genre ones (topics held out). The abstain threshold (top probability below
{model.abstain_below_:.3f}: "uncertain") and the distance threshold (a text farther than {model.ood_threshold_:.2f} from every
training (genre, provider) cell: "uncertain") were fitted on the out-of-genre predictions. Texts
under {model.min_words} words are always "uncertain".

**Data.** {t.get('n_texts', '?')} texts, seed {t.get('seed')}: {files}. {_WEIGHTING[model.weighting]}

| genre | provider | texts |
|---|---|---:|
{counts}

**Measured in-genre (topics held out; trained on the train split only).** Accuracy
{_f(m.get("accuracy"))}, macro-F1 {_f(m.get("macro_f1"))}, ECE {_f(m.get("ece"))}, OTHER-vs-three AUROC {_f(m.get("other_auroc"))}.

| genre | val texts | accuracy |
|---|---:|---:|
{per_genre}

**Accuracy by length** (the same val texts cut to their first N words):

| words | accuracy |
|---:|---:|
{falloff}

**Measured across genres (leave one genre out: trained on the others, tested on it).** 3-way is
the most probable of CLAUDE/CHATGPT/GEMINI on those providers' texts; ECE with the calibration the
genre would get from the other genres' predictions only. The last three columns read the
assistants' texts `--among CLAUDE,CHATGPT,GEMINI` (the probabilities conditioned on the three).

| held-out genre | texts | 4-way accuracy | 3-way accuracy | OTHER AUROC | ECE | coverage | accuracy when not "uncertain" | among 3: ECE | coverage | accuracy when not "uncertain" |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{logo}

**Under everyday edits** (4-way accuracy on up to 400 held-out texts per test set; the same model
for every edit):

| test set | {" | ".join(names)} |
|---|{"---:|" * len(names)}
{edits}

Robustness to everyday edits, leave-one-generation-out and selective accuracy: `docs/predict.md`
(`benchmarks/robustness.py`).

**Limits — read before trusting a verdict.**
- Trained on the model generations in the corpus: Claude 1 to Opus 4.8, GPT-3.5 to GPT-5.5,
  Gemini 1.0 Pro to 3.1 Pro; a newer release may write differently (retrain with `whowrote data
  generate` + `train-probe`).
- Genres: blog posts, debate speeches, fiction, novella chapters and planning notes, chat answers.
  No GEMINI blog posts were in the training data.
- OTHER covers only the open models in the corpus; an unseen model or a human writer may be
  forced onto one of the four labels (watch "uncertain" and the distance warning).
- Markdown structure is real evidence but fragile: a text pasted as plain text loses it (such
  tells are marked `fragile`). English only.
"""


def _invariant(model) -> str:
    """Which edits the reading makes harmless: only those its canonical form and list reading cover."""
    edits = [*(["typography", "case", "line-ending"] if model.canonical else []),
             *(["list-marker"] if model.canonical_lists else [])]
    if not edits:
        return ""
    named = edits[0] if len(edits) == 1 else ", ".join(edits[:-1]) + " or " + edits[-1]
    return f",\nso a {named} edit cannot change the verdict"


def _blend(model) -> str:
    """The second, large-leaf ensemble in words, if the model has one (older models: none)."""
    n = getattr(model, "blend_iter", 0)
    if not n:
        return ""
    return (f"; their class scores averaged with those of {n} rounds of trees with at least "
            f"{model.blend_min_samples_leaf} training rows a leaf")


def _copies(aug: dict) -> str:
    """The training copies in words (``copies``: one edit group per copy; older models: ``edits``), and
    the genres also trained with blank lines between paragraphs (``blank_line_genres``, session 58)."""
    groups = aug.get("copies") or ([aug["edits"]] if aug.get("edits") else [])
    what = "; ".join(", ".join(g) for g in groups)
    if not groups:
        out = "No edited training copies."
    elif len(groups) == 1:
        out = f"Each training text also has one edited copy (weight {aug.get('weight', '—')}: {what}, one chosen at random per text)."
    else:
        out = (f"Each training text also has {len(groups)} edited copies (weight {aug.get('weight', '—')} each: {what}; "
               "each copy's edit chosen at random per text from its group).")
    if aug.get("blank_line_rows"):
        genres = list(aug.get("blank_line_genres", []))
        why = " (one claim a line, the debate benchmark's format)" if genres == ["debate"] else ""  # known of debate only
        out += (f" The {aug['blank_line_rows']} texts of {', '.join(genres)}{why} also train with blank lines "
                "between paragraphs, as a second row each (the genre weighs as before).")
    return out

