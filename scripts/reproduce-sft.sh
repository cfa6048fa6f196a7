#!/usr/bin/env bash
# Reproduces the default tiny model's SFT checkpoint (committed as data/sft-default): the train split, the
# teacher's episodes over it, then SFT with configs/sft/default.json. Everything is seeded. Takes about an hour
# on two CPU cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/sft
fathom data generate --split train --n 1000 --seed 0 --out out/sft/tasks-train.jsonl
fathom sft-data --tasks out/sft/tasks-train.jsonl --out out/sft/teacher-train.jsonl --seed 0
fathom sft --config configs/sft/default.json "$@"
