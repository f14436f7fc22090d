#!/usr/bin/env bash
# The vLLM session's device calls (issue 14 §1; docs/gpu-notes.md has the log). Issued back to back,
# because the machine (and ~/stage, ~/site) is gone 30 s after a call:
#
#   bash scripts/gpu/vllm_calls.sh stage N   # N = 1..4: carry .stage/pN; check the chunk into ~/stage
#   bash scripts/gpu/vllm_calls.sh bench     # carry .stage/pLAST (stage.sh last): join + install, export SmolLM2, then
#                                            # scripts/gpu/bench_generate.py for both shapes
#   bash scripts/gpu/vllm_calls.sh bench2    # the same on a machine that is already staged
#   bash scripts/gpu/vllm_calls.sh grpo      # 10 GRPO steps with TRL's vLLM (colocate), 3 with HF generate
#   bash scripts/gpu/vllm_calls.sh eval      # whowrote eval --backend vllm vs transformers; STaR on vLLM
#   bash scripts/gpu/vllm_calls.sh grpo_split  # issue 14's 7.2 s step split: 10 GRPO steps at TRL's 4,096
#                                            # batched tokens, then at 65,536 with micro-batches of 48
#                                            # (scripts/gpu/wt.py), time/rollouts_s beside step_time
#                                            # (whowrote.train.phases); joins + installs a fresh stage itself
# Everything small lands in $OUT (logs, metrics, summaries; no weights, no corpus text).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
SITE=$HOME/site
X=$HOME/stage/x
MODEL=$HOME/smol-hf
RUNS=$HOME/runs
export PYTHONPATH=$ROOT/src:$SITE${PYTHONPATH:+:$PYTHONPATH} PATH=$SITE/bin:$PATH
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 WANDB_MODE=disabled VLLM_NO_USAGE_STATS=1
export VLLM_USE_FLASHINFER_SAMPLER=0  # flashinfer is not staged (its top-k/top-p sampler would import it)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
WT="python3 -m whowrote.train"
mkdir -p "$OUT" "$RUNS"
log() { echo "[vllm-calls $(date -u +%H:%M:%S)] $*"; }

# Overrides shared by the GRPO runs: the SmolLM2 export, this session's splits, 10 steps, no
# in-loop evals (the step time is the measurement), final eval on 24 texts only.
GRPO=(-c "${SPLIT_CONFIG:-configs/smollm2_grpo.toml}" --set "model.name_or_path=\"$MODEL\"" --set "data.train=\"$X/data/train.jsonl.gz\""
      --set "data.val=\"$X/data/val.jsonl.gz\"" --set eval.every_steps=0 --set eval.n_val=24
      --set grpo.zero_trainable_patience=1000 --set 'run.resume=""')

pack() {  # small files of RUNS -> OUT/$1.tgz
  (cd "$RUNS" && find . -path '*/final' -prune -o -path '*/best' -prune -o -type f \( -name '*.json' -o -name '*.jsonl' \
     -o -name '*.csv' -o -name '*.png' -o -name '*.toml' -o -name '*.log' -o -name 'profile.txt' \) -print | grep -v -E 'traces.jsonl$|star.jsonl$' |
     tar -czf "$OUT/$1.tgz" -T -)
  ls -la "$OUT"
}

case "${1:-}" in
  stage)
    bash scripts/gpu/stage.sh recv "$2"
    ;;
  bench)
    bash scripts/gpu/stage.sh recv "$(bash scripts/gpu/stage.sh last)" || exit 1
    nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm --format=csv
    # the real SmolLM2 as a bf16 HF folder (bf16 config, so vLLM runs it in bf16; trainers upcast)
    (timeout 200 $WT export-model "$X/smol.gguf" "$MODEL" --dtype bfloat16 > "$OUT/export.log" 2>&1; echo "export rc=$?" >> "$OUT/export.log") &
    EXPORT=$!
    for shape in smollm2-135m qwen2.5-0.5b; do
      log "bench $shape"
      timeout 255 python3 scripts/gpu/bench_generate.py --shape "$shape" --reps 3 --out "$OUT/bench_$shape.json" \
        2>&1 | tee "$OUT/bench_$shape.log" | grep -v -E '^(INFO|DEBUG)' | tail -n 12
    done
    wait "$EXPORT"; tail -n 2 "$OUT/export.log"; ls "$MODEL"
    ;;
  grpo)
    log "GRPO, vLLM colocate"
    timeout 330 $WT grpo "${GRPO[@]}" --set grpo.max_steps=10 --set grpo.use_vllm=true --set 'grpo.vllm_mode="colocate"' \
      --set "run.output_dir=\"$RUNS/grpo_vllm\"" > "$RUNS/grpo_vllm.log" 2>&1
    log "rc=$?"; grep -v -E '^(INFO|DEBUG)' "$RUNS/grpo_vllm.log" | tail -n 5 | cut -c1-300
    log "GRPO, HF generate (reference)"
    timeout 150 $WT grpo "${GRPO[@]}" --set grpo.max_steps=3 --set "run.output_dir=\"$RUNS/grpo_hf\"" \
      > "$RUNS/grpo_hf.log" 2>&1
    log "rc=$?"; tail -n 3 "$RUNS/grpo_hf.log" | cut -c1-300
    python3 - "$RUNS" <<'EOF'
import json, sys, pathlib
for run in ("grpo_vllm", "grpo_hf"):
    p = pathlib.Path(sys.argv[1]) / run / "metrics.jsonl"
    if not p.exists():
        print(run, "no metrics"); continue
    rows = [json.loads(x) for x in p.read_text().splitlines()]
    st = [r["step_time"] for r in rows if r.get("kind") == "train" and "step_time" in r]
    print(run, "steps", len(st), "step_time s", [round(s, 2) for s in st])
EOF
    pack grpo
    ;;
  grpo_split)  # after bench or eval on this machine, or first on a fresh stage (carry .stage/pLAST of a "qwen smol" pack)
    [[ -d $X/wheels ]] || { bash scripts/gpu/stage.sh recv "$(bash scripts/gpu/stage.sh last)" || exit 1; }
    [[ -f $MODEL/config.json ]] || { timeout 200 $WT export-model "$X/smol.gguf" "$MODEL" --dtype bfloat16 | tail -n 1; }
    # arms (TOKENS:MICRO_BATCH): TRL's 4,096 batched tokens with session 7's 6 micro-batches of 16, then
    # 65,536 with 2 of 48 (time/rollouts_s and the rest split each step, so one arm per change suffices)
    # SPLIT_SET: extra section.key=value words for every arm (e.g. grpo.trl.vllm_importance_sampling_correction=false)
    # SPLIT_CONFIG: the GRPO config (default configs/smollm2_grpo.toml; configs/smollm2_grpo_fast.toml is the fast step)
    # SPLIT_TAG: a suffix for the run folders, so a second grpo_split on the same machine keeps the first's runs
    extra=(); for kv in ${SPLIT_SET:-}; do extra+=(--set "$kv"); done
    for arm in ${SPLIT_ARMS:-4096:16 65536:48}; do
      tokens=${arm%%:*} mb=${arm##*:} name=grpo_split_${arm/:/_mb}${SPLIT_TAG:-}
      log "GRPO, vLLM colocate, max_num_batched_tokens $tokens, micro-batch $mb"
      WT_VLLM_UTIL=0.3 WT_VLLM_BATCHED_TOKENS=$tokens timeout "${SPLIT_S:-220}" python3 scripts/gpu/wt.py train grpo "${GRPO[@]}" \
        --set grpo.max_steps=10 --set grpo.use_vllm=true --set 'grpo.vllm_mode="colocate"' --set "grpo.micro_batch=$mb" \
        "${extra[@]}" --set "run.output_dir=\"$RUNS/$name\"" > "$RUNS/$name.log" 2>&1
      log "rc=$?"; grep -E '^\[wt\]' "$RUNS/$name.log" | head -n 1
    done
    python3 scripts/gpu/step_split.py "$RUNS"/grpo_split_*/metrics.jsonl | tee "$OUT/grpo_split.txt"
    pack grpo_split
    ;;
  eval)  # on a fresh machine: carry .stage/p5 after stage 1..4
    [[ -d $X ]] || { bash scripts/gpu/stage.sh recv "$(bash scripts/gpu/stage.sh last)" || exit 1; }
    [[ -f $MODEL/config.json ]] || timeout 200 $WT export-model "$X/smol.gguf" "$MODEL" --dtype bfloat16 | tail -n 1
    gunzip -kf "$X/data/val.jsonl.gz"
    for backend in vllm transformers; do
      log "whowrote eval --backend $backend"
      bs=64; [[ $backend == vllm ]] && bs=256  # texts per generate call: vLLM schedules them itself
      timeout "$([[ $backend == vllm ]] && echo 150 || echo 170)" python3 -c "import sys; from whowrote.cli import main; main(sys.argv[1:])" eval --split "$X/data/val.jsonl" \
        --out "$RUNS/eval_$backend" --model "$MODEL" --backend "$backend" --variant 3way --k 4 --max-new-tokens 256 \
        --max-prompt-tokens 2400 --batch-size "$bs" --seed 0 > "$RUNS/eval_$backend.log" 2>&1
      log "rc=$?"; grep -v -E '^(INFO|DEBUG|\(EngineCore)' "$RUNS/eval_$backend.log" | tail -n 14 | cut -c1-200
      python3 -c "import json,sys; r=[json.loads(x) for x in open(sys.argv[1])]; t=sum(x['gen_seconds'] for x in r); n=sum(x['completion_tokens'] or 0 for x in r); print('samples', len(r), 'new tokens', n, 'gen s', round(t,1), 'tok/s', round(n/max(t,1e-9)))" "$RUNS/eval_$backend/traces.jsonl"
    done
    log "STaR on vLLM"
    timeout 170 $WT star -c configs/smollm2_coldstart.toml --set "model.name_or_path=\"$MODEL\"" \
      --set "data.train=\"$X/data/train.jsonl.gz\"" --set "data.val=\"$X/data/val.jsonl.gz\"" --set 'star.backend="vllm"' \
      --set "run.output_dir=\"$RUNS/star_vllm\"" > "$RUNS/star_vllm.log" 2>&1
    log "rc=$?"; tail -n 4 "$RUNS/star_vllm.log" | cut -c1-300
    pack eval
    ;;
  *) echo "usage: vllm_calls.sh stage N|bench|grpo|grpo_split|eval" >&2; exit 2 ;;
esac
