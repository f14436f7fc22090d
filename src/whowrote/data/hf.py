"""Splits in Hugging Face's shapes: one ``DatasetDict``, a dataset card that ``load_dataset`` reads,
and ``push_to_hub``.

- ``hf/`` is ``DatasetDict({"train", "validation", "val_ood"}).save_to_disk`` (``logo``: one
  ``hf/<genre>/`` DatasetDict with ``train`` and ``test`` per held-out genre), so
  ``load_from_disk("DIR/hf")`` gives the three splits;
- ``README.md`` carries the card's YAML ``configs:`` (``data_files`` per split), which
  ``load_dataset("DIR")`` honours: the same three splits, instead of globbing every ``*.jsonl``
  and merging ``val`` and ``val_ood`` into one "validation" split.

Our split ``val`` is called ``validation`` here, as the ecosystem expects.
"""

from __future__ import annotations

from pathlib import Path

from whowrote.data.extra import DATA_EXTRA
from whowrote.types import WhowroteError


def hf_available() -> bool:
    try:
        import datasets  # noqa: F401
    except ImportError:
        return False
    return True


def require_datasets(what: str):
    try:
        import datasets
    except ImportError:
        raise WhowroteError(f"{what} needs the `datasets` library: {DATA_EXTRA}") from None
    return datasets


def config_and_split(name: str) -> tuple[str, str]:
    """``"val"`` -> ``("default", "validation")``; ``"blog/test"`` -> ``("blog", "test")``."""
    config, _, split = name.rpartition("/")
    return config or "default", "validation" if split == "val" else split


def save_dataset_dicts(qa: dict[str, list[dict]], folder: Path) -> None:
    """``qa`` (split name -> question/answer/info rows) as DatasetDict folders under ``folder``."""
    datasets = require_datasets("the hf format")
    datasets.disable_progress_bars()  # the CLI shows its own progress
    by_config: dict[str, dict] = {}
    for name, rows in qa.items():
        config, split = config_and_split(name)
        by_config.setdefault(config, {})[split] = datasets.Dataset.from_list(rows)
    for config, parts in by_config.items():
        datasets.DatasetDict(parts).save_to_disk(str(folder if config == "default" else folder / config))


def dataset_card(split_names: list[str], info: dict) -> str:
    """README.md text: YAML ``configs`` pointing at ``qa/<split>.jsonl``, then a short description
    with the row counts."""
    import yaml

    configs: dict[str, list[dict]] = {}
    for name in split_names:
        config, split = config_and_split(name)
        configs.setdefault(config, []).append({"split": split, "path": f"qa/{name}.jsonl"})
    header = {"configs": [{"config_name": c, "data_files": files} for c, files in configs.items()],
              "tags": ["whowrote", "authorship-attribution"]}
    counts = info.get("splits", {})
    lines = ["---", yaml.safe_dump(header, sort_keys=False).rstrip(), "---", "",
             "# whowrote split", "",
             "Written by `whowrote data split`: texts held out by topic (and whole categories or genres "
             "for `val_ood`), so no prompt is in two splits. Row counts:", ""]
    lines += [f"- `{n}` ({'/'.join(config_and_split(n))}): {counts.get(n, {}).get('rows', '?')} rows"
              for n in split_names]
    lines += ["", "```python", "import datasets",
              'datasets.load_dataset("THIS_FOLDER")            # the splits above, one per config',
              'datasets.load_from_disk("THIS_FOLDER/hf")       # the same as a saved DatasetDict', "```", ""]
    return "\n".join(lines)


def push_to_hub(folder: Path, repo_id: str, private: bool = False) -> list[str]:
    """Push the DatasetDict(s) under ``folder/hf`` to ``repo_id`` (one hub config per folder)."""
    datasets = require_datasets("--push-to-hub")
    hf = Path(folder) / "hf"
    if (hf / "dataset_dict.json").exists():
        targets = {"default": hf}
    else:
        targets = {p.name: p for p in sorted(hf.iterdir()) if (p / "dataset_dict.json").exists()} if hf.is_dir() else {}
    if not targets:
        raise WhowroteError(f"{hf}: no saved DatasetDict to push (write the hf format)")
    pushed = []
    for config, path in targets.items():
        dd = datasets.load_from_disk(str(path))
        try:
            dd.push_to_hub(repo_id, config_name=config, private=private)
        except Exception as e:  # auth, network, bad repo id: one line each
            raise WhowroteError(f"push to {repo_id} failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None
        pushed.append(config)
    return pushed
