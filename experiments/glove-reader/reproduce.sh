#!/usr/bin/env bash
# Frozen pretrained word vectors as a reader input (issue 49's unseen wordings): the default reader's SFT
# (configs/sft/reader.json) and two readers that also take GloVe 6B 100d vectors of their chunk words through a
# learned projection (model.wordVectors), with the second stage's word noise at 0.3 and 1 (noise replaces a word's
# hashed id and keeps its vector). About 6 minutes of steps each here. Each reader's leaf reads are measured on
# 400 heldout reader examples of data seeds 7, 21 and 22 (chunks up to 1,000 characters), split by frame family.
set -euo pipefail
cd "$(dirname "$0")/../.."
fathom=apps/cli/bin/fathom
bash scripts/word-vectors.sh
readers=()
for run in baseline noise30 noise100; do
  rm -rf "out/glove-reader/$run"
  if [ "$run" = baseline ]; then
    "$fathom" sft --config configs/sft/reader.json --set out=out/glove-reader/baseline
  else
    "$fathom" sft --config "experiments/glove-reader/sft/$run.json"
  fi
  readers+=("out/glove-reader/$run/final")
done
for seed in 7 21 22; do
  for reader in "${readers[@]}"; do
    echo "seed $seed, $reader"
    "$fathom" eval --n 0 --split heldout --data-seed "$seed" --readers 400 --readers-max-chunk 1000 \
      --reader-checkpoint "$reader"
  done
done
