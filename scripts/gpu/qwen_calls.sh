#!/usr/bin/env bash
# The device calls of the Qwen2.5-Coder-0.5B-Instruct ladder (issue 14 §3) and the research recipes
# (issue 16) on one H200, several processes at once (docs/gpu-notes.md, "Session 5"; session 4
# ran this script at commit 2f9d2c8). Issued back to back (the machine and ~/stage, ~/site, ~/runs are
# gone 30 s after a call):
#
#   bash scripts/gpu/qwen_calls.sh stage N   # N = 1..last-1: carry .stage/pN; check the chunk into ~/stage
#   bash scripts/gpu/qwen_calls.sh bench     # (optional) carry .stage/pLAST (stage.sh last): join + install (callA then
#                                            # skips it), rollout benchmark at the SmolLM2-135M shape
#   bash scripts/gpu/qwen_calls.sh callA     # carry .stage/pLAST (unless bench did): join + install, export; answer-only SFT,
#                                            # STaR (every train row) + cold-start SFT, tells and fallback
#                                            # cold-start SFTs; issue 16's OPCD and pure-accuracy GRPO
#                                            # (QWEN_A_RUNS), which start from the base model
#   bash scripts/gpu/qwen_calls.sh callB     # cold start -> GRPO: the headline (tells) on seeds 0 and 1,
#                                            # STaR and fallback on seed 0; each stops on time with a
#                                            # resumable checkpoint
#   bash scripts/gpu/qwen_calls.sh callC     # the headline's seeds go on from there (QWEN_C_ARMS); issue
#                                            # 16's RLSD, RLSD-anchored, cheatsheet GRPO (QWEN_C_RUNS)
#   bash scripts/gpu/qwen_calls.sh callE     # carry the QWEN_SPLITS folder: evals only, every split file on
#                                            # each finished run of QWEN_E_RUNS (callB's models under the edits)
# Other stages: status, pack TAG, check (every --set of every call against the configs, on CPU),
# dry (CPU: stage 1..12 + callA/B/C with the tiny random model, transformers instead of vLLM).
#
# Every process runs under `timeout` and `run.max_minutes` so the call packs its results (small
# files only: OUT/results_TAG.tgz; completions separately in OUT/traces_TAG.tgz) before 600 s.
# Exit status 1 when any stage failed. Environment knobs:
#   QWEN_CALL_S      seconds from the call's start to its hard deadline (A, B: 575; C: 480)
#   QWEN_MAX_COLOCATE  colocated GRPO processes at once (default 5; session 4 ran 2 + the queue)
#   QWEN_SEQUENTIAL=1  every process one after the other (the eval queue still runs beside them)
#   QWEN_A_SFTS      callA's SFTs (default: tells answer star fallback; answer = answer-only SFT)
#                    (an answer-only SFT an earlier call finished is kept, not trained again)
#   QWEN_A_RUNS, QWEN_C_RUNS  issue-16 runs of callA / callC (opcd rlsd rlsd_anchored cheatsheet pureacc;
#                    rlsd_unscored = RLSD with the research's reward: cut-off completions scored)
#   QWEN_C_ARMS      callC's resumed cold start -> GRPO runs (default: tells:0 tells:1)
#   QWEN_RL_LR       overrides grpo.lr of every RL run (default: the configs' 1e-6)
#   QWEN_B_ARMS      callB's runs as ARM:SEED words (default: tells:0 tells:1 star:0 fallback:0; the
#                    first two get the latest ends, i.e. the most training)
#   QWEN_BASE_EVALS=1  callA evaluates the base model again (session 4 has its numbers)
#   QWEN_STAR_CAP    STaR rows kept per class (default 40; -1 = balanced to the smallest class, which
#                    kept 3 of 58 in session 4)
#   QWEN_EXTRA_SET   extra "section.key=value ..." for every trainer (check uses it to prove it fails)
#   QWEN_ARM_TAG     a suffix for callB/callC's run folders and the answer-only SFT's (e.g. _mp05 for a
#                    QWEN_EXTRA_SET variant), so a second call with other settings starts fresh runs instead
#                    of resuming (or overwriting) the first's
#   QWEN_INNER=1     every trainer trains on the inner train and evaluates in the loop on the inner val
#                    (scripts/gpu/inner_split.py, ids in scripts/gpu/inner_val_ids.json): settings are
#                    chosen there; the k = 4 queue still scores the ladder's val
#   QWEN_STAR_ROWS   a folder with star.jsonl + star.stats.json an earlier session kept (carry it): callA's
#                    STaR chain copies them and goes straight to the cold-start SFT
#   QWEN_RESEARCH_STEPS  grpo.max_steps of every issue-16 run (fixes the surprisal schedule across calls)
#   QWEN_RESEARCH_FROM=base  issue-16 runs all start from the base model (default: opcd and pureacc from
#                    base, the others from the headline cold start)
#   QWEN_RESEARCH_RESUME=1  issue-16 runs are resumable: a later call's run of the same recipe goes on
#   QWEN_BATCHED_TOKENS  max_num_batched_tokens of every vLLM engine (scripts/gpu/wt.py; TRL's colocated
#                    engine hard-codes 4096)
#   QWEN_BENCH_ARGS  extra bench_generate.py arguments of the bench stage (e.g. --max-num-batched-tokens 65536)
#   QWEN_SPLITS      a carried folder of *.jsonl.gz (scripts/gpu/edit_splits.py): every call's queue also scores
#                    the answer-only SFT on each (issue 17: edited val, the unseen chat genre)
#   QWEN_E_RUNS      callE's runs, folders under qwen05b/ with final weights (sft_answer_only* is scored
#                    with the answer-only prompt, the others with the 3-way rationale prompt); callA scores
#                    them too, beside its training
#   QWEN_CS_LONG_STEPS  SFT steps of the "tellsall" cold start (tells rows of every train text; default 130,
#                    about one epoch of the inner train)
# Cold-start arms: tells (240 texts, SFT-60), fallback, star, tellsall, tellsfirst (tellsall, verdict first),
# tellsfirst_ao (tellsfirst's rows for 60 steps on top of the answer-only SFT, which callA trains first). callB/callC arms are ARM:SEED or
# ARM:SEED:LR (grpo.lr of that run; its folder gets an _lrLR suffix).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DRY=${QWEN_DRY:-}
CHECK=${QWEN_CHECK:-}
H=${QWEN_HOME:-$HOME}
SITE=$H/site
X=$H/stage/x                       # the unpacked stage: qwen.gguf, data/, wheels/
DATA=$X/data
GGUF=$X/qwen.gguf
MODEL=$H/qwen-hf                   # the bf16 HF export of the GGUF (the tiny random model in dry runs)
RUNS=$H/runs
Q=$RUNS/qwen05b                    # -> results/qwen05b/
R=$RUNS/research                   # -> results/research/
ANS=$Q/sft_answer_only${QWEN_ARM_TAG:-}  # the answer-only SFT (QWEN_ARM_TAG: a settings variant's own folder)
LOGS=$RUNS/logs
STATE=$RUNS/state
OUT=${OUT:-$ROOT/out}
export STAGE_HOME=$H/stage STAGE_SITE=$SITE
export PYTHONPATH=$ROOT/src:$SITE${PYTHONPATH:+:$PYTHONPATH} PATH=$SITE/bin:$PATH
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 WANDB_MODE=disabled VLLM_NO_USAGE_STATS=1
export VLLM_USE_FLASHINFER_SAMPLER=0  # flashinfer is not staged (its top-k/top-p sampler would import it)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export WT_VLLM_DTYPE=bfloat16 WT_VLLM_MAX_LEN=4096   # scripts/gpu/wt.py: fp32 checkpoints run in bf16
WT=(python3 scripts/gpu/wt.py train)
mkdir -p "$OUT" "$LOGS" "$STATE" "$Q" "$R"
log() { echo "[qwen $(date -u +%H:%M:%S)] $*"; }

# --- settings --------------------------------------------------------------------------------
GRPO_START_S=${QWEN_GRPO_START_S:-130}  # launch -> first train step: imports, load, vLLM start, step-0 eval
GRPO_FINAL_S=${QWEN_GRPO_FINAL_S:-120}  # last step -> exit: final in-loop eval, save (session 4: 40 s was too little, timeout killed 3 runs before their save)
SFT_START_S=${QWEN_SFT_START_S:-60}
SFT_FINAL_S=${QWEN_SFT_FINAL_S:-90}      # last step -> exit: final in-loop eval + fp32 save (session 5: 20 s was too little under sharing)
EVAL_S=${QWEN_EVAL_S:-30}               # one k = 4 eval in the queue (vLLM, 240 texts)
STAR_MIN_ROWS=${QWEN_STAR_MIN_ROWS:-30} # fewer kept STaR rows: no STaR cold start (the headline uses tells)
# vLLM refuses to start unless utilization x 140 GiB is free; with the KV size given, that check is all it
# is for, so it stays small (the whowrote backend's default 0.5 would fail once other processes hold 70 GiB)
ENGINE_UTIL=${QWEN_ENGINE_UTIL:-0.04}
MAX_CO=${QWEN_MAX_COLOCATE:-5}
N3=256; NA=16                           # new tokens of 3-way / answer-only evals
INNER=${QWEN_INNER:-}
A_SFTS=" ${QWEN_A_SFTS:-tells answer star fallback} "  # callA's SFTs (their rows, their evals)
[[ -z $DRY ]] && : "${QWEN_CS_LONG_STEPS:=130}"
[[ -z $DRY ]] && : "${QWEN_CS_AO_STEPS:=60}"
if [[ -n $INNER ]]; then TRAIN_F=$DATA/inner_train.jsonl.gz VAL_F=$DATA/inner_val.jsonl.gz
else TRAIN_F=$DATA/train.jsonl.gz VAL_F=$DATA/val.jsonl.gz; fi
COMMON=("data.train=\"$TRAIN_F\"" "data.val=\"$VAL_F\"" 'run.resume=""')
# a run that goes on over calls: a time-limit stop saves a checkpoint (save_steps only arms it: no
# periodic 6 GB saves), and a later call's run in the same folder resumes from it
RESUMABLE=('run.resume="auto"' run.save_steps=1000 run.save_total_limit=1)
RL=()
[[ -n ${QWEN_RL_LR:-} ]] && RL=("grpo.lr=$QWEN_RL_LR")
if [[ -n $DRY ]]; then  # CPU: tiny model, few rows/steps, short generations, transformers instead of vLLM
  COMMON+=('model.dtype="float32"' data.n_train=12 data.max_text_tokens=64 eval.n_val=6 eval.max_new_tokens=8
           eval.every_steps=2 sft.max_steps=3 coldstart.sft_max_steps=2 grpo.max_steps=2 grpo.prompts_per_step=3
           grpo.num_generations=2 grpo.micro_batch=0 grpo.max_completion_length=8 grpo.use_vllm=false
           star.k=2 star.max_new_tokens=8 'star.backend="transformers"' model.gradient_checkpointing=false)
  N3=8; NA=8
  GRPO_START_S=${QWEN_GRPO_START_S:-20}; GRPO_FINAL_S=${QWEN_GRPO_FINAL_S:-10}; SFT_START_S=${QWEN_SFT_START_S:-10}; SFT_FINAL_S=${QWEN_SFT_FINAL_S:-10}
  STAR_MIN_ROWS=${QWEN_STAR_MIN_ROWS:-3}
fi
# shellcheck disable=SC2206  # QWEN_EXTRA_SET is a list of words on purpose
EXTRA=(${QWEN_EXTRA_SET:-})
EVAL_CFG=configs/qwen25_05b_eval.toml
CS_CFG=configs/qwen25_05b_coldstart.toml

# --- running one trainer -------------------------------------------------------------------------
# wt NAME DEADLINE PORT KV_GIB CMD CONFIG [section.key=value ...]: one `whowrote train CMD` in the
# foreground, killed at DEADLINE (epoch s); log LOGS/NAME.log, exit status LOGS/NAME.rc.
wt() {
  local name=$1 dl=$2 port=$3 kv=$4 cmd=$5 config=$6
  shift 6
  local sets=("${COMMON[@]}" "$@" "${EXTRA[@]}") args=() s rc t
  for s in "${sets[@]}"; do args+=(--set "$s"); done
  if [[ -n $CHECK ]]; then  # record the command; check_config.py validates every one at the end
    python3 -c 'import json,sys; print(json.dumps({"name": sys.argv[1], "cmd": sys.argv[2], "config": sys.argv[3], "sets": sys.argv[4:]}))' \
      "$name" "$cmd" "$config" "${sets[@]}" >> "$CHECKFILE"
    echo 0 > "$LOGS/$name.rc"; return 0
  fi
  t=$(( dl - $(date +%s) ))
  if (( t < 20 )); then log "$name: not started, ${t} s left"; echo "not-started" > "$LOGS/$name.rc"; return 124; fi
  log "$name: train $cmd -c $config (timeout ${t} s)"
  local engine=()  # only a process that runs a vLLM engine gets its KV size (and imports vLLM early: wt.py)
  (( kv > 0 )) && engine=("WT_VLLM_KV_GIB=$kv" "WT_VLLM_UTIL=$ENGINE_UTIL" "VLLM_CACHE_ROOT=$H/.cache/vllm-$name")
  # QWEN_BATCHED_TOKENS: the engines' max_num_batched_tokens (TRL's colocated engine hard-codes 4096)
  (( kv > 0 )) && [[ -n ${QWEN_BATCHED_TOKENS:-} ]] && engine+=("WT_VLLM_BATCHED_TOKENS=$QWEN_BATCHED_TOKENS")
  env MASTER_PORT="$port" "${engine[@]}" \
    timeout -k 10 "$t" "${WT[@]}" "$cmd" -c "$config" "${args[@]}" > "$LOGS/$name.log" 2>&1
  rc=$?
  echo "$rc" > "$LOGS/$name.rc"
  log "$name: rc=$rc $(grep -v -E '^(INFO|DEBUG|WARNING|\(EngineCore)' "$LOGS/$name.log" | tail -n 1 | cut -c1-200)"
  return $rc
}
minutes() {  # minutes of training that leave START + FINAL seconds inside DEADLINE (>= 0.2)
  python3 -c 'import sys,time; print(max(0.2, round((float(sys.argv[1]) - time.time() - float(sys.argv[2])) / 60, 2)))' "$1" "$2"
}
inner_data() {  # QWEN_INNER: cut the inner split once (the ids fix it; a different train split is refused)
  [[ -z $INNER || -n $CHECK || -f $DATA/inner_val.jsonl.gz ]] && return 0
  python3 scripts/gpu/inner_split.py apply --data "$DATA" --ids scripts/gpu/inner_val_ids.json
}
arm_sets() {  # the data / SFT settings of a cold-start arm (one word each)
  case $1 in
    tellsall) echo 'star.mode="tells"' data.n_train=0 "coldstart.sft_max_steps=${QWEN_CS_LONG_STEPS:-${DRY:+3}}" ;;
    # tellsall with the verdict first ("The writing reads as CLAUDE's.", the tells after it): the decision
    # at the first tokens, where the answer-only SFT makes it. _ao: on top of the answer-only SFT (which
    # already makes the decision), for the research's 60 steps (QWEN_CS_AO_STEPS), so as not to unlearn it
    tellsfirst|tellsfirst_ao) local steps=${QWEN_CS_LONG_STEPS:-}; [[ $1 == *_ao ]] && steps=${QWEN_CS_AO_STEPS:-}
      echo 'star.mode="tells"' star.verdict_first=true data.n_train=0 "coldstart.sft_max_steps=${steps:-${DRY:+3}}" ;;
    *) echo "star.mode=\"$1\"" ;;
  esac
}
done_mark() { mkdir -p "$1" && echo "${2:-0}" > "$1/.done"; }   # the eval queue waits for it
queue() {  # queue OUT MODEL VARIANT MAX_NEW DONE_FILE [SPLIT]: a k = 4 eval for this call's queue (and the registry)
  # once per OUT in a call (callA's kept SFT and QWEN_E_RUNS may both ask for the same eval)
  [[ -f $JOBS ]] && cut -f1 "$JOBS" | grep -qxF -- "$1" && return 0
  (IFS=$'\t'; printf '%s\n' "$*") | tee -a "$RUNS/eval_jobs.tsv" >> "$JOBS"
}
job() {  # job OUT MODEL VARIANT MAX_NEW DONE_FILE: queue() the eval of a run about to (re)train
  # forget an earlier attempt's marker and eval, or the queue would take the old final as done (the
  # harness resumes traces of the same settings)
  [[ -n $CHECK ]] || { [[ $5 == - ]] || rm -f "$5"; rm -rf "$1"; }
  queue "$@"
}

# --- the runs (each takes its deadline; chains run their steps in order) -------------------------
r_sft_answer() {
  local dl=$1 d=$ANS
  wt sft_answer "$dl" 0 0 sft configs/qwen25_05b_answer_only_sft.toml "model.name_or_path=\"$MODEL\"" \
    "run.output_dir=\"$d\"" "run.max_minutes=$(minutes "$dl" $((SFT_START_S + SFT_FINAL_S)))"
  done_mark "$d" $?
}
r_star_chain() {  # STaR (plain + cheatsheet-hint rounds, gold never shown) on vLLM, then cold-start SFT-60
  local dl=$1 d=$Q/cs_star rows rc
  # every train row a candidate (session 4's 240 kept 58, 51 of them CLAUDE), at most QWEN_STAR_CAP per class
  local star=(data.n_train=0 "star.cap_per_class=${QWEN_STAR_CAP:-40}")  # the STaR data and its SFT alike
  if [[ -n ${QWEN_STAR_ROWS:-} && -z $CHECK ]]; then  # rows an earlier call kept (carried): its SFT starts at once
    mkdir -p "$d" && cp "$QWEN_STAR_ROWS/star.jsonl" "$QWEN_STAR_ROWS/star.stats.json" "$d/"
    rc=$?
    echo "$rc" > "$LOGS/star.rc"
    log "STaR: rows from $QWEN_STAR_ROWS (rc=$rc), no sampling"
  else
    wt star "$dl" 29631 6 coldstart "$CS_CFG" "model.name_or_path=\"$MODEL\"" "run.output_dir=\"$d\"" \
      'coldstart.stages=["star"]' "${star[@]}" ${DRY:+data.n_train=12 'star.fallback_round="goldcond"' star.min_rows=3}
    rc=$?
  fi
  rows=$(cat "$d/star.jsonl" 2>/dev/null | wc -l)
  log "STaR kept $rows rows (rc=$rc): $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print({k: s.get(k) for k in ("n_items","final_rows","by_gold","round1","round2","kept_modes","tokens_per_s")})' "$d/star.stats.json" 2>/dev/null)"
  if (( rc != 0 )) && grep -q "STaR kept no rows" "$LOGS/star.log"; then
    echo "0 (yield 0: a result, not a failure)" > "$LOGS/star.rc"
  fi
  if [[ -n $CHECK ]] || (( rows >= STAR_MIN_ROWS )); then
    wt cs_star_sft "$dl" 0 0 coldstart "$CS_CFG" "model.name_or_path=\"$MODEL\"" "run.output_dir=\"$d\"" \
      'coldstart.stages=["sft"]' 'data.val=""' "${star[@]}" "run.max_minutes=$(minutes "$dl" $((SFT_START_S + SFT_FINAL_S)))"
    done_mark "$d/sft" $?
  else
    log "STaR: $rows < $STAR_MIN_ROWS rows, no STaR cold start (the headline rung uses the tells cold start)"
    done_mark "$d/sft" "skip: STaR kept $rows rows (< $STAR_MIN_ROWS)"
  fi
}
r_lmfree_data() {  # the tells / fallback / tellsall rows callA's SFTs need (no LM; the GGUF's tokenizer cuts the
  # texts as the SFT will). Only those asked: each takes ~60 s, one after the other, and session 8's
  # callA lost 2 minutes of its tellsall SFT to building the tells and fallback rows it did not train on
  local dl=$1 m sets arms=()
  for m in tells fallback tellsall tellsfirst tellsfirst_ao; do [[ $A_SFTS == *" $m "* ]] && arms+=("$m"); done
  for m in "${arms[@]}"; do
    read -ra sets <<< "$(arm_sets "$m")"
    wt "cs_${m}_data" "$dl" 0 0 coldstart "$CS_CFG" "model.name_or_path=\"${TOKSRC:-$MODEL}\"" \
      "run.output_dir=\"$Q/cs_$m\"" "${sets[@]}" 'coldstart.stages=["star"]' ${DRY:+data.max_text_tokens=0}
  done
}
arm_start() {  # the weights an arm's cold-start SFT starts from: *_ao from the answer-only SFT, else the base
  case $1 in *_ao) echo "$ANS/final" ;; *) echo "$MODEL" ;; esac
}
cs_sft() {  # cs_sft DEADLINE ARM: cold-start SFT on the rows r_lmfree_data wrote for ARM (tells, fallback, tellsall)
  local dl=$1 m=$2 sets
  read -ra sets <<< "$(arm_sets "$m")"
  if [[ -n $CHECK || -f $Q/cs_$m/star.jsonl ]]; then
    wt "cs_${m}_sft" "$dl" 0 0 coldstart "$CS_CFG" "model.name_or_path=\"$(arm_start "$m")\"" "run.output_dir=\"$Q/cs_$m\"" \
      "${sets[@]}" 'coldstart.stages=["sft"]' 'data.val=""' \
      "run.max_minutes=$(minutes "$dl" $((SFT_START_S + SFT_FINAL_S)))"
  else
    log "cs_$m: no rows, no SFT"; echo "no-rows" > "$LOGS/cs_${m}_sft.rc"
  fi
  done_mark "$Q/cs_$m/sft" $?
}
r_tells_sft() { cs_sft "$1" tells; }
r_fallback_sft() { cs_sft "$1" fallback; }
r_tellsall_sft() { cs_sft "$1" tellsall; }
r_tellsfirst_sft() { cs_sft "$1" tellsfirst; }
answer_sft_done() {  # an earlier call's answer-only SFT saved its final weights (finished or at its time limit)
  [[ -f $ANS/final/config.json && $(cat "$ANS/.done" 2>/dev/null) == 0 ]]
}
r_tellsfirst_ao_chain() {  # the answer-only SFT, then tellsfirst's rationale SFT from its weights
  local dl=$1
  # session 17: both in one call left the answer-only SFT 64 steps (0.451; two full epochs give 0.999), so a
  # callA with QWEN_A_SFTS="answer" may train it first and this chain then starts from its weights
  if answer_sft_done; then log "cs_tellsfirst_ao: starts from the answer-only SFT an earlier call trained"
  else r_sft_answer $(( dl - ${QWEN_CS_AO_S:-150} )); fi  # QWEN_CS_AO_S: seconds kept for the second SFT
  if [[ -n $CHECK || -f $ANS/final/config.json ]]; then cs_sft "$dl" tellsfirst_ao
  else log "cs_tellsfirst_ao: no answer-only SFT to start from"; echo "no-start" > "$LOGS/cs_tellsfirst_ao_sft.rc"; done_mark "$Q/cs_tellsfirst_ao/sft" 1; fi
}
grpo_run() {  # grpo_run NAME DEADLINE PORT CMD CONFIG OUT_DIR START_MODEL [section.key=value ...]
  local name=$1 dl=$2 port=$3 cmd=$4 config=$5 d=$6 start=$7
  shift 7
  wt "$name" "$dl" "$port" 4 "$cmd" "$config" "model.name_or_path=\"$start\"" "run.output_dir=\"$d\"" \
    "run.max_minutes=$(minutes "$dl" $((GRPO_START_S + GRPO_FINAL_S + ${FINAL_EXTRA:-0})))" "${RL[@]}" "$@"
  done_mark "$d" $?
}
# cold start -> GRPO: ARM s SEED from ARM's SFT weights, every train row, in-loop eval every 10 steps
r_cs_grpo() {  # r_cs_grpo DEADLINE ARM SEED PORT [LR]; ARM "base": GRPO from the base model (checks, e.g. of the seed)
  local dl=$1 arm=$2 seed=$3 port=$4 lr=${5:-} sfx=${5:+_lr$5}${QWEN_ARM_TAG:-} start=$Q/cs_$2/sft/final
  [[ $arm == base ]] && start=$MODEL
  # resumable (RESUMABLE): a later call's run of the same arm and seed goes on from its checkpoint
  grpo_run "cs_${arm}_grpo_s$seed$sfx" "$dl" "$port" grpo "$CS_CFG" "$Q/cs_$arm/grpo_s$seed$sfx" "$start" \
    data.n_train=0 "run.seed=$seed" "${RESUMABLE[@]}" \
    ${DRY:+data.n_train=12} ${lr:+"grpo.lr=$lr"}
}
research_run() {  # research_run RECIPE DEADLINE PORT START_MODEL [section.key=value ...]
  local recipe=$1 dl=$2 port=$3 start=$4
  shift 4
  # RECIPE_unscored: the recipe's config in its own folder (the reward switch comes from go_research)
  grpo_run "$recipe" "$dl" "$port" research "configs/research/qwen25_05b_${recipe%_unscored}.toml" "$R/$recipe" "$start" "$@"
}
go_research() {  # go_research RUN DEADLINE PORT: an issue-16 run (k = 4 eval registered) in the background
  local r=$1 dl=$2 port=$3 start extra=() fx=0 variant=3way maxnew=$N3
  [[ $r == cheatsheet ]] && r=cheatsheet_grpo
  [[ $r == pureacc ]] && r=pureacc_grpo
  case $r in opcd|pureacc_grpo) start=$MODEL ;; *) start=$Q/cs_$(headline)/sft/final ;; esac
  # QWEN_RESEARCH_FROM=base: every recipe from the base model, as the research ran OPCD, RLSD(-anchored)
  # and cheatsheet GRPO (its step-0 val 0.22; the 0.5B base scores 0.14 on the 3-way val)
  [[ ${QWEN_RESEARCH_FROM:-} == base ]] && start=$MODEL
  [[ $r == pureacc_grpo ]] && variant=answer_only maxnew=$NA
  # rlsd_unscored: RLSD with the research's reward, which scores a cut-off completion by its fallback
  # answer (grpo.score_unfinished=true), beside "rlsd" with the shipped one (issue 16's ablation)
  local reward=()
  [[ $r == *_unscored ]] && reward=(grpo.score_unfinished=true)
  job "$R/$r/eval_k4" "$R/$r/final" "$variant" "$maxnew" "$R/$r/.done"
  # the surprisal schedule is a fraction of max_steps: set it near the steps the time allows (~20 s/step
  # shared), or to QWEN_RESEARCH_STEPS when the runs go on over several calls (the schedule must not move)
  if [[ -n ${QWEN_RESEARCH_STEPS:-} ]]; then extra=("grpo.max_steps=$QWEN_RESEARCH_STEPS")
  elif [[ $r == cheatsheet_grpo || $r == pureacc_grpo ]]; then extra=("grpo.max_steps=$(( (dl - $(date +%s) - GRPO_START_S) / 20 + 1 ))"); fi
  [[ -n $DRY ]] && extra=()
  extra+=("${reward[@]}")
  # QWEN_RESEARCH_RESUME=1: resumable like the headline arms
  [[ -n ${QWEN_RESEARCH_RESUME:-} ]] && extra+=("${RESUMABLE[@]}")
  # the cheatsheet run ends with the internalization check (two more HF evals of 120 texts); the
  # teacher modes would run it too (they have a cheatsheet), but here their minutes go to training
  case $r in cheatsheet_grpo) fx=60 ;; opcd|rlsd*) extra+=(research.internalization_check=false) ;; esac
  if [[ -n ${QWEN_SEQUENTIAL:-} || -n $CHECK ]]; then FINAL_EXTRA=$fx research_run "$r" "$dl" "$port" "$start" "${extra[@]}"
  else FINAL_EXTRA=$fx research_run "$r" "$dl" "$port" "$start" "${extra[@]}" & PIDS+=($!); RUNNING+=("$r"); fi
}
go_arms() {  # go_arms ARM:SEED[:LR]...: cold start -> GRPO runs (resumable), staggered ends; the first two the latest
  local arms=("$@") n=$# i a s lr d slot dl port=29621
  for i in "${!arms[@]}"; do
    IFS=: read -r a s lr <<< "${arms[$i]}"
    d=$Q/cs_$a/grpo_s$s${lr:+_lr$lr}${QWEN_ARM_TAG:-}
    job "$d/eval_k4_$TAG" "$d/final" 3way "$N3" "$d/.done"
  done
  for i in "${!arms[@]}"; do
    IFS=: read -r a s lr <<< "${arms[$i]}"
    if (( MAX_CO < 2 )); then  # one at a time: split what is left
      dl=$(( $(date +%s) + (D - EVAL_S * (n - i) - $(date +%s)) / (n - i) ))
      r_cs_grpo "$dl" "$a" "$s" $((port + i)) "$lr"
    else  # staggered ends, so the queue evaluates each final while the others still train
      slot=$(( i < 2 ? n - 2 + i : i - 2 ))
      go cs_grpo $(( D - EVAL_S * (n - slot) - 5 )) "$a" "$s" $((port + i)) "$lr"
    fi
  done
}
headline() {  # the cold start of the headline rung and of callC's research runs: tellsall (session 7's
  # best cold start, 0.470 / 0.912), else tells, else STaR, else fallback
  local arm
  for arm in tellsall tells star fallback; do
    if [[ -n $CHECK || -f $Q/cs_$arm/sft/final/config.json ]]; then echo "$arm"; return; fi
  done
  echo none
}

# --- the call skeleton ------------------------------------------------------------------------
begin_call() {  # TAG CALL_S
  TAG=$1; T0=$(date +%s); D=$(( T0 + ${QWEN_CALL_S:-$2} )); JOBS=$RUNS/jobs_$TAG.tsv
  : > "$JOBS"; PIDS=(); RUNNING=()
  [[ -d $DATA ]] && { inner_data || log "call $TAG: the inner split failed"; }
  log "call $TAG: deadline in $(( D - T0 )) s (max colocate $MAX_CO${QWEN_SEQUENTIAL:+, sequential})"
  MEMPID=""  # GPU memory every 10 s, so the next session can size how many processes share the GPU
  if [[ -z $DRY && -z $CHECK ]] && command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=timestamp,memory.used,utilization.gpu --format=csv,noheader -l 10 > "$LOGS/gpumem_$TAG.log" 2>&1 &
    MEMPID=$!
  fi
  catch_up
}
catch_up() {  # k = 4 evals an earlier call registered but did not get to (its model exists)
  [[ -f $RUNS/eval_jobs.tsv ]] || return 0
  local out model variant maxnew donef split
  while IFS=$'\t' read -r out model variant maxnew donef split; do
    [[ -f $out/summary.json || ! -f $model/config.json ]] && continue
    grep -q -F "$out	" "$JOBS" || printf '%s\t%s\t%s\t%s\t%s%s\n' "$out" "$model" "$variant" "$maxnew" "$donef" "${split:+	$split}" >> "$JOBS"
  done < "$RUNS/eval_jobs.tsv"
}
split_evals() {  # split_evals [RUN_DIR VARIANT MAX_NEW]: with QWEN_SPLITS=DIR (carried *.jsonl.gz,
  # scripts/gpu/edit_splits.py) a run's final weights scored on each file too (its 6th job field): issue
  # 17's edits and the unseen chat genre. Default run: the answer-only SFT, once callA trained it
  [[ -n ${QWEN_SPLITS:-} ]] || return 0
  local f name d=${1:-$ANS} variant=${2:-answer_only} maxnew=${3:-$NA}
  mkdir -p "$H/splits"
  for f in "$QWEN_SPLITS"/*.jsonl.gz; do
    [[ -f $f ]] || continue
    name=$(basename "$f" .jsonl.gz)
    [[ -f $d/eval_k4_$name/summary.json ]] && continue  # an earlier call scored it
    [[ -n $CHECK ]] || gunzip -c "$f" > "$H/splits/$name.jsonl"
    # not job(): the model is already trained, so its done marker must stay
    queue "$d/eval_k4_$name" "$d/final" "$variant" "$maxnew" "$d/.done" "$H/splits/$name.jsonl"
  done
}
start_queue() {  # one eval engine for the call, warm on the base model, until END + all jobs done
  if [[ -n $CHECK ]]; then
    python3 -c 'import json,sys; print(json.dumps({"name": "queue", "cmd": "evaluate", "config": sys.argv[1], "sets": []}))' \
      "$EVAL_CFG" >> "$CHECKFILE"; return 0
  fi
  gunzip -kf "$DATA/val.jsonl.gz"
  local args=(--jobs "$JOBS" --split "$DATA/val.jsonl" -c "$EVAL_CFG" --deadline $(( D - 5 )) --min-left "$EVAL_S"
              --backend "$([[ -n $DRY ]] && echo transformers || echo vllm)" --warm "$MODEL")
  [[ -n $DRY ]] && args+=(--set data.max_text_tokens=64 --set eval.n_val=6 --set 'model.dtype="float32"')
  WT_VLLM_KV_GIB=6 WT_VLLM_UTIL=$ENGINE_UTIL VLLM_CACHE_ROOT=$H/.cache/vllm-queue timeout -k 5 $(( D - $(date +%s) )) \
    python3 scripts/gpu/eval_queue.py "${args[@]}" > "$LOGS/queue_$TAG.log" 2>&1 &
  QPID=$!
}
go() {  # go NAME DEADLINE [args]: r_NAME in the background (or in the foreground when sequential)
  local name=$1
  shift
  if [[ -n ${QWEN_SEQUENTIAL:-} || -n $CHECK ]]; then "r_$name" "$@"; return; fi
  "r_$name" "$@" &
  PIDS+=($!); RUNNING+=("$name")
}
end_call() {  # wait for every run, then the queue; pack; report
  local i rc
  for i in "${!PIDS[@]}"; do wait "${PIDS[$i]}"; done
  echo END >> "$JOBS"
  if [[ -z $CHECK ]]; then
    if grep -qv '^END$' "$JOBS"; then wait "$QPID"; rc=$?
    else  # no eval this call (callA with nothing to train): do not wait for the engine to warm (session 24: ~60 s)
      kill "$QPID" 2> /dev/null; wait "$QPID" 2> /dev/null; rc=0; log "queue: no eval this call, stopped"
    fi
    echo "$rc" > "$LOGS/queue_$TAG.rc"
    if [[ -n $MEMPID ]]; then
      kill "$MEMPID" 2> /dev/null; wait "$MEMPID" 2> /dev/null
      log "GPU memory used, peak: $(cut -d, -f2 "$LOGS/gpumem_$TAG.log" | sort -n | tail -n 1)"
    fi
    grep -E '\[eval-queue' "$LOGS/queue_$TAG.log" 2> /dev/null | cut -c1-220  # a queue stopped at once may have no log
    report
    pack "$TAG"
  fi
  finish
}
fail_call() {  # MESSAGE: a call that cannot go on records why, so finish reports the failure (session 18's
  # A1 met a machine without the stage and finish said "every stage succeeded": no stage had written an .rc)
  log "call $TAG: $1"
  echo "1 ($1)" > "$LOGS/call_$TAG.rc"
  finish
  return 1
}
finish() {
  local f bad=()
  for f in "$LOGS"/*.rc; do
    [[ -f $f && $f -nt $STATE/call_$TAG.start ]] || continue
    [[ $(head -c 1 "$f") == 0 ]] || bad+=("$(basename "$f" .rc): $(cat "$f")")
  done
  if (( ${#bad[@]} )); then log "call $TAG: ${#bad[@]} stage(s) failed:"; printf '  %s\n' "${bad[@]}"; return 1; fi
  log "call $TAG: every stage succeeded ($(( $(date +%s) - T0 )) s)"
}

report() {  # one line per eval summary and per training run: what the lead reads before the next call
  python3 - "$RUNS" <<'EOF' || true
import json, sys
from pathlib import Path
root = Path(sys.argv[1])
for p in sorted(root.glob("*/**/summary.json")):
    s = json.loads(p.read_text())
    pp = s.get("per_provider") or {}
    rec = "/".join(f"{(pp.get(k) or {}).get('recall', float('nan')):.2f}" for k in ("CLAUDE", "CHATGPT", "GEMINI"))
    k = (s.get("sampling") or {}).get("k") or s.get("k", 4)
    print(f"  eval {p.parent.relative_to(root)}: pass@1 {s.get('accuracy')} pass@{k} {s.get(f'pass@{k}')} "
          f"recall C/P/G {rec} trunc {s.get('truncation_rate')} faith {s.get('faithfulness')} n {s.get('n_examples')}")
for p in sorted(root.glob("*/**/final_eval.json")):
    f = json.loads(p.read_text())
    fin, best, col = f.get("final") or {}, f.get("best") or {}, f.get("collapse")
    print(f"  run {p.parent.relative_to(root)}: in-loop final {fin.get('accuracy')}@{fin.get('step')} "
          f"best {best.get('accuracy')}@{best.get('step')}" + (f" collapse {col.get('kinds')}" if col else ""))
for p in sorted(root.glob("*/**/star.stats.json")):
    s = json.loads(p.read_text())
    print(f"  star {p.parent.relative_to(root)}: mode {s.get('mode')} kept {s.get('final_rows')} of {s.get('n_items')}")
EOF
}

pack() {  # small results of RUNS -> OUT/results_TAG.tgz (qwen05b/ with logs/call_TAG/, research/); completions -> traces_TAG.tgz
  local tag=$1 tmp
  tmp=$(mktemp -d)
  (cd "$RUNS" && find qwen05b research -path '*/final' -prune -o -path '*/best' -prune -o -path '*/checkpoint-*' -prune -o \
      -type f \( -name '*.json' -o -name '*.jsonl' -o -name '*.csv' -o -name '*.png' -o -name '*.toml' \) -print 2>/dev/null |
      grep -v -E 'traces\.jsonl$|star\.jsonl$|/internalization/(step[0-9]+/)?val\.jsonl$' | tar -cf - -T - | tar -xf - -C "$tmp")
  local lg=$tmp/qwen05b/logs/call_$tag
  mkdir -p "$lg"
  for f in "$LOGS"/*; do  # logs: the lines that are not vLLM/TRL chatter, and the tail
    [[ -f $f ]] || continue
    { grep -v -E '^(INFO|DEBUG|\(EngineCore)' "$f" | tail -n 300; } > "$lg/$(basename "$f")"
  done
  cp "$RUNS"/jobs_*.tsv "$RUNS"/jobs_*.results.jsonl "$lg/" 2>/dev/null
  tar -czf "$OUT/results_$tag.tgz" -C "$tmp" .
  (cd "$RUNS" && find qwen05b research -path '*/final' -prune -o \( -name 'traces.jsonl' -o -name '*.traces.jsonl' \
      -o -name 'star.jsonl' \) -print 2>/dev/null | tar -czf "$OUT/traces_$tag.tgz" -T -)
  rm -rf "$tmp"
  ls -la "$OUT"
}

install_and_export() {  # callA's first minute: the last chunk, install, export the GGUF (tells/fallback rows meanwhile)
  if [[ -n $DRY ]]; then
    STAGE_DRY=1 bash scripts/gpu/stage.sh recv "${QWEN_LAST_CHUNK:-$(bash scripts/gpu/stage.sh last)}" || return 1
    [[ -f $MODEL/config.json ]] || "${WT[@]}" tiny-model "$MODEL" > /dev/null || return 1
  else
    [[ -d $X/wheels ]] || bash scripts/gpu/stage.sh recv "${QWEN_LAST_CHUNK:-$(bash scripts/gpu/stage.sh last)}" || return 1
    nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv
  fi
  inner_data || return 1
  if [[ ! -f $MODEL/config.json ]]; then
    TOKSRC=$GGUF r_lmfree_data "$D" > "$LOGS/lmfree_data.chain.log" 2>&1 &
    local lp=$! t=$SECONDS
    timeout 240 "${WT[@]}" export-model "$GGUF" "$MODEL" --dtype bfloat16 > "$LOGS/export.log" 2>&1
    local rc=$?
    echo "$rc" > "$LOGS/export.rc"
    log "export rc=$rc in $(( SECONDS - t )) s: $(ls "$MODEL" 2>/dev/null | tr '\n' ' ')"
    wait "$lp"; cat "$LOGS/lmfree_data.chain.log"
    (( rc == 0 )) || return 1
  else
    r_lmfree_data "$D"
  fi
}

# --- the calls --------------------------------------------------------------------------------
callA() {  # rung 2, the three cold starts; the two issue-16 runs that start from the base model
  begin_call A 575
  if [[ -z $CHECK ]]; then install_and_export || { fail_call "staging/export failed"; return 1; }; else r_lmfree_data "$D"; fi
  if [[ -n ${QWEN_BASE_EVALS:-} ]]; then
    job "$Q/base_eval_3way" "$MODEL" 3way "$N3" -
    job "$Q/base_eval_answer_only" "$MODEL" answer_only "$NA" -
  fi
  start_queue
  split_evals
  runs_split_evals  # an earlier call's models under the edits while this one trains
  # registered now, so the queue waits for them (done markers)
  local sfts=$A_SFTS a
  # tellsfirst_ao's first half is the answer-only SFT: scored like the "answer" arm (trained once, below)
  [[ $sfts == *" tellsfirst_ao "* && $sfts != *" answer "* ]] && ! answer_sft_done && sfts+="answer "
  # session 21: a second callA (for more split evals) retrained a finished answer-only SFT from scratch
  # and overwrote its weights; a finished one is kept (a new QWEN_ARM_TAG trains afresh)
  if [[ $sfts == *" answer "* ]] && answer_sft_done; then
    sfts=${sfts/" answer "/" "}
    log "sft_answer: kept the answer-only SFT an earlier call finished ($ANS)"
    [[ -f $ANS/eval_k4/summary.json ]] || queue "$ANS/eval_k4" "$ANS/final" answer_only "$NA" "$ANS/.done"
  fi
  for a in $sfts; do  # (ready jobs run in file order: the order here hardly matters)
    if [[ $a == answer ]]; then job "$ANS/eval_k4" "$ANS/final" answer_only "$NA" "$ANS/.done"
    else job "$Q/cs_$a/sft/eval_k4" "$Q/cs_$a/sft/final" 3way "$N3" "$Q/cs_$a/sft/.done"; fi
  done
  [[ $sfts == *" tells "* ]] && go tells_sft $(( D - 6 * EVAL_S ))
  # tellsall (and tellsfirst) train the longest (130 steps, ~160 s alone): the latest deadline (session 7's first
  # callA gave it D - 6 x EVAL_S after a 2.5-min install and it stopped at step 39)
  [[ $sfts == *" tellsall "* ]] && go tellsall_sft $(( D - 2 * EVAL_S ))
  [[ $sfts == *" tellsfirst "* ]] && go tellsfirst_sft $(( D - 2 * EVAL_S ))
  # tellsfirst_ao trains the answer-only SFT itself (first), so "answer" is not started a second time
  if [[ $sfts == *" tellsfirst_ao "* ]]; then go tellsfirst_ao_chain $(( D - 2 * EVAL_S ))
  elif [[ $sfts == *" answer "* ]]; then go sft_answer $(( D - 5 * EVAL_S )); fi
  [[ $sfts == *" star "* ]] && go star_chain $(( D - 4 * EVAL_S ))
  [[ $sfts == *" fallback "* ]] && go fallback_sft $(( D - 4 * EVAL_S ))
  # shellcheck disable=SC2206
  local runs=(${QWEN_A_RUNS:-opcd pureacc}) i
  for i in "${!runs[@]}"; do go_research "${runs[$i]}" $(( D - EVAL_S * (${#runs[@]} - i) - 5 )) $((29641 + i)); done
  end_call
}
callB() {  # rung 5: cold start -> GRPO; the headline (tells) on two seeds, STaR and fallback on one
  begin_call B 575
  start_queue
  split_evals
  local arms=() a
  arms=(tells:0 tells:1)
  for a in star fallback; do [[ -n $CHECK || -f $Q/cs_$a/sft/final/config.json ]] && arms+=("$a:0"); done
  # shellcheck disable=SC2206
  [[ -n ${QWEN_B_ARMS:-} ]] && arms=($QWEN_B_ARMS)
  for a in "${arms[@]}"; do  # every arm's cold start must be there (callA made it)
    [[ -n $CHECK || ${a%%:*} == base || -f $Q/cs_${a%%:*}/sft/final/config.json ]] ||
      { fail_call "no ${a%%:*} cold start from callA"; return 1; }
  done
  (( MAX_CO < 2 )) && arms=("${arms[@]:0:2}") && log "one colocated process at a time: only the headline's two seeds"
  go_arms "${arms[@]}"
  end_call
}
callE() {  # evals only: every QWEN_SPLITS file on each finished run of QWEN_E_RUNS (folders under qwen05b/,
  # e.g. cs_tellsfirst_ao/grpo_s0_lr5e-6_mp05); callB's models under the edits while the machine still holds them
  begin_call E 300
  [[ -n ${QWEN_SPLITS:-} ]] || { fail_call "callE needs QWEN_SPLITS"; return 1; }
  start_queue
  runs_split_evals
  end_call
}
runs_split_evals() {  # split_evals on each finished run of QWEN_E_RUNS (callE; callA too, beside its training)
  local r d
  for r in ${QWEN_E_RUNS:-}; do
    d=$Q/$r
    [[ -f $d/final/config.json ]] || { log "QWEN_E_RUNS: no final weights in $d, skipped"; continue; }
    if [[ $r == sft_answer_only* ]]; then
      # its raw val first: callA queues it last, after its split evals, so a call that ran out of time
      # leaves it to this one (a GRPO run's raw eval is callB's eval_k4_B)
      [[ -f $d/eval_k4/summary.json ]] || queue "$d/eval_k4" "$d/final" answer_only "$NA" "$d/.done"
      split_evals "$d" answer_only "$NA"
    else split_evals "$d" 3way "$N3"; fi
  done
}
callC() {  # the headline's two seeds go on from callB's checkpoints; issue 16's runs from the tells cold start
  begin_call C 480
  start_queue
  split_evals
  # shellcheck disable=SC2206
  local runs=(${QWEN_C_RUNS:-rlsd rlsd_anchored cheatsheet}) i arms
  # shellcheck disable=SC2206
  arms=(${QWEN_C_ARMS:-tells:0 tells:1})
  go_arms "${arms[@]}"
  # the research runs end before the arms (whose two latest ends go_arms takes), one eval apart
  for i in "${!runs[@]}"; do go_research "${runs[$i]}" $(( D - EVAL_S * (${#runs[@]} + ${#arms[@]} - i) - 5 )) $((29641 + i)); done
  end_call
}

stage_check() {  # every trainer command of callA/B/C (GPU and dry overrides) against the configs, on CPU;
  # and the carry size of a staging call
  local rc=0 mode
  for mode in gpu dry; do
    CHECKFILE=$(mktemp)
    (
      export QWEN_CHECK=1 CHECKFILE QWEN_HOME
      QWEN_HOME=$(mktemp -d)
      [[ $mode == dry ]] && export QWEN_DRY=1
      for c in callA callB callC; do bash "$0" "$c" > /dev/null || exit 1; done
    ) || rc=1
    python3 scripts/gpu/check_config.py "$CHECKFILE" --label "$mode" || rc=1
    rm -f "$CHECKFILE"
  done
  bash scripts/gpu/stage.sh fits || rc=1  # a chunk plus the tree must fit one call (session 23)
  return $rc
}

stage_dry() {  # CPU: the whole sequence with the tiny model; exit 1 if any call failed
  export QWEN_DRY=1
  local rc=0 n c
  n=$(find .stage -name 'chunk.*' | wc -l)
  (( n > 0 )) || { log "dry: no .stage/p*/chunk.* (run stage.sh pack first)"; return 2; }
  for c in $(seq 1 $((n - 1))); do STAGE_DRY=1 bash "$0" stage "$c" || rc=1; done
  for c in callA callB callC; do
    log "dry: $c"
    OUT=$H/out_$c QWEN_LAST_CHUNK=$n bash "$0" "$c" || { rc=1; log "dry: $c FAILED"; }
  done
  if [[ -n ${QWEN_SPLITS:-} ]]; then  # callB's first headline seed under the edits
    log "dry: callE"
    OUT=$H/out_callE QWEN_E_RUNS=${QWEN_E_RUNS:-cs_tells/grpo_s0} bash "$0" callE || { rc=1; log "dry: callE FAILED"; }
  fi
  (( rc == 0 )) && log "dry run: every call succeeded" || log "dry run: FAILED"
  return $rc
}

case "${1:-}" in
  stage) bash scripts/gpu/stage.sh recv "$2" ;;
  bench)  # vLLM vs HF generate at issue 14's shape, warmed up at the full batch, temperature-only too
    if [[ -n $DRY ]]; then log "bench: GPU only"; exit 0; fi
    [[ -d $X/wheels ]] || bash scripts/gpu/stage.sh recv "${QWEN_LAST_CHUNK:-$(bash scripts/gpu/stage.sh last)}" || exit 1
    timeout "${QWEN_BENCH_S:-300}" python3 scripts/gpu/bench_generate.py --shape smollm2-135m --reps 5 --hf-reps 3 \
      --temperature-only --no-hf-nomask --work "$H/bench_models" --out "$OUT/bench_smollm2-135m.json" ${QWEN_BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
    rc=$?
    grep -v -E '^(INFO|DEBUG|WARNING|\(EngineCore)' "$OUT/bench.log" | tail -n 20
    log "bench rc=$rc"; exit $rc ;;
  callA|callB|callC|callE)
    touch "$STATE/call_${1#call}.start"; sleep 1
    "$1" ;;
  status)
    nvidia-smi 2>/dev/null | head -n 20; df -h "$H" | tail -n 1
    ls "$X" "$MODEL" 2>/dev/null | head; find "$Q" "$R" -maxdepth 3 -name 'summary.json' 2>/dev/null
    ;;
  pack) pack "${2:-manual}" ;;
  check) stage_check ;;
  dry) stage_dry ;;
  *) echo "usage: qwen_calls.sh stage N|bench|callA|callB|callC|callE|status|pack TAG|check|dry" >&2; exit 2 ;;
esac
