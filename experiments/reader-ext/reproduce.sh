#!/usr/bin/env bash
# Extractive SFT of the reader, then its GRPO (experiments/reader-ext/NOTE.md).
# 1. sft/reader-ext.json: 200 steps from the reader-grpo checkpoint (out/checkpoints/reader-grpo) on 18,600 reader examples (chunks up
#    to 700 characters, half of the distractor chunks holding only key sentences), each answer scored under its
#    chunk's span constraint (data.extractiveReads). About 8 minutes on the 2-core machine.
# 2. grpo/reader-ext-grpo.json: GRPO of that reader under the frozen search-grpo root, on the same 1,000 one-key
#    train tasks as experiments/reader-grpo/reproduce.sh. About 32 minutes.
# The checkpoint is out/grpo/reader-ext-grpo/final (F16; committed as data/checkpoints/reader-ext-grpo until
# 8afa168).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
bash experiments/checkpoint.sh reader-grpo
mkdir -p out/reader-ext
fathom data generate --split train --n 200 --seed 7 --max-tokens 8000 --out out/reader-ext/tasks.jsonl
fathom sft-data --tasks out/reader-ext/tasks.jsonl --out out/reader-ext/teacher.jsonl --seed 7 \
  --readers 18600 --readers-out out/reader-ext/readers.jsonl --readers-seed 9 --readers-max-chunk 700 \
  --readers-evidence-share 0.1 --readers-key-share 0.5
fathom sft --config experiments/reader-ext/sft/reader-ext.json
exec bash experiments/search-grpo/reproduce.sh experiments/reader-ext/grpo/reader-ext-grpo.json
