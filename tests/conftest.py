"""Shared fixtures: the real corpus in ../shared/corpus (read at run time, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("WHOWROTE_SHARED", REPO.parent / "shared"))
CORPUS_DIR = SHARED / "corpus"
CORPUS_FILES = {stem: CORPUS_DIR / f"{stem}.jsonl" for stem in ("blogs", "debates", "fiction", "longform")}

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


# The slowest real-data tests of other parts (from `pytest --durations=40` on the 2-core machine),
# marked slow here so that `make test-fast` (-m "not slow") skips them; `make test` and CI run all.
# tests/data marks its own with decorators; an owner may move an entry here to a decorator.
SLOW_TESTS = (
    "tests/study/test_run_study.py::",  # one study run shared by the module: 129 s setup
    "tests/style/test_model.py::test_fit_predict_proba_shapes",  # these share an 80 s fit
    "tests/style/test_model.py::test_texts_and_matrix_inputs_agree",
    "tests/style/test_model.py::test_save_load_round_trip_is_exact_and_pickle_free",
    "tests/style/test_model.py::test_tree_export_matches_sklearn",  # 49 s
    "tests/style/test_cli.py::test_train_probe_writes_a_loadable_model",  # 52 s
    "tests/llm/test_eval_backend_transformers.py::test_packaged_smollm2_gguf_loads_dequantized",  # 78 s
    "tests/train/test_sft.py::test_answer_only_sft_memorises_and_evaluates",  # 62 s
    "tests/train/test_sft.py::test_resume_reproduces_the_uninterrupted_run",  # 37 s
    "tests/train/test_star.py::test_star_generation_and_coldstart_end_to_end",  # 35 s
    "tests/train/test_grpo.py::test_reward_signal_updates_weights_and_guard_stops",  # 33 s
    "tests/train/test_grpo.py::test_zero_advantage_gives_no_update",  # 25 s
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def corpus_files() -> dict[str, Path]:
    missing = [str(p) for p in CORPUS_FILES.values() if not p.exists()]
    if missing:
        pytest.fail(f"shared corpus missing: {missing}")
    return CORPUS_FILES


@pytest.fixture(scope="session")
def corpus_sample(corpus_files):
    """``sample([(stem, n), ...])``: ``n`` raw texts of each ``../shared/corpus/<stem>.jsonl``, drawn
    with ``random.Random(stem)`` (the same texts, in the same order, every run)."""
    import json
    import random

    corpus_dir = next(iter(corpus_files.values())).parent

    def sample(counts) -> list[str]:
        out: list[str] = []
        for stem, n in counts:
            with open(corpus_dir / f"{stem}.jsonl", encoding="utf-8") as f:
                rows = [json.loads(line) for line in f]
            out += [r.get("text") or r.get("content") or "" for r in random.Random(stem).sample(rows, n)]
        return out

    return sample


@pytest.fixture(scope="session")
def corpus(corpus_files):
    """All four shared corpus files as one clean table (loaded once per session)."""
    from whowrote.data import load_corpus

    return load_corpus(list(corpus_files.values()))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny random chat model built offline (whowrote.train.tiny), once per session, for the
    training and research-recipe tests."""
    from whowrote.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture
def run_cli(capsys):
    """``run_cli(ARGS)`` runs ``whowrote ARGS`` in this process: ``(exit status, stderr)``."""
    from whowrote.cli import main

    def run(args: list[str]) -> tuple[int, str]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as e:
            main(args)
        return e.value.code or 0, capsys.readouterr().err

    return run


@pytest.fixture
def cli_fails(run_cli):
    """``cli_fails(ARGS)`` runs ``whowrote ARGS`` in this process and returns its error line, asserting
    exit status 1, exactly one line on stderr and no traceback."""

    def run(args: list[str]) -> str:
        code, err = run_cli(args)
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        return err

    return run
