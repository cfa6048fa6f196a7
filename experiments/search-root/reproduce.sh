#!/usr/bin/env bash
# Reproduces the question-only root stage (experiments/search-root/sft/search-stage6.json): 2,500 train tasks (seed 0), one teacher
# episode per task where niah, extractive and tracking are written by their `search_question` strategy (the
# `read_mentions` programs, which copy the key, weigh 0; every other type keeps the default mix), then two SFT stages
# from the default-sft checkpoint (restored into out/checkpoints/default-sft): sft/search-stage6.json (300 steps) and
# sft/search-stage6b.json (300 more on the same data in another order, which makes sampled programs work more often). Leaf reads are not trained here: the reader of
# experiments/reader answers them (`fathom eval --reader-checkpoint out/checkpoints/reader --extractive-reads`). Everything
# is seeded; measured times and results are in experiments/search-root/NOTE.md. The checkpoint is out/sft6/run2/final
# (committed as data/checkpoints/search-root until 8afa168).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
bash experiments/checkpoint.sh default-sft
mkdir -p out/sft6
fathom data generate --split train --n 2500 --seed 0 --out out/sft6/tasks-train.jsonl
fathom sft-data --tasks out/sft6/tasks-train.jsonl --out out/sft6/teacher-train.jsonl --seed 0 --per-task 1 \
  --mix niah.read_mentions=0,extractive.read_mentions=0,tracking.read_mentions=0
fathom sft --config experiments/search-root/sft/search-stage6.json
fathom sft --config experiments/search-root/sft/search-stage6b.json
