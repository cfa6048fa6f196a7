#!/usr/bin/env bash
# Reproduces the default tiny model's SFT checkpoint (committed as data/checkpoints/default-sft): the train split,
# two teacher episodes per task (two different strategies), then SFT in four stages, each continuing from the last
# checkpoint of the one before: configs/sft/default.json (350 steps from a fresh model, lr 1e-3), default-stage2.json
# (250 steps, lr 3e-4), default-stage3.json (250 steps, lr 5e-4) and default-stage4.json (300 steps, lr 3e-4).
# Everything is seeded. Takes about 85 minutes on two CPU cores (docs/RESULTS.md has the measured times, and says how
# the committed checkpoint's stages 1-3 differ: they were trained on the teacher's episodes before it answered with
# answer()). The checkpoint is out/sft/run4/final; copy it to data/checkpoints/default-sft to replace the committed one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/sft
fathom data generate --split train --n 1000 --seed 0 --out out/sft/tasks-train.jsonl
fathom sft-data --tasks out/sft/tasks-train.jsonl --out out/sft/teacher-train.jsonl --seed 0 --per-task 2
fathom sft --config configs/sft/default.json "$@"
fathom sft --config configs/sft/default-stage2.json "$@"
fathom sft --config configs/sft/default-stage3.json "$@"
fathom sft --config configs/sft/default-stage4.json "$@"
