"""Packaging a trained checkpoint as a Hugging Face model folder (research spec §4, capability 18).

``package_checkpoint(CKPT, OUT)`` writes a folder that ``AutoModelForCausalLM.from_pretrained``
and vLLM load as it is:

- the weights as safetensors (loaded and re-saved, so a Trainer ``checkpoint-N`` folder loses its
  optimizer/RNG files and a pickle ``.bin`` becomes safetensors);
- the tokenizer with its chat template; ``tokenizer_from`` backfills it from the base model when
  the checkpoint lacks one (spec §3.1: saved Qwen3.5 checkpoints lacked the processor files);
- ``generation_config.json`` carrying the eval's sampling settings (temperature 0.7, top_p 0.95);
- ``README.md``, a model card with the Hub's YAML header: the data, the recipe (the run's resolved
  ``config.<stage>.toml``), the metrics (``final_eval.json`` or an eval ``summary.json``) and the
  command that evaluates the packaged model;
- ``whowrote_package.json``: the same facts, machine-readable.

The folder is assembled in a temporary directory next to ``OUT`` and renamed into place, so an
interrupted run leaves nothing half-written. :func:`push_to_hub` uploads it with
``huggingface_hub`` (the only network step; never called by the tests).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from whowrote.types import WhowroteError

PACKAGE_INFO = "whowrote_package.json"


@dataclass
class Sampling:
    """What the research evals sampled with (spec §4.2): written into generation_config.json."""

    temperature: float = 0.7
    top_p: float = 0.95
    max_new_tokens: int = 4096


@dataclass
class RunFacts:
    """What the card says: found next to the checkpoint, or given explicitly."""

    recipe: str = ""  # e.g. "grpo" (the stage of the config file found)
    config: dict[str, Any] = field(default_factory=dict)  # the run's resolved TOML config
    metrics: dict[str, Any] = field(default_factory=dict)  # an eval summary (accuracy, recall, ...)
    metrics_source: str = ""


def find_run_facts(ckpt: Path, summary: Path | None = None) -> RunFacts:
    """The recipe config and metrics of the run ``ckpt`` came from (``final``/``best``/``checkpoint-N``
    sit inside the run's output dir), or of ``ckpt`` itself when it is a run dir."""
    facts = RunFacts()
    for run_dir in (ckpt, ckpt.parent):
        # the stage that finished here (it wrote train_result.<stage>.json), else the last config
        configs = sorted(run_dir.glob("config.*.toml"),
                         key=lambda c: ((run_dir / f"train_result.{c.name[7:-5]}.json").is_file(), c.name))
        if configs:
            facts.recipe = configs[-1].name[len("config."):-len(".toml")]
            try:
                facts.config = tomllib.loads(configs[-1].read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                raise WhowroteError(f"{configs[-1]}: invalid TOML ({e})") from None
            final_eval = run_dir / "final_eval.json"
            if final_eval.is_file() and summary is None:
                fe = _read_json(final_eval)
                which = "best" if ckpt.name == "best" and fe.get("best") else "final"
                facts.metrics, facts.metrics_source = fe.get(which) or {}, f"{final_eval.name} ({which})"
            break
    if summary is not None:
        facts.metrics, facts.metrics_source = _read_json(summary), summary.name
    return facts


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise WhowroteError(f"{path}: not a readable JSON file ({e})") from None
    if not isinstance(data, dict):
        raise WhowroteError(f"{path}: expected a JSON object")
    return data


def eval_command(out: Path | str, facts: RunFacts, sampling: Sampling) -> str:
    data = facts.config.get("data", {}) if isinstance(facts.config.get("data"), dict) else {}
    variant = (facts.config.get("eval") or {}).get("variant") or (facts.config.get("grpo") or {}).get("variant") or "3way"
    if facts.recipe.startswith("sft") and (facts.config.get("sft") or {}).get("target") == "answer_only":
        variant = "answer_only"
    split = data.get("val") or "splits/val.jsonl"
    return (f"whowrote eval --model {out} --split {split} --variant {variant} --k 4 "
            f"--temperature {sampling.temperature} --top-p {sampling.top_p} "
            f"--max-new-tokens {sampling.max_new_tokens} --out runs/eval-{Path(str(out)).name}")


def model_card(name: str, facts: RunFacts, sampling: Sampling, command: str, base_model: str = "") -> str:
    """README.md: the Hub's YAML header (license, tags, model-index with the metrics) and the body."""
    import yaml

    m = facts.metrics
    header: dict[str, Any] = {"library_name": "transformers", "pipeline_tag": "text-generation",
                              "license": "apache-2.0",
                              "tags": ["whowrote", "authorship-attribution", "ai-text-detection", "trl",
                                       *([facts.recipe] if facts.recipe else [])]}
    if base_model:
        header["base_model"] = base_model
    data = facts.config.get("data") or {}
    if "accuracy" in m:
        metrics = [{"type": "accuracy", "value": round(float(m["accuracy"]), 4), "name": "pass@1"}]
        metrics += [{"type": "recall", "value": round(float(m["macro_recall"]), 4), "name": "macro recall"}] \
            if m.get("macro_recall") is not None else []
        header["model-index"] = [{"name": name, "results": [{
            "task": {"type": "text-classification", "name": "AI-assistant attribution (CLAUDE/CHATGPT/GEMINI)"},
            "dataset": {"type": "whowrote-split", "name": Path(str(data.get("val") or "val")).name},
            "metrics": metrics}]}]
    lines = ["---", yaml.safe_dump(header, sort_keys=False).strip(), "---", "", f"# {name}", "",
             "Names the AI assistant (CLAUDE, CHATGPT or GEMINI) that wrote a text, with a short "
             "`<reason_why>` and an `<answer>`; trained with whowrote's `whowrote train`.", "", "## Data", ""]
    if data:
        lines += [f"- train: `{data.get('train')}`", f"- val: `{data.get('val')}`",
                  f"- labels: {', '.join(data.get('labels') or [])}; texts cut to {data.get('max_text_tokens')} tokens"]
    else:
        lines.append("- not recorded (no run config next to the checkpoint)")
    lines += ["- the texts are not included: the corpus carries no redistribution licence", ""]
    lines += ["## Recipe", "", f"`whowrote train {facts.recipe or '(unknown)'}`; the resolved config:", "", "```toml"]
    lines += [_toml_section(k, v) for k, v in facts.config.items() if isinstance(v, dict)] or ["# (not found)"]
    lines += ["```", "", "## Metrics", ""]
    if m:
        lines.append(f"From `{facts.metrics_source}`" + (f", step {m['step']}" if "step" in m else "") + ":")
        lines.append("")
        for key in ("n_examples", "k", "accuracy", "macro_recall", "parse_fail_rate", "truncation_rate"):
            if key in m:
                lines.append(f"- {key}: {m[key]}")
        for prov, row in (m.get("per_provider") or {}).items():
            lines.append(f"- recall {prov}: {row.get('recall')}")
    else:
        lines.append("No eval summary was found next to the checkpoint.")
    lines += ["", "## Sampling", "", f"`generation_config.json`: temperature {sampling.temperature}, "
              f"top_p {sampling.top_p}, up to {sampling.max_new_tokens} new tokens (the settings of the evals above).",
              "", "## Evaluate", "", "```bash", command, "```", ""]
    return "\n".join(lines)


def _toml_section(name: str, values: dict[str, Any]) -> str:
    body = "\n".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
    return f"[{name}]\n{body}"


def package_checkpoint(ckpt: str | Path, out: str | Path, *, summary: str | Path | None = None,
                       tokenizer_from: str | None = None, sampling: Sampling | None = None,
                       name: str = "", force: bool = False) -> Path:
    """Write the HF model folder for ``ckpt`` to ``out`` (see the module docstring); returns ``out``."""
    ckpt, out = Path(ckpt), Path(out)
    sampling = sampling or Sampling()
    if not (ckpt / "config.json").is_file():
        raise WhowroteError(f"{ckpt}: not a model checkpoint (no config.json)")
    if out.exists() and any(out.iterdir()) and not (force and (out / PACKAGE_INFO).is_file()):
        raise WhowroteError(f"{out}: exists and is not empty" + ("" if force else " (--force replaces an earlier package)"))
    facts = find_run_facts(ckpt, Path(summary) if summary else None)
    from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    try:
        model = AutoModelForCausalLM.from_pretrained(ckpt, dtype="auto")
        tok = AutoTokenizer.from_pretrained(tokenizer_from or ckpt)
    except (OSError, ValueError) as e:
        raise WhowroteError(f"cannot load {ckpt}: {str(e).splitlines()[0]}") from None
    if not getattr(tok, "chat_template", None):
        raise WhowroteError(f"{tokenizer_from or ckpt}: the tokenizer has no chat template; "
                            "pass --tokenizer-from BASE_MODEL")
    try:
        gen = GenerationConfig.from_pretrained(ckpt)
    except OSError:
        gen = GenerationConfig.from_model_config(model.config)
    gen.do_sample, gen.temperature, gen.top_p = True, sampling.temperature, sampling.top_p
    gen.max_new_tokens = sampling.max_new_tokens
    gen.eos_token_id = gen.eos_token_id if gen.eos_token_id is not None else tok.eos_token_id
    gen.pad_token_id = tok.pad_token_id if tok.pad_token_id is not None else gen.pad_token_id
    model.generation_config = gen
    base = str((facts.config.get("model") or {}).get("name_or_path") or "")
    name = name or out.name
    command = eval_command(out, facts, sampling)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        tok.save_pretrained(tmp)
        (tmp / "README.md").write_text(model_card(name, facts, sampling, command, base), encoding="utf-8")
        info = {"checkpoint": str(ckpt), "recipe": facts.recipe, "metrics_source": facts.metrics_source,
                "metrics": {k: facts.metrics.get(k) for k in ("accuracy", "macro_recall", "truncation_rate")
                            if k in facts.metrics}, "sampling": asdict(sampling), "eval_command": command}
        (tmp / PACKAGE_INFO).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)  # only an earlier package (checked above), only with force
        os.chmod(tmp, 0o755)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def push_to_hub(folder: str | Path, repo_id: str, *, private: bool = True, token: str | None = None,
                commit_message: str = "Upload whowrote model") -> str:
    """Create ``repo_id`` (if needed) and upload ``folder``; returns the commit URL."""
    folder = Path(folder)
    if not (folder / PACKAGE_INFO).is_file():
        raise WhowroteError(f"{folder}: not a packaged model (run `whowrote train package` first)")
    try:
        from huggingface_hub import HfApi
    except ImportError:
        raise WhowroteError("--push-to-hub needs `pip install huggingface_hub`") from None
    api = HfApi(token=token)
    try:
        api.create_repo(repo_id=repo_id, repo_type="model", private=private, exist_ok=True)
        info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="model",
                                 commit_message=commit_message)
    except Exception as e:  # network, auth, bad repo id: one line, never a traceback
        raise WhowroteError(f"push to {repo_id} failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    return str(getattr(info, "commit_url", info))
