#!/usr/bin/env bash
# Reproduces the first default model's SFT checkpoint (committed as data/checkpoints/default-sft until 8afa168) from
# the checkpoint it continued from: the train split, two teacher episodes per task (two different strategies, each
# ending in a cell that calls answer()), then SFT stage 4 (experiments/default-sft/sft/default-stage4.json: 300 steps,
# lr 3e-4) from the stage-3 checkpoint committed at 75ead45, which git keeps in this repository's history. Stages 1-3
# (configs/sft/default.json, sft/default-stage2.json, sft/default-stage3.json, on the teacher's earlier episodes) are
# reproduced by this script as it was at that commit: `git worktree add /tmp/stage3 75ead45 && bash
# /tmp/stage3/scripts/reproduce-sft.sh`. Everything is seeded. Takes about 17 minutes on two CPU cores
# (experiments/default-sft/NOTE.md has the measured results). The checkpoint is out/sft/run4/final.
set -euo pipefail
cd "$(dirname "$0")/../.."
STAGE3_COMMIT=75ead45
if ! git cat-file -e "${STAGE3_COMMIT}^{commit}" 2>/dev/null; then
  echo "reproduce-sft: commit ${STAGE3_COMMIT} (the stage-3 checkpoint) is not in this clone; fetch the full history (git fetch --unshallow)" >&2
  exit 1
fi
bash scripts/bootstrap.sh
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p out/sft
rm -rf out/sft/run3/final && mkdir -p out/sft/run3/final
git archive "$STAGE3_COMMIT" data/checkpoints/default-sft | tar -x --strip-components=3 -C out/sft/run3/final
fathom data generate --split train --n 1000 --seed 0 --out out/sft/tasks-train.jsonl
fathom sft-data --tasks out/sft/tasks-train.jsonl --out out/sft/teacher-train.jsonl --seed 0 --per-task 2
fathom sft --config experiments/default-sft/sft/default-stage4.json "$@"
