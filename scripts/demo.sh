#!/usr/bin/env bash
# `npm run demo`: every FATHOM service as its own process, a short GRPO run of the default model, progress, and
# where to look (scripts/demo.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
exec node --no-node-snapshot --import tsx scripts/demo.ts
