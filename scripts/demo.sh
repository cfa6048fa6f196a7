#!/usr/bin/env bash
# `npm run demo`: FATHOM's main job on this machine. Until the training stack lands it generates a small
# long-context QA dataset with the real generator and prints its statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

out=${FATHOM_DEMO_OUT:-out/demo}
mkdir -p "$out"
for split in train eval; do
  n=$([ "$split" = train ] && echo 40 || echo 10)
  fathom data generate --split "$split" --n "$n" --seed 7 --min-tokens 4096 --max-tokens 65536 --out "$out/$split.jsonl"
done
fathom data validate "$out/train.jsonl"
fathom data stats "$out/train.jsonl"
echo "demo: dataset written to $out/ (train.jsonl, eval.jsonl); schema in docs/DATASETS.md"
