#!/usr/bin/env bash
# Trains the span reader of FATHOM's default model and pairs it with the root policy in data/checkpoints/default:
#   1. reader SFT: the span loss on the generated reader curriculum (configs/sft/reader.json), from scratch, with word
#      noise in its second stage (about 11 minutes of steps on this machine);
#   2. the reader replaces data/checkpoints/default/reader (the shipped one is this step's);
#   3. with `grpo`: GRPO of the reader, its leaf reads sampled as spans inside real episodes whose turns the frozen
#      root writes (configs/grpo/reader.json, reward = correctness), and the GRPO reader replaces the SFT one. On
#      2026-12-07 it measured no better (docs/RESULTS.md), so the shipped reader is step 2's.
# The root (the files of data/checkpoints/default itself) is the sentence-grpo policy of experiments/sentence; its
# recipe is there. Usage: bash scripts/train-default.sh [grpo]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
fathom=apps/cli/bin/fathom

install_reader() {
  rm -rf data/checkpoints/default/reader
  mkdir -p data/checkpoints/default/reader
  cp "$1"/* data/checkpoints/default/reader/
  echo "train-default: data/checkpoints/default/reader is now $1"
}

rm -rf out/reader
"$fathom" sft --config configs/sft/reader.json
install_reader out/reader/final

if [ "${1:-}" = grpo ]; then
  rm -rf out/reader-grpo
  mkdir -p out/grpo
  "$fathom" data generate --split train --n 400 --seed 5 --min-tokens 4096 --max-tokens 32768 \
    --mix niah=1,extractive=1,tracking=1,multi_hop=1 --out out/grpo/tasks-reader.jsonl
  "$fathom" train --config configs/grpo/reader.json --out out/reader-grpo
  install_reader out/reader-grpo/final
fi
