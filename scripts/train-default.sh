#!/usr/bin/env bash
# Trains FATHOM's default model, the pair in data/checkpoints/default (a root policy and its span reader in reader/):
#   1. reader SFT: the span loss on the generated reader curriculum (configs/sft/reader.json), from scratch, with word
#      noise in its second stage (about 7–11 minutes of steps on this machine), into out/reader/final;
#   2. root SFT: 400 steps from the sentence-grpo root of experiments/sentence (restored from git history by
#      experiments/checkpoint.sh) on one teacher episode of each of 1,500 train tasks, every one written by a
#      question-only strategy (docs/TEACHER.md): the windows of search(question) for niah, extractive and tracking,
#      the quoted word taken from the question for counting, the item list taken from it for multi_needle, two hops
#      for multi_hop (configs/sft/root.json, about 23 minutes of steps); then 150 steps at a lower learning rate on
#      1,000 more tasks, five times as many of them multi_hop (configs/sft/root-hops.json, about 8 minutes), which
#      the first stage left writing the one-key program for most multi_hop questions (five, not three: seed 7's
#      multi_hop 20.0% → 37.5%, experiments/quiet-first-turn); it replaces the root files of
#      data/checkpoints/default;
#   3. GRPO of step 1's reader, its leaf reads sampled as spans inside real episodes whose turns the frozen root of
#      data/checkpoints/default writes (also sampled) (configs/grpo/reader.json, reward = correctness, 40 steps,
#      about 13 minutes); the GRPO reader becomes data/checkpoints/default/reader. On 2026-12-07 it measured +5.3
#      points sampled on seed 22 and +2.5 greedy on seed 21 over step 1's reader under the same root
#      (docs/RESULTS.md).
# Usage: bash scripts/train-default.sh [reader|root|grpo]   (no argument: steps 1, 2 and 3; reader: steps 1 and 3,
#   the root kept; root: step 2 alone, the reader kept (run grpo after it to train the reader under the new root);
#   grpo: step 3 alone, from the out/reader/final of an earlier step 1)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
fathom=apps/cli/bin/fathom
default=data/checkpoints/default

install_reader() {
  rm -rf "$default/reader"
  mkdir -p "$default/reader"
  cp "$1"/* "$default/reader/"
  echo "train-default: $default/reader is now $1"
}

part=${1:-all}
case "$part" in
  all | reader | root | grpo) ;;
  *)
    echo "usage: bash scripts/train-default.sh [reader|root|grpo]" >&2
    exit 2
    ;;
esac

train_reader() {
  rm -rf out/reader
  "$fathom" sft --config configs/sft/reader.json
}

train_root() {
  bash experiments/checkpoint.sh sentence-grpo
  rm -rf out/root
  mkdir -p out/root
  local question_only=robust=1,niah.read_mentions=0,extractive.read_mentions=0,tracking.read_mentions=0
  question_only+=,counting.whole_word=0,multi_hop.two_hops=0,multi_needle.read_per_item=0
  "$fathom" data generate --split train --n 1500 --seed 31 --max-tokens 32000 \
    --mix niah=1,extractive=1,tracking=1.5,counting=1,multi_hop=1.5,multi_needle=1.5 --out out/root/tasks.jsonl
  "$fathom" sft-data --tasks out/root/tasks.jsonl --out out/root/teacher.jsonl --seed 31 --mix "$question_only"
  "$fathom" sft --config configs/sft/root.json
  "$fathom" data generate --split train --n 1000 --seed 32 --max-tokens 32000 \
    --mix niah=1,extractive=1,tracking=1,counting=1,multi_hop=5,multi_needle=1 --out out/root/tasks-hops.jsonl
  "$fathom" sft-data --tasks out/root/tasks-hops.jsonl --out out/root/teacher-hops.jsonl --seed 32 --mix "$question_only"
  "$fathom" sft --config configs/sft/root-hops.json
  find "$default" -maxdepth 1 -type f -delete
  cp out/root/hops/final/* "$default/"
  echo "train-default: the root of $default is now out/root/hops/final"
}

grpo_reader() {
  if [ ! -f out/reader/final/config.json ]; then
    echo "train-default: grpo starts from step 1's reader, out/reader/final, which is missing: run bash scripts/train-default.sh reader" >&2
    exit 1
  fi
  rm -rf out/reader-grpo
  mkdir -p out/grpo
  "$fathom" data generate --split train --n 400 --seed 5 --min-tokens 4096 --max-tokens 32768 \
    --mix niah=1,extractive=1,tracking=1,multi_hop=1 --out out/grpo/tasks-reader.jsonl
  "$fathom" train --config configs/grpo/reader.json --out out/reader-grpo
  install_reader out/reader-grpo/final
}

case "$part" in
  all | reader) train_reader ;;
esac
case "$part" in
  all | root) train_root ;;
esac
[ "$part" = root ] || grpo_reader
