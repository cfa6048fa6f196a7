#!/usr/bin/env bash
# The sentence-by-sentence pair (docs/RESULTS.md, "Each sentence, then the window"): a root whose one question-only
# program reads every sentence search(question) finds on its own, then the windows of all of them, and a reader
# trained on single sentences.
# 1. configs/sft/sentence-reader.json: 600 steps of batch 32 from data/checkpoints/reader-ext-grpo on 30,000 reads
#    whose chunk is the evidence alone or (45%) one sentence that does not state the fact — a distractor, or one move
#    of an object whose final place takes all its moves — answered "unknown". About 13 minutes on the 2-core machine.
#    The checkpoint is out/sentence/reader/final (committed as data/checkpoints/sentence-reader).
# 2. configs/sft/sentence-root.json: 200 steps of batch 8 from data/checkpoints/search-grpo on one teacher episode
#    of each of 1,500 train tasks, niah, extractive and tracking written by their search_question strategy. About 8
#    minutes. The checkpoint is out/sentence/root/final (committed as data/checkpoints/sentence-root).
# 3. configs/sft/invented-reader.json: the reader of step 1 with half of its reads written with invented frames
#    (`--readers-invented-share 0.5`: random filler words between the key and the value; docs/RESULTS.md, "Invented
#    frames"). Same tasks, seeds and steps. Then configs/sft/invented-reader-more.json: 400 more steps (lr 2e-4) on
#    30,000 new reads of the same mix (readers seed 16). The checkpoint is out/sentence/invented-reader-more/final
#    (committed as data/checkpoints/invented-reader). About 25 minutes for both.
# 4. configs/sft/distractor-reader.json: 400 more steps (lr 2e-4) from data/checkpoints/invented-reader on 30,000
#    reads of the same mix in which half of the negation, hypothetical, correction and past-state distractors are
#    invented too (`--readers-invented-distractor-share 0.5`, readers seed 17; docs/RESULTS.md, "Invented
#    distractors"). The checkpoint is out/sentence/distractor-reader/final. About 10 minutes.
# Pass `reader`, `root`, `invented` or `distractors` to run one stage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/sentence
stage="${1:-all}"
if [[ "$stage" == all || "$stage" == reader ]]; then
  fathom data generate --split train --n 200 --seed 7 --max-tokens 8000 --out out/sentence/reader-tasks.jsonl
  fathom sft-data --tasks out/sentence/reader-tasks.jsonl --out out/sentence/reader-teacher.jsonl --seed 7 \
    --readers 30000 --readers-out out/sentence/readers.jsonl --readers-seed 15 --readers-max-chunk 700 \
    --readers-evidence-only --readers-unknown-share 0.45
  fathom sft --config configs/sft/sentence-reader.json
fi
if [[ "$stage" == all || "$stage" == invented ]]; then
  fathom data generate --split train --n 200 --seed 7 --max-tokens 8000 --out out/sentence/reader-tasks.jsonl
  fathom sft-data --tasks out/sentence/reader-tasks.jsonl --out out/sentence/invented-teacher.jsonl --seed 7 \
    --readers 30000 --readers-out out/sentence/invented-readers.jsonl --readers-seed 15 --readers-max-chunk 700 \
    --readers-evidence-only --readers-unknown-share 0.45 --readers-invented-share 0.5
  fathom sft --config configs/sft/invented-reader.json
  fathom sft-data --tasks out/sentence/reader-tasks.jsonl --out out/sentence/invented-more-teacher.jsonl --seed 7 \
    --readers 30000 --readers-out out/sentence/invented-more-readers.jsonl --readers-seed 16 --readers-max-chunk 700 \
    --readers-evidence-only --readers-unknown-share 0.45 --readers-invented-share 0.5
  fathom sft --config configs/sft/invented-reader-more.json
fi
if [[ "$stage" == all || "$stage" == distractors ]]; then
  fathom data generate --split train --n 200 --seed 7 --max-tokens 8000 --out out/sentence/reader-tasks.jsonl
  fathom sft-data --tasks out/sentence/reader-tasks.jsonl --out out/sentence/distractor-teacher.jsonl --seed 7 \
    --readers 30000 --readers-out out/sentence/distractor-readers.jsonl --readers-seed 17 --readers-max-chunk 700 \
    --readers-evidence-only --readers-unknown-share 0.45 --readers-invented-share 0.5 \
    --readers-invented-distractor-share 0.5
  fathom sft --config configs/sft/distractor-reader.json
fi
if [[ "$stage" == all || "$stage" == root ]]; then
  fathom data generate --split train --n 1500 --seed 21 --max-tokens 32000 --out out/sentence/root-tasks.jsonl
  fathom sft-data --tasks out/sentence/root-tasks.jsonl --out out/sentence/root-teacher.jsonl --seed 21 --per-task 1 \
    --mix niah.read_mentions=0,extractive.read_mentions=0,tracking.read_mentions=0
  fathom sft --config configs/sft/sentence-root.json
fi
