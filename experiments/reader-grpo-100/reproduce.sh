#!/usr/bin/env bash
# The default recipe's reader GRPO (configs/grpo/reader.json, 40 steps) run for 100 steps (grpo/reader-100.json, about
# 35 minutes here) from the SFT reader of configs/sft/reader.json under the frozen default root, then the three readers
# (SFT, the default's 40-step GRPO reader, the 100-step one) each paired with the default root on the first 100
# heldout tasks of data seed 7, sampled with seeds 0, 1 and 2, and the 100-step reader greedy on all 200.
set -euo pipefail
cd "$(dirname "$0")/../.."
fathom=apps/cli/bin/fathom
mkdir -p out/grpo out/eval
rm -rf out/reader out/reader-grpo-100
"$fathom" sft --config configs/sft/reader.json
"$fathom" data generate --split train --n 400 --seed 5 --min-tokens 4096 --max-tokens 32768 \
  --mix niah=1,extractive=1,tracking=1,multi_hop=1 --out out/grpo/tasks-reader.jsonl
"$fathom" train --config experiments/reader-grpo-100/grpo/reader-100.json --out out/reader-grpo-100
"$fathom" data generate --split heldout --n 200 --seed 7 --out out/eval/heldout-7.jsonl
for reader in out/reader/final data/checkpoints/default/reader out/reader-grpo-100/final; do
  "$fathom" eval --tasks out/eval/heldout-7.jsonl --n 100 --mode sampled --seeds 0,1,2 --baselines none \
    --reader-checkpoint "$reader"
done
"$fathom" eval --tasks out/eval/heldout-7.jsonl --n 200 --baselines none --reader-checkpoint out/reader-grpo-100/final
