"""The distance-dependent temperature: its fit recovers a known T(d), stays flat when the distance
says nothing, and a model file carries it (format /3) while /2 files load with one temperature."""

from __future__ import annotations

import json

import numpy as np
import pytest

from whowrote.style.calibration import (
    expected_calibration_error,
    fit_distance_temperature,
    fit_shift_temperature,
    fit_temperature,
    scaled_softmax,
    softmax,
    temperatures,
)


def _sample(rng, n, t0, slope):
    """Logits, distances and labels drawn from softmax(logits / T(d))."""
    logits = rng.normal(0, 3, size=(n, 4))
    d = rng.gamma(2.0, 0.5, size=n)
    P = scaled_softmax(logits, temperatures(d, t0, slope))
    y = (P.cumsum(axis=1) > rng.random(n)[:, None]).argmax(axis=1)
    return logits, d, y


def test_fit_recovers_a_temperature_that_grows_with_distance():
    rng = np.random.default_rng(0)
    logits, d, y = _sample(rng, 6000, 0.7, 1.5)
    t0, slope = fit_distance_temperature(logits, d, y)
    assert t0 == pytest.approx(0.7, rel=0.15) and slope == pytest.approx(1.5, abs=0.25)
    # one temperature cannot be right near and far at once; T(d) is
    near, far = d < np.quantile(d, 0.3), d > np.quantile(d, 0.7)
    T = fit_temperature(logits, y)
    for rows in (near, far):
        fitted = expected_calibration_error(scaled_softmax(logits[rows], temperatures(d[rows], t0, slope)), y[rows])
        single = expected_calibration_error(softmax(logits[rows], T), y[rows])
        assert fitted < single


def test_slope_is_zero_when_distance_says_nothing_and_never_negative():
    rng = np.random.default_rng(1)
    logits, d, y = _sample(rng, 4000, 2.0, 0.0)
    t0, slope = fit_distance_temperature(logits, d, y)
    assert slope < 0.1 and t0 == pytest.approx(2.0, rel=0.15)
    # farther texts that are *more* often right would want a negative slope: it is clipped at 0
    logits2, d2, y2 = _sample(rng, 4000, 2.0, 0.0)
    _, slope2 = fit_distance_temperature(logits2, -d2 + d2.max(), y2)
    assert slope2 >= 0.0
    assert np.all(np.diff(temperatures(np.linspace(0, 5, 20), 0.8, 1.2)) > 0)


def test_shift_fit_weighs_the_in_genre_rows():
    rng = np.random.default_rng(2)
    lo, do, yo = _sample(rng, 3000, 0.8, 1.5)
    lo_far, do_far = lo, do + 2.0  # out-of-genre rows sit farther away
    li, di, yi = _sample(rng, 3000, 0.8, 1.5)
    t0, slope = fit_shift_temperature(lo_far, do_far, yo, li, di, yi)
    assert slope > 0.3
    assert fit_shift_temperature(lo, do, yo) == (pytest.approx(fit_temperature(lo, yo)), 0.0)


def test_model_files_carry_the_slope_and_older_files_load_with_one_temperature(tmp_path):
    from whowrote.style.io import DEFAULT_DIR, FORMAT, load_model

    def copy(edit):
        d = tmp_path / f"m{len(list(tmp_path.iterdir()))}"
        d.mkdir()
        meta = json.loads((DEFAULT_DIR / "model.json").read_text())
        edit(meta)
        (d / "model.json").write_text(json.dumps(meta))
        (d / "model.npz").write_bytes((DEFAULT_DIR / "model.npz").read_bytes())
        return d

    X = np.abs(np.random.default_rng(0).normal(1, 1, size=(5, len(load_model().feature_names_))))
    new = load_model(copy(lambda m: m.update(format=FORMAT, temperature_slope=1.5)))
    assert new.temperature_slope_ == 1.5
    expected = scaled_softmax(new.logits(X), temperatures(new.distance(X), new.temperature_, 1.5))
    np.testing.assert_allclose(new.predict_proba(X), expected)
    old = load_model(copy(lambda m: m.update(format="whowrote-style-model/2", temperature_slope=1.5)))
    assert old.temperature_slope_ == 0.0  # /2 files had one temperature
    np.testing.assert_allclose(old.predict_proba(X), softmax(old.logits(X), old.temperature_))
    from whowrote.types import WhowroteError

    for bad in (-1.0, "1", True, 1e9):
        with pytest.raises(WhowroteError, match="temperature_slope"):
            load_model(copy(lambda m, b=bad: m.update(format=FORMAT, temperature_slope=b)))
