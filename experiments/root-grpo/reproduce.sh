#!/usr/bin/env bash
# GRPO of the default root under its frozen GRPO reader (issue 49's "GRPO of the pair"): two runs from the root of
# data/checkpoints/default on 400 train tasks of all six types (4K–32K tokens), reward = correctness, lr 5e-5,
# β = 0.04: leaf reads sampled at temperature 1 (grpo/root-sampled-reads.json, 50 steps of 4 tasks × 8 episodes)
# and read greedily (grpo/root-greedy-reads.json, 25 steps of 8 tasks × 8 episodes), about 30 minutes each here;
# then two later runs with greedy reads, 4 tasks a step: lr 1e-4 for 80 steps (grpo/root-long.json, stopped at step
# 32 when its training reward had halved; this script runs it whole) and the sequence-level loss with a symmetric clip
# for 40 steps (grpo/root-sequence-loss.json, about 20 minutes); and that run with only the completions better than
# their group's mean reinforced (grpo/root-positive.json, negativeAdvantages drop), also sampled on seeds 21 and 22.
# Each GRPO root is paired with the default reader in out/checkpoints/<run> and evaluated beside the default pair on
# 200 heldout tasks of seed 7, greedy, and on its first 100, sampled with seeds 0, 1 and 2.
set -euo pipefail
cd "$(dirname "$0")/../.."
fathom=apps/cli/bin/fathom
mkdir -p out/grpo out/eval out/checkpoints
"$fathom" data generate --split train --n 400 --seed 6 --min-tokens 4096 --max-tokens 32768 \
  --mix niah=1,extractive=1,tracking=1,counting=1,multi_hop=1,multi_needle=1 --out out/grpo/tasks-root.jsonl
"$fathom" data generate --split heldout --n 200 --seed 7 --out out/eval/heldout-7.jsonl
checkpoints=(data/checkpoints/default)
for run in root-sampled-reads root-greedy-reads root-long root-sequence-loss root-positive; do
  rm -rf "out/$run" "out/checkpoints/$run"
  "$fathom" train --config "experiments/root-grpo/grpo/$run.json" --out "out/$run"
  mkdir -p "out/checkpoints/$run"
  cp "out/$run/final"/* "out/checkpoints/$run/"
  cp -r data/checkpoints/default/reader "out/checkpoints/$run/"
  checkpoints+=("out/checkpoints/$run")
done
for checkpoint in "${checkpoints[@]}"; do
  "$fathom" eval --checkpoint "$checkpoint" --tasks out/eval/heldout-7.jsonl --n 200 --baselines none
  "$fathom" eval --checkpoint "$checkpoint" --tasks out/eval/heldout-7.jsonl --n 100 --mode sampled --seeds 0,1,2 \
    --baselines none
done
for checkpoint in data/checkpoints/default out/checkpoints/root-positive; do
  for seed in 21 22; do
    "$fathom" eval --checkpoint "$checkpoint" --split heldout --data-seed "$seed" --n 100 --mode sampled --seeds 0,1,2 \
      --baselines none
  done
done
