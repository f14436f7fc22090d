#!/usr/bin/env bash
# One device call: a GRPO run of 2 steps with grpo.faithfulness_weight on the tiny random model, on the
# GPU (HF generate; TRL passes the prompts the faithful_claims reward reads). Carry .gguf/smoke (the
# trl, datasets, dill and multiprocess wheels of the stage) and .gguf/data. CPU: SMOKE_SITE= (no install).
#   bash scripts/gpu/smoke_faithful.sh        # writes $OUT/smoke_faithful/{metrics.jsonl,run.log}
#   SMOKE_GROUNDED=1 bash scripts/gpu/smoke_faithful.sh   # the grounded form (grounded_claims), same files
set -u
OUT=${OUT:-/tmp/smoke_out}
H=${SMOKE_HOME:-$HOME/smoke}
SITE=${SMOKE_SITE-$H/site}
mkdir -p "$H" "$OUT/smoke_faithful"
if [[ -n $SITE ]]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" .gguf/smoke/*.whl || exit 1
fi
export PYTHONPATH=$PWD/src${SITE:+:$SITE}${PYTHONPATH:+:$PYTHONPATH} CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
python3 -m whowrote.train tiny-model "$H/tiny" > /dev/null || exit 1
d=$OUT/smoke_faithful
name=faithful_claims grounded=()
[[ -n ${SMOKE_GROUNDED:-} ]] && name=grounded_claims grounded=(--set grpo.faithfulness_grounded=true)
timeout 300 python3 -m whowrote.train grpo -c configs/smollm2_grpo.toml --set "model.name_or_path=\"$H/tiny\"" \
  --set "data.train=\".gguf/data/train.jsonl.gz\"" --set "data.val=\".gguf/data/val.jsonl.gz\"" \
  --set data.n_train=24 --set data.max_text_tokens=64 --set eval.n_val=6 --set eval.max_new_tokens=8 \
  --set grpo.use_vllm=false --set grpo.max_steps=2 --set grpo.max_completion_length=16 \
  --set grpo.faithfulness_weight=0.3 "${grounded[@]}" --set "run.output_dir=\"$H/grpo\"" --set 'run.resume=""' \
  > "$d/run.log" 2>&1
rc=$?
cp "$H/grpo/metrics.jsonl" "$d/" 2>/dev/null
grep -o "\"rewards/$name/mean\": [-0-9.e]*" "$d/metrics.jsonl" | head -n 4
python3 -c 'import torch; print("device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu")'
tail -n 3 "$d/run.log"
echo "smoke rc=$rc"
exit $rc
