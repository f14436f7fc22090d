#!/usr/bin/env bash
# The results ladder on SmolLM2-135M-Instruct (docs/results.md). Each device call runs ONE command:
#
#   bash scripts/gpu/ladder.sh call_a      # install carried wheels, stash GGUF part 1 + data, smoke test
#   bash scripts/gpu/ladder.sh call_b      # join GGUF, export; GPU0: base evals, answer-only SFT | GPU1: GRPO from base
#   bash scripts/gpu/ladder.sh call_c      # GPU0: STaR + cold-start SFT | GPU1: base eval through `whowrote eval`
# session 2 (call_a again to re-send wheels, GGUF part 1 and data, then):
#   bash scripts/gpu/ladder.sh call_e      # join GGUF, export; GPU0: STaR + cold-start SFT | GPU1: 1-GPU SFT timing
#   bash scripts/gpu/ladder.sh call_f      # cold start -> GRPO: GPU0 lr 1e-5 (config) | GPU1 lr 3e-5
#   bash scripts/gpu/ladder.sh call_g      # the answer-only SFT on 2 GPUs (DDP) + its eval
# (calls are issued back to back: the machine is given back 30 s after a call; see docs/gpu-notes.md)
#
# or single stages (any machine, one GPU): setup model base harness_base sft grpo_base star_sft
# coldstart_grpo coldstart_grpo_lr3 sft1gpu sft2gpu; `pack [TAG]` packs the results as OUT/TAG.tgz.
# Dry run on CPU with the tiny random model:  LADDER_DRY=1 bash scripts/gpu/ladder.sh dry
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
HOME_DIR=${LADDER_HOME:-$HOME}
SITE=$HOME_DIR/site
DATA=${LADDER_DATA:-$HOME_DIR/data}
MODEL=${LADDER_MODEL:-$HOME_DIR/smol-hf}
RUNS=${LADDER_RUNS:-$HOME_DIR/runs/ladder}
OUT=${OUT:-$ROOT/out}
LIMIT=${LADDER_STAGE_LIMIT:-540}   # seconds per stage, inside the 600 s call limit
export PYTHONPATH=$ROOT/src:$SITE${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 WANDB_MODE=disabled
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
WT="python3 -m whowrote.train"
mkdir -p "$RUNS" "$OUT"

# Small-model overrides used by every stage (the configs hold the rest).
COMMON=(--set "model.name_or_path=\"$MODEL\"" --set "data.train=\"$DATA/train.jsonl.gz\""
        --set "data.val=\"$DATA/val.jsonl.gz\"")
if [[ -n "${LADDER_DRY:-}" ]]; then  # CPU dry run: tiny model, few rows/steps, short generations
  COMMON+=(--set model.dtype=\"float32\" --set data.n_train=12 --set data.max_text_tokens=64
           --set eval.n_val=6 --set eval.max_new_tokens=8 --set eval.every_steps=2 --set sft.max_steps=3
           --set grpo.max_steps=2 --set grpo.prompts_per_step=3 --set grpo.num_generations=2 --set grpo.micro_batch=0
           --set grpo.max_completion_length=8 --set star.k=2 --set star.max_new_tokens=8 --set coldstart.sft_max_steps=2)
fi
EVAL_K=(--set eval.k=4 --set eval.n_val=0)
[[ -n "${LADDER_DRY:-}" ]] && EVAL_K=(--set eval.k=2 --set eval.n_val=6)

log() { echo "[ladder $(date -u +%H:%M:%S)] $*"; }
# Each command gets LIMIT seconds, and never runs past LADDER_DEADLINE (epoch seconds) so that a
# call always has time left to pack its results before the device's 600 s limit.
budget() { local left=$(( ${LADDER_DEADLINE:-9999999999} - $(date +%s) )); (( left < LIMIT )) && echo $(( left > 1 ? left : 1 )) || echo "$LIMIT"; }
# Every failed command is remembered, so the script's exit status says whether any stage failed
# (a dry run that "passes" with every stage broken is worse than no dry run).
FAILED=()
run() {
  log "$*"; timeout "$(budget)" "$@"; local rc=$?; log "rc=$rc: $1 $2 $3"
  (( rc == 0 )) || FAILED+=("rc=$rc: ${*:1:5}")
  return $rc
}
finish() {  # report and exit non-zero when any command failed
  if (( ${#FAILED[@]} )); then
    log "FAILED ${#FAILED[@]} command(s):"; printf '  %s\n' "${FAILED[@]}"; exit 1
  fi
  log "all commands succeeded"
}

evaluate() {  # evaluate MODEL_DIR OUT_DIR VARIANT MAX_NEW [extra --set ...]
  local model=$1 out=$2 variant=$3 max_new=$4
  shift 4
  run $WT evaluate --model "$model" --data "$DATA/val.jsonl.gz" --out "$out" -c configs/smollm2_eval_base.toml \
    "${COMMON[@]}" "${EVAL_K[@]}" --set "eval.variant=\"$variant\"" --set "eval.max_new_tokens=$max_new" "$@"
}

stage_setup() {
  if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl
  fi
  python3 - <<'EOF'
import importlib, torch
for m in ("transformers", "trl", "datasets", "accelerate", "peft", "pyarrow", "gguf", "matplotlib", "typer"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:  # report, don't stop: the smoke test says whether it matters
        print(m, "MISSING", e)
print("cuda", torch.cuda.is_available(), torch.cuda.device_count(), torch.__version__)
EOF
}

stage_model() {  # join the two carried GGUF halves, check, export a plain fp32 HF dir
  if [[ ! -f $HOME_DIR/smol.gguf ]]; then
    cat "$HOME_DIR/smol.part00" .gguf/p2/smol.part01 > "$HOME_DIR/smol.gguf"
  fi
  (cd "$HOME_DIR" && echo "$(cut -d' ' -f1 "$ROOT/.gguf/p2/sha256.txt")  smol.gguf" | sha256sum -c -) || return 1
  [[ -f $MODEL/config.json ]] || run $WT export-model "$HOME_DIR/smol.gguf" "$MODEL" --dtype float32
}

stage_base() {
  evaluate "$MODEL" "$RUNS/base_eval_3way" 3way 256
  evaluate "$MODEL" "$RUNS/base_eval_answer_only" answer_only 16
}

stage_harness_base() {  # issue 5's real run through the eval harness itself (whowrote eval)
  [[ -f $DATA/val.jsonl ]] || gunzip -kf "$DATA/val.jsonl.gz"
  run python3 -c "import sys; from whowrote.cli import main; main(sys.argv[1:])" eval --split "$DATA/val.jsonl" \
    --out "$RUNS/harness_base_3way" --model "$HOME_DIR/smol.gguf" --variant 3way --k 4 --max-new-tokens 256 \
    --max-prompt-tokens 2400 --batch-size 64 --seed 0
}

stage_sft() {
  run $WT sft -c configs/smollm2_answer_only_sft.toml "${COMMON[@]}" --set "run.output_dir=\"$RUNS/sft_answer_only\""
  evaluate "$RUNS/sft_answer_only/final" "$RUNS/sft_answer_only/eval_k4" answer_only 16
}

stage_grpo_base() {
  run $WT grpo -c configs/smollm2_grpo.toml "${COMMON[@]}" --set "run.output_dir=\"$RUNS/grpo_base\""
  evaluate "$RUNS/grpo_base/final" "$RUNS/grpo_base/eval_k4" 3way 256 --set eval.n_val=120
}

stage_star_sft() {
  local cs=(-c configs/smollm2_coldstart.toml "${COMMON[@]}" --set "run.output_dir=\"$RUNS/coldstart\"")
  # STaR as in the research: round 1 plain, round 2 with the cheatsheet hint (gold never shown); when
  # fewer than star.min_rows survive, a gold-conditioned fallback round (D1-style) fills in, and the
  # stats file says how many rows came from which round (docs/results.md reports it).
  run $WT star "${cs[@]}"
  run $WT coldstart "${cs[@]}" --set 'coldstart.stages=["sft"]'
  evaluate "$RUNS/coldstart/sft/final" "$RUNS/coldstart/sft/eval_k4" 3way 256
}

# Cold start -> GRPO from coldstart/sft/final on every train row, in-loop eval every 10 steps on 120
# val texts, stopped cleanly by run.max_minutes so the call keeps time for the final k=4 eval.
GRPO_CS=(--set data.n_train=0 --set eval.every_steps=10 --set run.max_minutes=${LADDER_GRPO_MIN:-6.5} --set grpo.max_steps=200)
[[ -n "${LADDER_DRY:-}" ]] && GRPO_CS=(--set grpo.max_steps=2 --set eval.every_steps=1)
stage_coldstart_grpo() {  # the config's recipe (lr 1e-5), through the two-stage command
  run $WT coldstart -c configs/smollm2_coldstart.toml "${COMMON[@]}" --set "run.output_dir=\"$RUNS/coldstart\"" \
    --set 'coldstart.stages=["grpo"]' "${GRPO_CS[@]}"
  evaluate "$RUNS/coldstart/grpo/final" "$RUNS/coldstart/grpo/eval_k4" 3way 256
}

stage_coldstart_grpo_lr3() {  # the same from the same SFT weights at another lr (plain `train grpo`)
  local lr=${LADDER_LR:-3e-5}
  run $WT grpo -c configs/smollm2_coldstart.toml "${COMMON[@]}" --set "model.name_or_path=\"$RUNS/coldstart/sft/final\"" \
    --set "run.output_dir=\"$RUNS/coldstart/grpo_lr$lr\"" --set grpo.lr=$lr "${GRPO_CS[@]}" "$@"
  evaluate "$RUNS/coldstart/grpo_lr$lr/final" "$RUNS/coldstart/grpo_lr$lr/eval_k4" 3way 256
}

# Throughput runs: the answer-only SFT recipe (3 epochs, global batch 8) without in-loop evals, so
# train_result.json's train_runtime / train_samples_per_second time the training alone.
NOVAL=(--set 'data.val=""' --set eval.every_steps=0)
stage_sft1gpu() {
  run $WT sft -c configs/smollm2_answer_only_sft.toml "${COMMON[@]}" "${NOVAL[@]}" \
    --set "run.output_dir=\"$RUNS/sft_answer_only_1gpu\""
}

stage_sft2gpu() {  # the same on 2 GPUs (DDP): global batch 8 = 2 x 4; then its eval on GPU0
  log "accelerate launch (2 GPUs)"
  timeout "$(budget)" accelerate launch --config_file configs/accelerate/ddp_2gpu.yaml -m whowrote.train sft \
    -c configs/smollm2_answer_only_sft.toml "${COMMON[@]}" "${NOVAL[@]}" \
    --set "run.output_dir=\"$RUNS/sft_answer_only_2gpu\"" --set sft.batch_size=4
  log "rc=$? sft2gpu"
  (export CUDA_VISIBLE_DEVICES=0; evaluate "$RUNS/sft_answer_only_2gpu/final" "$RUNS/sft_answer_only_2gpu/eval_k4" answer_only 16)
}

stage_pack() {  # small results only (no weights) -> one tarball under $OUT
  local tag=${1:-results} stage_dir
  stage_dir=$(mktemp -d)
  (cd "$RUNS" && find . -path '*/checkpoint-*' -prune -o -path '*/final' -prune -o -path '*/best' -prune -o \
      -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.csv' -o -name '*.png' -o -name '*.toml' \
      -o -name '*.log' \) -print | grep -v -E 'traces.jsonl$|star.jsonl$' | tar -cf - -T - | tar -xf - -C "$stage_dir")
  # traces (completions may echo corpus text): kept compressed for inspection, never committed
  (cd "$RUNS" && find . -path '*/final' -prune -o -name '*traces.jsonl' -print | tar -czf "$stage_dir/traces.tgz" -T -)
  cp "$RUNS"/../*.log "$stage_dir/" 2>/dev/null
  tar -czf "$OUT/$tag.tgz" -C "$stage_dir" .
  ls -la "$OUT"
}

# two_gpus TAG "GPU0 STAGES" "GPU1 STAGES": one stage list per GPU in parallel (logs gpu0_TAG.log,
# gpu1_TAG.log next to RUNS), then their ladder lines and one pack, results_TAG.
two_gpus() {
  local tag=$1
  # shellcheck disable=SC2086  # a stage list is several words
  CUDA_VISIBLE_DEVICES=0 bash "$0" $2 > "$RUNS/../gpu0_$tag.log" 2>&1 &
  local p0=$! p1 rc0 rc1
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=1 bash "$0" $3 > "$RUNS/../gpu1_$tag.log" 2>&1 &
  p1=$!
  wait "$p0"; rc0=$?; wait "$p1"; rc1=$?
  grep -h -E '^\[ladder|done|Error' "$RUNS"/../gpu*_"$tag".log | cut -c1-220
  stage_pack "results_$tag"
  (( rc0 == 0 )) || FAILED+=("GPU0 stages: $2 (see gpu0_$tag.log)")
  (( rc1 == 0 )) || FAILED+=("GPU1 stages: $3 (see gpu1_$tag.log)")
}

# the timed calls: nothing may run past the device's 600 s limit
[[ ${1:-} == call_[b-g] ]] && export LADDER_DEADLINE=$(( $(date +%s) + ${LADDER_CALL_S:-550} ))
case "${1:-}" in
  call_a)
    stage_setup
    cp .gguf/p1/smol.part00 "$HOME_DIR/" && mkdir -p "$DATA" && cp .gguf/data/*.gz "$DATA/" && ls -la "$HOME_DIR" "$DATA"
    nvidia-smi --query-gpu=name,memory.total --format=csv
    # smoke test of the whole stack (TRL x this transformers) on the tiny random model, on the GPU
    T=$HOME_DIR/tiny; $WT tiny-model "$T" >/dev/null
    export CUDA_VISIBLE_DEVICES=0  # Trainer refuses several visible GPUs in one plain process
    SM=(--set "model.name_or_path=\"$T\"" --set "data.train=\"$DATA/train.jsonl.gz\"" --set "data.val=\"$DATA/val.jsonl.gz\""
        --set data.n_train=24 --set data.max_text_tokens=64 --set eval.n_val=6 --set eval.max_new_tokens=8 --set run.resume=\"\")
    timeout 120 $WT sft -c configs/smollm2_answer_only_sft.toml "${SM[@]}" --set sft.max_steps=4 --set "run.output_dir=\"$T-sft\"" 2>&1 | tail -n 3
    timeout 120 $WT grpo -c configs/smollm2_grpo.toml "${SM[@]}" --set grpo.max_steps=2 --set grpo.max_completion_length=8 \
      --set "run.output_dir=\"$T-grpo\"" 2>&1 | tail -n 3
    ;;
  call_b)  # measured: GPU0 ~7 min, GPU1 ~8 min (GRPO ~17 s/step; the zero-trainable guard stopped it at 16)
    stage_model || exit 1
    two_gpus b "base sft" grpo_base; finish
    ;;
  call_c)  # measured: STaR 3 rounds on 96 texts ~200 s of sampling + 60 SFT steps ~50 s + evals
    two_gpus c star_sft harness_base; finish
    ;;
  call_e)  # session 2: STaR ~200 s + SFT ~50 s + eval | 1-GPU SFT ~180 s
    stage_model || exit 1
    two_gpus e star_sft sft1gpu; finish
    ;;
  call_f)  # GRPO stops at run.max_minutes (6.5), then a k=4 eval of 240 texts
    two_gpus f coldstart_grpo coldstart_grpo_lr3; finish
    ;;
  call_g)
    stage_sft2gpu > "$RUNS/../sft2gpu_g.log" 2>&1
    grep -h -E '^\[ladder|done|Error|train_runtime' "$RUNS/../sft2gpu_g.log" | cut -c1-220
    stage_pack results_g
    ;;
  dry)  # CPU: every stage once on the tiny model (tests the driver, not the numbers); exit 1 if any failed
    # needs $DATA/{train,val}.jsonl.gz: e.g. `whowrote data split ... --out D` then gzip -k D/train.jsonl D/val.jsonl
    for f in train val; do [[ -f $DATA/$f.jsonl.gz ]] || { log "missing $DATA/$f.jsonl.gz"; exit 2; }; done
    [[ -f $MODEL/config.json ]] || run $WT tiny-model "$MODEL"
    for s in base sft grpo_base star_sft coldstart_grpo coldstart_grpo_lr3 sft1gpu; do "stage_$s"; done
    stage_pack results_dry
    finish
    ;;
  pack)
    stage_pack "${2:-}"
    ;;
  *)
    for s in "$@"; do "stage_$s"; done
    finish
    ;;
esac
