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

# The Prisma client is generated code (libs/persistence/src/generated). Prisma 7's CLI would download a schema
# engine it does not need for `generate`; pointing it at a dummy file keeps it offline.
client=libs/persistence/src/generated/client.ts
if [ ! -f "$client" ] || [ prisma/schema.prisma -nt "$client" ]; then
  dummy=node_modules/.fathom-schema-engine-unused
  : > "$dummy"
  PRISMA_SCHEMA_ENGINE_BINARY="$PWD/$dummy" PRISMA_HIDE_UPDATE_MESSAGE=1 \
    node_modules/.bin/node node_modules/prisma/build/index.js generate >node_modules/.fathom-prisma-generate.log 2>&1 ||
    { cat node_modules/.fathom-prisma-generate.log >&2; exit 1; }
fi

version=$(node_modules/.bin/node -p 'process.versions.node.split(".")[0]')
if [ "$version" -lt 24 ]; then
  echo "fathom: node_modules/.bin/node is Node $version; FATHOM needs Node >= 24 (run npm ci)." >&2
  exit 1
fi
