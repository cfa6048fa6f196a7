#!/usr/bin/env bash
# The one test runner for the whole repo (Vitest). Extra arguments narrow the run (paths or -t filters).
# Writes test-results/vitest.json and ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS="--no-node-snapshot ${NODE_OPTIONS:-}"
mkdir -p test-results
rm -f test-results/vitest.json
node_modules/.bin/node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
  --outputFile.json=test-results/vitest.json "$@"
rc=$?
node_modules/.bin/node scripts/test-summary.mjs test-results/vitest.json || rc=1
exit $rc
