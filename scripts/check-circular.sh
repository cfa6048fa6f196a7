#!/usr/bin/env bash
# Fails if any import cycle exists among the TypeScript sources of apps/ and libs/.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t entries < <(find apps libs -path '*/node_modules' -prune -o -name '*.ts' -path '*/src/*' ! -name '*.spec.ts' ! -name '*.test.ts' ! -path '*/generated/*' -print)
[ "${#entries[@]}" -gt 0 ] || exit 0
node_modules/.bin/node node_modules/dpdm/lib/bin/dpdm.js --no-warning --no-tree --transform --exit-code circular:1 -T "${entries[@]}"
