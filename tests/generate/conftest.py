"""Fake API servers on 127.0.0.1 and small plans pointing the official SDKs at them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whowrote.data.generate.fake_server import FakeServer

KEYS = {"OPENAI_API_KEY": "sk-test-openai-7f3a9c", "ANTHROPIC_API_KEY": "sk-ant-test-51b2e8",
        "GEMINI_API_KEY": "AIza-test-gemini-c0ffee", "COMPAT_KEY": "compat-test-key-9d1"}
# One model per wire format; where each SDK's base URL points.
MODELS = {
    "openai": ('name = "gpt-5.5"', "/v1"),
    "anthropic": ('name = "claude-opus-4-6"', ""),
    "google": ('name = "gemini-3.1-pro"', ""),
    "openai-compatible": ('name = "Qwen/Qwen3-8B"\napi = "openai-compatible"\napi_key_env = "COMPAT_KEY"', "/v1"),
}
NAMES = {"openai": "gpt-5.5", "anthropic": "claude-opus-4-6", "google": "gemini-3.1-pro",
         "openai-compatible": "Qwen/Qwen3-8B"}


@pytest.fixture
def keys(monkeypatch):
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    return KEYS


@pytest.fixture
def server():
    servers = []

    def start(**kwargs) -> FakeServer:
        s = FakeServer(**kwargs).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


def plan_text(url: str, apis=("openai",), *, topics=("Why Zeno still matters", "Free will in the lab"),
              genres=("blog",), words=40, max_tokens=None, samples=1, extra="", timeout=5.0, retries=2) -> str:
    lines = [f"name = \"test\"\nsamples = {samples}", "[topics.inline]",
             "philosophy = [" + ", ".join(json.dumps(t) for t in topics) + "]",
             "[lengths.short]", f"words = {words}"]
    if max_tokens:
        lines.append(f"max_tokens = {max_tokens}")
    lines += [f"[genres.{g}]" for g in genres]
    for api in apis:
        decl, suffix = MODELS[api]
        lines += ["[[models]]", decl, f'base_url = "{url}{suffix}"']
    lines += ["[retry]", f"max_retries = {retries}", f"timeout_s = {timeout}", "initial_delay_s = 0.05", extra]
    return "\n".join(lines) + "\n"


def write_plan(tmp_path: Path, url: str, apis=("openai",), **kw) -> Path:
    p = tmp_path / "plan.toml"
    p.write_text(plan_text(url, apis, **kw), encoding="utf-8")
    return p


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
