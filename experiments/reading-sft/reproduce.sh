#!/usr/bin/env bash
# Reproduces the reading SFT stage (experiments/reading-sft/sft/reading-stage5.json): the tasks that need reading (2,500 train
# tasks, seed 0), one teacher episode per task (robust 80%, repairs 15%, keys copied into the code as literals),
# 20,000 leaf reader examples, then 400 SFT steps from the answer() checkpoint committed at c891b9c (the default
# before the reading stage), which git keeps in this repository's history. Everything is seeded; measured times and
# results are in experiments/reading-sft/NOTE.md. The checkpoint is out/sft5/run/final.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE_COMMIT=c891b9c
if ! git cat-file -e "${BASE_COMMIT}^{commit}" 2>/dev/null; then
  echo "reproduce-reading-sft: commit ${BASE_COMMIT} (the base checkpoint) is not in this clone; fetch the full history" >&2
  exit 1
fi
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/sft5
rm -rf out/sft5/base && mkdir -p out/sft5/base
git archive "$BASE_COMMIT" data/checkpoints/default-sft | tar -x --strip-components=3 -C out/sft5/base
fathom data generate --split train --n 2500 --seed 0 --out out/sft5/tasks-train.jsonl
fathom sft-data --tasks out/sft5/tasks-train.jsonl --out out/sft5/teacher-train.jsonl --seed 0 --per-task 1 \
  --readers 20000 --readers-out out/sft5/readers-train.jsonl
fathom sft --config experiments/reading-sft/sft/reading-stage5.json "$@"
