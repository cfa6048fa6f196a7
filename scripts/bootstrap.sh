#!/usr/bin/env bash
# Installs what FATHOM needs on first use, so `npm run demo` and `npm test` work on a fresh clone.
# Node 24 comes from the npm `node` package (node_modules/.bin/node); npm scripts find it first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=node_modules/.fathom-installed
if [ ! -x node_modules/.bin/node ] || [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "fathom: installing dependencies (npm ci) ..." >&2
  npm ci --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

version=$(node_modules/.bin/node -p 'process.versions.node.split(".")[0]')
if [ "$version" -lt 24 ]; then
  echo "fathom: node_modules/.bin/node is Node $version; FATHOM needs Node >= 24 (run npm ci)." >&2
  exit 1
fi
