#!/usr/bin/env bash
# Applies the multi_needle back-off (backoff.patch) to the teacher of commit c979673, the one it was measured on
# (main's teacher has it since, without the printed list: experiments/quiet-first-turn), retrains the root on it
# (scripts/train-default.sh root, about 45 minutes here: it replaces the root of data/checkpoints/default), evaluates
# the pair on 200 heldout tasks of seed 21 and prints which program each episode got.
# The teacher is put back after training; `git checkout HEAD -- data/checkpoints/default` puts the product's root back.
set -euo pipefail
cd "$(dirname "$0")/../.."
git checkout c979673 -- libs/rlm/src/teacher scripts/train-default.sh
git apply experiments/multi-needle-backoff/backoff.patch
bash scripts/train-default.sh root
git checkout HEAD -- libs/rlm/src/teacher scripts/train-default.sh
mkdir -p out/eval
apps/cli/bin/fathom data generate --split heldout --n 200 --seed 21 --out out/eval/heldout-21.jsonl
apps/cli/bin/fathom eval --tasks out/eval/heldout-21.jsonl --n 200 --episodes out/eval/s21-backoff.episodes.jsonl
node_modules/.bin/node --no-node-snapshot --import tsx experiments/program-order/literals.ts \
  out/eval/heldout-21.jsonl out/eval/s21-backoff.episodes.jsonl
node_modules/.bin/node --no-node-snapshot --import tsx experiments/multi-needle-backoff/routes.ts \
  out/eval/s21-backoff.episodes.jsonl
