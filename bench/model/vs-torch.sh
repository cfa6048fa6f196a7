#!/usr/bin/env bash
# The train step side by side with PyTorch (bench/model/torch_ref.py): for each repetition, length and thread count,
# FATHOM then PyTorch, each in its own process so that peak_rss_mb is that step's. JSON lines on stdout.
#
#   bash bench/model/vs-torch.sh [repetitions=3] [lengths="128 512 1024"] [threads="1 2"]
#
# Needs Debian's python3-torch, libopenblas0-pthread and libtcmalloc-minimal4 (torch_ref.py's docstring says why).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/node_modules/.bin:$PATH"
repetitions=${1:-3}
lengths=${2:-128 512 1024}
threads=${3:-1 2}
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
[ -f "$tcmalloc" ] || { echo "vs-torch: $tcmalloc is missing (apt-get install libtcmalloc-minimal4)" >&2; exit 1; }
for rep in $(seq "$repetitions"); do
  for length in $lengths; do
    for n in $threads; do
      node --no-node-snapshot --import tsx bench/model/model.ts --only train --threads "$n" --lengths "$length" |
        grep '"train_step"' | sed "s/}\$/,\"rep\":$rep}/"
      LD_PRELOAD=$tcmalloc /usr/bin/python3 bench/model/torch_ref.py --threads "$n" --length "$length" | sed "s/}\$/, \"rep\": $rep}/"
    done
  done
done
