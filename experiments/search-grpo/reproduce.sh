#!/usr/bin/env bash
# Reproduces the search-grpo checkpoint: GRPO of search-root with the environment in the loop
# (experiments/search-grpo/grpo/search-reader.json): 1,000 train tasks of the three one-key types (niah, extractive,
# tracking; seed 1, contexts 4K–32K tokens), 100 steps of B = 4 prompts × G = 8 episodes, leaf llm() reads answered
# by the frozen reader of experiments/reader, greedily and extractively, so an episode's reward depends on the program
# the root writes and not on a sampled read. About 52 minutes of steps on the 2-core machine; measured results are in
# experiments/search-grpo/NOTE.md. The checkpoint is out/grpo/search-reader/final (F16; committed as
# data/checkpoints/search-grpo until 8afa168). The checkpoints the configs start from are restored from history into
# out/checkpoints/ first (experiments/checkpoint.sh). With a config argument it trains that config instead
# (experiments/reader-grpo/reproduce.sh), on the same tasks or on out/grpo/tasks-one-key-invented.jsonl: the same
# tasks with half of their key-to-value sentences and half of their meaning distractors written in invented wording
# (docs/DATASETS.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
bash experiments/checkpoint.sh reader search-root search-grpo reader-grpo sentence-root invented-reader \
  sentence-grpo sentence-reader-grpo
mkdir -p out/grpo
fathom data generate --split train --n 1000 --seed 1 --max-tokens 32768 --mix niah=1,extractive=1,tracking=1 \
  --out out/grpo/tasks-one-key.jsonl
fathom data generate --split train --n 1000 --seed 1 --max-tokens 32768 --mix niah=1,extractive=1,tracking=1 \
  --invented-share 0.5 --invented-distractor-share 0.5 --out out/grpo/tasks-one-key-invented.jsonl
fathom train --config "${1:-experiments/search-grpo/grpo/search-reader.json}"
