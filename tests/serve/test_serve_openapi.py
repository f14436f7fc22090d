"""The OpenAPI schema at /openapi.json describes what the server really answers."""

from __future__ import annotations

import pytest

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is needed to check answers against /openapi.json")

TEXT = "# Title\n\nPerhaps this is **very** clear — or not.\n" * 40


def _validator(spec: dict, schema: dict):
    root = {**schema, "components": spec["components"]}
    return jsonschema.Draft202012Validator(root)


def _response_schema(spec: dict, path: str, method: str, status: int) -> dict:
    return spec["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]


def test_paths_are_the_api(client):
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]) == {"/v1/predict", "/v1/read-html", "/v1/read-document", "/v1/model", "/healthz"}
    assert set(spec["paths"]["/v1/predict"]) == {"post"}
    for path, item in spec["paths"].items():  # no path or query parameters anywhere
        for op in item.values():
            assert not op.get("parameters"), path


@pytest.mark.parametrize(("request_body", "key"), [
    ({"text": TEXT}, None),
    ({"text": TEXT, "highlight": True}, None),
    ({"texts": [TEXT, TEXT[:200]]}, "results"),
    ({"messages": [{"role": "user", "content": "a question"}, {"role": "assistant", "content": TEXT}]}, None),
    ({"text": TEXT, "among": ["CLAUDE", "CHATGPT", "GEMINI"]}, None),
])
def test_predict_answers_match_schema(client, request_body, key):
    spec = client.get("/openapi.json").json()
    req_schema = spec["paths"]["/v1/predict"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    _validator(spec, req_schema).validate(request_body)
    r = client.post("/v1/predict", json=request_body)
    assert r.status_code == 200
    _validator(spec, _response_schema(spec, "/v1/predict", "post", 200)).validate(r.json())
    if key:
        assert len(r.json()[key]) == len(request_body["texts"])


@pytest.mark.parametrize(("path", "status"), [("/healthz", 200), ("/v1/model", 200)])
def test_get_answers_match_schema(client, path, status):
    spec = client.get("/openapi.json").json()
    r = client.get(path)
    assert r.status_code == status
    _validator(spec, _response_schema(spec, path, "get", status)).validate(r.json())


@pytest.mark.parametrize(("body", "status"), [(b"{", 400), (b'{"text": 1}', 422), (b'{"text": ""}', 422)])
def test_errors_match_schema(client, body, status):
    spec = client.get("/openapi.json").json()
    r = client.post("/v1/predict", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status
    _validator(spec, _response_schema(spec, "/v1/predict", "post", status)).validate(r.json())
