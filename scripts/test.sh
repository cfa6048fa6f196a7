#!/usr/bin/env bash
# The one test runner for the whole repo (Vitest). Extra arguments narrow the run (paths or -t filters).
# The long checks (SLOW_TESTS in vitest.config.ts) run with FATHOM_TEST_SLOW=1 (CI sets it), and in a run narrowed
# to paths, so a path names what it holds.
# First installs the system packages the selected tests need (silent when present): chromium for the dashboard's
# browser tests, Debian's python3-websockets/-requests for the OpenEnv conformance client. When one cannot be
# installed, its tests skip with a loud reason that the summary counts.
# Writes test-results/vitest-<pid>.json (one per run, so parallel runs never mix) and ends with the line
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS="--no-node-snapshot ${NODE_OPTIONS:-}"

# True when the run covers `dir`: a full run, or a path argument inside it or above it.
covers() {
  local dir=$1 arg paths=0
  shift
  for arg in "$@"; do
    [[ $arg == -* || ! -e $arg ]] && continue
    paths=1
    arg=${arg%/}
    [[ $dir == "$arg" || $dir == "$arg"/* || $arg == "$dir"/* ]] && return 0
  done
  [ "$paths" -eq 0 ]
}
if covers apps/admin-api/src/dashboard "$@"; then
  bash scripts/ensure-chromium.sh || echo "test: chromium could not be installed; the dashboard browser tests will be skipped" >&2
fi
if covers tests/openenv "$@"; then
  bash scripts/ensure-python.sh || echo "test: python3-websockets/-requests could not be installed; the OpenEnv conformance tests will be skipped" >&2
  bash scripts/ensure-openenv-python.sh || echo "test: no Python for upstream OpenEnv's client; its REPLEnv test will be skipped" >&2
fi

for arg in "$@"; do [[ $arg != -* && -e $arg ]] && export FATHOM_TEST_SLOW=${FATHOM_TEST_SLOW:-1}; done

mkdir -p test-results
report=test-results/vitest-$$.json
node_modules/.bin/node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json \
  --outputFile.json="$report" "$@"
rc=$?
node_modules/.bin/node scripts/test-summary.mjs "$report" || rc=1
exit $rc
