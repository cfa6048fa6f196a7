#!/usr/bin/env bash
# A reader with a subword tokenizer (experiments/bpe-reader/NOTE.md): a 2,048-merge byte-level BPE trained on
# the reader curriculum, a fresh 4-layer model sized to it, language-model pretraining on the curriculum's chunks
# (sft/bpe-pretrain.json), then extractive reader SFT (sft/bpe-reader.json).
# The checkpoint is out/bpe/reader/final. About 45 minutes on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/bpe
fathom data generate --split train --n 400 --seed 7 --max-tokens 8000 --out out/bpe/tasks.jsonl
fathom sft-data --tasks out/bpe/tasks.jsonl --out out/bpe/teacher.jsonl --seed 7 --readers 64000 \
  --readers-out out/bpe/readers.jsonl --readers-texts-out out/bpe/texts.jsonl --readers-seed 12 \
  --readers-max-chunk 700 --readers-evidence-share 0.1 --readers-key-share 0.5
fathom model tokenizer --texts out/bpe/readers.jsonl out/bpe/teacher.jsonl --max-lines 20000 --vocab 2048 \
  --out out/bpe/tok2048
fathom model init --tokenizer out/bpe/tok2048 --out out/bpe/init --seed 0
fathom sft --config experiments/bpe-reader/sft/bpe-pretrain.json
fathom sft --config experiments/bpe-reader/sft/bpe-reader.json
