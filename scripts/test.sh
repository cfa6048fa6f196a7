#!/usr/bin/env bash
# The one test runner for the whole repo (Vitest). Extra arguments narrow the run (paths or -t filters).
# Writes test-results/vitest-<pid>.json (one per run, so parallel runs never mix) and ends with the line
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS="--no-node-snapshot ${NODE_OPTIONS:-}"
mkdir -p test-results
report=test-results/vitest-$$.json
node_modules/.bin/node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
  --outputFile.json="$report" "$@"
rc=$?
node_modules/.bin/node scripts/test-summary.mjs "$report" || rc=1
exit $rc
