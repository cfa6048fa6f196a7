#!/usr/bin/env bash
# Restores checkpoints the experiments start from into out/checkpoints/NAME. They were committed as
# data/checkpoints/NAME until commit 8afa168 and left that folder when the default model became one checkpoint
# (data/checkpoints/default); git keeps them in this repository's history. A folder already restored is kept.
# Usage: bash experiments/checkpoint.sh NAME...
set -euo pipefail
cd "$(dirname "$0")/.."
COMMIT=8afa168
if ! git cat-file -e "${COMMIT}^{commit}" 2>/dev/null; then
  echo "experiments/checkpoint.sh: commit ${COMMIT} is not in this clone; fetch the full history (git fetch --unshallow)" >&2
  exit 1
fi
for name in "$@"; do
  [ -f "out/checkpoints/$name/config.json" ] && continue
  mkdir -p "out/checkpoints/$name"
  git archive "$COMMIT" "data/checkpoints/$name" | tar -x --strip-components=3 -C "out/checkpoints/$name"
done
