#!/usr/bin/env bash
# `npm run demo`: every FATHOM service as its own process, a short GRPO run of the default model, progress, and
# where to look (scripts/demo.ts). The admin API runs without a token, so it listens on loopback (127.0.0.1) only;
# the demo says so when it prints its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
exec node --no-node-snapshot --import tsx scripts/demo.ts
