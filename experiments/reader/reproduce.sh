#!/usr/bin/env bash
# Reproduces the extractive reader (experiments/reader/NOTE.md) in two SFT stages from the default-sft checkpoint
# (restored from history into out/checkpoints/default-sft), readers only (the 200 teacher episodes the configs name are longer than their seqLen and are
# dropped):
#   1. sft/reader-drills.json: 18,600 copy drills (random words, codes and numbers, answered by copying the
#      whole chunk), batch 32, 1,000 steps;
#   2. sft/reader-extractive.json: 18,600 readers of chunks up to 400 characters (a quarter copy drills, a
#      quarter evidence-only, half with distractors), batch 16, 800 steps.
# Everything is seeded. The checkpoint is out/reader/run/final; read it with `fathom eval --extractive-reads`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
bash experiments/checkpoint.sh default-sft
mkdir -p out/reader
fathom data generate --split train --n 200 --seed 7 --max-tokens 8000 --out out/reader/tasks.jsonl
fathom sft-data --tasks out/reader/tasks.jsonl --out out/reader/teacher.jsonl --seed 7 \
  --readers 20000 --readers-out out/reader/drills.jsonl --readers-seed 6 --readers-copy-share 1
fathom sft-data --tasks out/reader/tasks.jsonl --out out/reader/teacher.jsonl --seed 7 \
  --readers 20000 --readers-out out/reader/readers.jsonl --readers-seed 7 --readers-max-chunk 400 \
  --readers-evidence-share 0.33 --readers-copy-share 0.25
fathom sft --config experiments/reader/sft/reader-drills.json
fathom sft --config experiments/reader/sft/reader-extractive.json "$@"
