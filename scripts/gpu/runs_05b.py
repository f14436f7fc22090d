"""A session's result folders for the 05b layout, read into one ``Run`` per training run or eval.

Every run under the roots is found from its files: a folder with ``metrics.jsonl`` is a training run
(its k = 4 eval of the final weights in ``eval_k4*/summary.json``, the last by name when there are
several, leaving out evals of other splits: ``run.json``'s ``split`` not the val), a folder with
``summary.json`` or ``run.json`` elsewhere is an eval of its own (a base model, or a run's
internalization check). A root's session is the ``sessionN`` folder in its path, else
``BASE_SESSION``; ``ROOT=LABEL`` names it instead. A missing or unreadable file reads as ``None``
(or no records), never a crash. ``summarize_05b.py`` renders the table and figures from these.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# results/ folders outside a sessionN/ folder hold session 4's runs (docs/gpu-notes.md, "Session 4 → Log")
BASE_SESSION = "4"
ARMS = {"star": "STaR traces", "tells": "style-model tells", "fallback": "fallback sentence",
        "tellsall": "tells of every train text", "base": "none, the base model"}
NAMES = [  # (path pattern relative to its root, row name), in table order
    (r"base_eval_3way", "1. base (3-way prompt)"),
    (r"base_eval_answer_only", "1b. base (answer-only prompt)"),
    (r"sft_answer_only", "2. answer-only SFT"),
    (r"grpo_base", "3. GRPO from base"),
    (r"cs_(?P<arm>\w+?)/sft", "4. cold-start SFT ({arm})"),
    (r"cs_(?P<arm>\w+?)/grpo_s(?P<seed>\d+)(?:_lr(?P<lr>[0-9.e+-]+?))?(?P<tag>_[a-z]\w*)?",
     "5. cold start ({arm}) -> GRPO, seed {seed}{lr}{tag}"),
    (r"opcd", "R1. OPCD"),
    (r"rlsd", "R2. RLSD"),
    (r"rlsd_unscored", "R2b. RLSD, research reward (cut-off completions scored)"),
    (r"rlsd_anchored", "R3. RLSD-anchored"),
    (r"cheatsheet_grpo", "R4. cheatsheet GRPO"),
    (r"pureacc_grpo", "R5. pure-accuracy GRPO"),
]


@dataclass
class Run:
    name: str
    session: str
    order: tuple
    path: Path
    summary: dict | None = None  # the k = 4 eval (or the eval itself for an eval-only row)
    records: list[dict] = field(default_factory=list)
    final_eval: dict | None = None
    train_result: dict | None = None
    trained: bool = True  # False: an eval-only row (no metrics.jsonl)
    inner: bool = False  # in-loop evals on the inner val of train (scripts/gpu/inner_split.py), not on val

    @property
    def evals(self) -> list[dict]:
        by_step = {r["step"]: r for r in self.records
                   if r.get("kind") == "eval" and isinstance(r.get("accuracy"), (int, float))}
        return [by_step[s] for s in sorted(by_step)]  # a resumed run re-evaluates a step: the last wins

    def train_values(self, key: str) -> dict[int, float]:
        """``{step: value}`` of one train metric, in step order. Only records that carry it: TRL's
        end-of-training summary shares the last step's number and has none, so keying every record by
        step would drop that step; a step logged twice (a resumed run): the last wins."""
        values = {r["step"]: float(r[key]) for r in self.records
                  if r.get("kind") == "train" and isinstance(r.get(key), (int, float))}
        return dict(sorted(values.items()))


def read_json(p: Path) -> dict | None:
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def read_jsonl(p: Path) -> list[dict]:
    """The records of a metrics.jsonl; a torn line (a run killed mid-write) is left out."""
    out = []
    try:
        lines = p.read_text(encoding="utf-8", errors="replace").split("\n")  # JSONL: "\n" only, as every reader here
    except OSError:
        return out
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict) and isinstance(r.get("step"), int):
            out.append(r)
    return out


def session_of(root: str) -> tuple[Path, str]:
    path, _, label = root.partition("=")
    if label:
        return Path(path), label
    m = [re.fullmatch(r"session(\d+)", part) for part in Path(path).parts]
    found = [x.group(1) for x in m if x]
    return Path(path), (found[-1] if found else BASE_SESSION)


def name_of(rel: str) -> tuple[tuple, str]:
    for i, (pat, name) in enumerate(NAMES):
        m = re.fullmatch(pat, rel)
        if m:
            g = m.groupdict()
            arm, lr = g.get("arm", ""), g.get("lr") or ""
            key = (i, list(ARMS).index(arm) if arm in ARMS else len(ARMS), arm, int(g.get("seed") or 0),
                   float(lr or 0))
            tag = g.get("tag") or ""  # QWEN_ARM_TAG: a settings variant of the same arm and seed
            return key + (tag,), name.format(arm=ARMS.get(arm, arm), seed=g.get("seed"), lr=f", lr {lr}" if lr else "",
                                             tag=f" ({tag[1:]})" if tag else "")
    return (len(NAMES), 0, rel, 0, 0.0, ""), rel


def inner_val(run_dir: Path) -> bool:
    """Whether the run's in-loop evals read the inner val (its resolved config names the file)."""
    for cfg in run_dir.glob("config.*.toml"):
        try:
            text = cfg.read_text()
        except OSError:
            continue
        if re.search(r'^val = ".*inner_val\.jsonl(\.gz)?"$', text, flags=re.MULTILINE):
            return True
    return False


def on_val(eval_dir: Path) -> bool:
    """An eval of the ladder's val, not of an edited copy or another genre (``QWEN_SPLITS``'s evals)."""
    split = str((read_json(eval_dir / "run.json") or {}).get("split") or "val.jsonl")
    return Path(split).name in ("val.jsonl", "val.jsonl.gz")


def current_result(result: dict | None, records: list[dict]) -> dict | None:
    """A run's ``train_result.<stage>.json``, unless its records go on past the file's
    ``global_step``: then a later call resumed the run and did not finish it, and the file is the
    earlier call's (stale), so the run has no final weights."""
    steps = [r["step"] for r in records if r.get("kind") in ("train", "start") and isinstance(r.get("step"), int)]
    if result is not None and isinstance(result.get("global_step"), int) and steps and max(steps) > result["global_step"]:
        return None
    return result


def discover(root: Path, session: str) -> list[Run]:
    runs: dict[Path, Run] = {}
    for m in sorted(root.rglob("metrics.jsonl")):
        d = m.parent
        order, name = name_of(d.relative_to(root).as_posix())
        ks = [p for p in sorted(d.glob("eval_k4*/summary.json")) if on_val(p.parent)]
        tr = sorted(d.glob("train_result.*.json"))
        records = read_jsonl(m)
        runs[d] = Run(name, session, order, d, read_json(ks[-1]) if ks else None, records,
                      read_json(d / "final_eval.json"),
                      current_result((read_json(tr[-1]) or {}) if tr else None, records), inner=inner_val(d))
    evals = {p.parent for pat in ("summary.json", "run.json") for p in root.rglob(pat)}
    for d in sorted(evals):
        if d in runs or d.name.startswith("eval_k4") and d.parent in runs or "logs" in d.relative_to(root).parts:
            continue
        owner = next((a for a in d.parents if a in runs), None)
        if owner is not None:  # an eval inside a run (the cheatsheet's internalization check)
            sub = d.relative_to(owner).as_posix().replace("_", " ")
            order, name = (*runs[owner].order, sub), f"{runs[owner].name}: {sub}"
        else:
            order, name = name_of(d.relative_to(root).as_posix())
        runs[d] = Run(name, session, order, d, read_json(d / "summary.json"), trained=False)
    return list(runs.values())


def collect(roots: list[str]) -> list[Run]:
    runs: list[Run] = []
    for root in roots:
        path, session = session_of(root)
        if not path.is_dir():
            raise SystemExit(f"error: {path} is not a folder of results")
        runs += discover(path, session)
    return sorted(runs, key=lambda r: (r.order, session_key(r.session)))


def session_key(s: str) -> tuple:
    return (0, int(s), s) if s.isdigit() else (1, 0, s)
