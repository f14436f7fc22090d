"""``whowrote.types.jsonable``: the one plain-JSON helper of the model card and the study summary."""

from __future__ import annotations

import enum
import json
import math

import numpy as np

from whowrote.types import jsonable


class Colour(enum.IntEnum):
    RED = 1


def test_numpy_values_keys_and_odd_objects_become_plain_json():
    value = {
        "f": np.float64(0.25), "i": np.int64(3), "b": np.bool_(True), "s": np.str_("x"),
        "arr": np.arange(3), "m": np.eye(2), "t": (1, "a"), "nested": [{"x": np.float32(0.5)}],
        np.int64(7): "numpy int key", 2: "int key", True: "bool key", None: "none key",
        "enum": Colour.RED, "obj": object, "nan": float("nan"),
    }
    out = jsonable(value)
    assert out["f"] == 0.25 and type(out["f"]) is float
    assert out["i"] == 3 and type(out["i"]) is int
    assert out["b"] is True and type(out["s"]) is str and out["enum"] == 1 and type(out["enum"]) is int
    assert out["arr"] == [0, 1, 2] and out["m"] == [[1.0, 0.0], [0.0, 1.0]] and out["t"] == [1, "a"]
    assert out["nested"] == [{"x": 0.5}] and math.isnan(out["nan"])
    assert out["7"] == "numpy int key" and out["2"] == "int key"
    assert out["true"] == "bool key" and out["null"] == "none key"  # as json.dumps writes keys
    assert out["obj"] == str(object)
    json.dumps(out)  # serialisable as it is
    assert jsonable(np.float64(1.5)) == 1.5 and jsonable("plain") == "plain" and jsonable(None) is None


def test_model_card_uses_it_for_numpy_keys_and_values():
    from whowrote.serve.card import model_card

    class Model:
        classes_ = np.array(["CLAUDE", "GEMINI"])
        metrics_ = {np.int64(0): {"accuracy": np.float64(0.9), "ok": np.bool_(True)}}

    card = model_card(Model())
    assert card["metrics"] == {"0": {"accuracy": 0.9, "ok": True}}
    assert card["classes"] == ["CLAUDE", "GEMINI"]
    json.dumps(card)


def test_study_summary_writer_and_card_share_the_helper():
    import whowrote.serve.card as card
    import whowrote.study.run as run

    assert card.jsonable is jsonable and run.jsonable is jsonable
    assert not hasattr(card, "_jsonable") and not hasattr(run, "_jsonable")
