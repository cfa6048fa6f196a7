#!/usr/bin/env bash
# Regenerates the TypeScript types of proto/*.proto into libs/rpc/src/generated (or the folder given as $1).
# The options match how the services load the protos at run time (libs/rpc loadProto): keepCase, longs as
# Number, enums as String, oneof discriminators. The output is committed; libs/rpc/src/generated.spec.ts fails
# when it drifts from the protos.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-libs/rpc/src/generated}"
rm -rf "$out"
mkdir -p "$out"
node_modules/.bin/node node_modules/@grpc/proto-loader/build/bin/proto-loader-gen-types.js \
  --keepCase --longs=Number --enums=String --oneofs --includeComments \
  --grpcLib=@grpc/grpc-js -I proto -O "$out" \
  env.proto inference.proto policy.proto
