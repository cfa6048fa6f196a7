#!/usr/bin/env bash
# Part-of-speech tags as a reader input (issue 49's unseen wordings), DrQA's token feature beside the exact match:
# the default reader's SFT (configs/sft/reader.json) and the same recipe with `word_tags` in the model config
# (sft/reader-tags.json: each chunk word's tag from the compromise tagger, through reader.word_tag_embedding). About
# 10 minutes of steps each here. Each reader's leaf reads are measured on 400 heldout reader examples of data seeds
# 7, 21 and 22 (chunks up to 1,000 characters), split by frame family. Then the lemma-match probe (no training).
set -euo pipefail
cd "$(dirname "$0")/../.."
fathom=apps/cli/bin/fathom
rm -rf out/reader-base out/reader-tags
"$fathom" sft --config configs/sft/reader.json --set out=out/reader-base
"$fathom" sft --config experiments/pos-tags/sft/reader-tags.json
for seed in 7 21 22; do
  for reader in out/reader-base/final out/reader-tags/final; do
    echo "seed $seed, $reader"
    "$fathom" eval --n 0 --split heldout --data-seed "$seed" --readers 400 --readers-max-chunk 1000 \
      --reader-checkpoint "$reader"
  done
done
node_modules/.bin/node --no-node-snapshot --import tsx experiments/pos-tags/overlap-probe.ts
