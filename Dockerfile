# syntax=docker/dockerfile:1
#
# FATHOM's images: one build, one target per service. The build stages install everything and compile the services,
# the CLI and the sandbox worker into dist/ (`npm run build`: scripts/build.ts, one ES module each, npm packages left
# to node_modules); `npm prune --omit=dev` then drops the dev dependencies (tsx and esbuild, the test runner, linters,
# the Prisma CLI, type definitions) before the runtime stages copy /app. The images run the compiled JavaScript with
# plain Node; the repository's other files stay for what the code reads at run time (proto/, model configs, the
# dashboard, prisma/migrations).
#
#   docker build --target env-service         -t fathom/env-service .
#   docker build --target rollout-worker-cuda -t fathom/rollout-worker-cuda .
#
# CPU targets: env-service, admin-api, reward-service, rollout-worker, learner-service, migrate.
# CUDA targets (onnxruntime-node with the CUDA 12 execution provider): rollout-worker-cuda, learner-service-cuda.

ARG NODE_IMAGE=node:24-bookworm-slim
# onnxruntime-node 1.30's CUDA provider is built for CUDA 12 and cuDNN 9. Ubuntu 24.04 (glibc 2.39) can run the
# native addons compiled on Debian bookworm (glibc 2.36) in the deps stage.
ARG CUDA_IMAGE=nvidia/cuda:12.8.1-cudnn-runtime-ubuntu24.04

FROM ${NODE_IMAGE} AS node-base

# ---- dependencies and generated code (shared by every target) ----
FROM node-base AS deps
# isolated-vm ships no prebuilt binary for Node 24: node-gyp compiles it.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm >= 11.x blocks dependency install scripts unless allowed; FATHOM needs them (isolated-vm's native build, the
# `node` package's Node 24 binary behind apps/cli/bin/fathom). The repo's .npmrc skips onnxruntime-node's CUDA
# download here; the deps-cuda stage adds it.
RUN npm ci --no-audit --no-fund --loglevel=error --dangerously-allow-all-scripts \
  && touch node_modules/.fathom-installed
# The Prisma client is generated code; a dummy schema-engine path keeps `prisma generate` offline (as bootstrap.sh).
RUN : > /tmp/schema-engine-unused \
  && PRISMA_SCHEMA_ENGINE_BINARY=/tmp/schema-engine-unused PRISMA_HIDE_UPDATE_MESSAGE=1 \
    node node_modules/prisma/build/index.js generate \
  && node --no-node-snapshot -e "require('isolated-vm'); require('onnxruntime-node')" \
  && node --no-node-snapshot --import tsx scripts/build.ts

FROM deps AS deps-cuda
# onnxruntime-node's installer reads ONNXRUNTIME_NODE_INSTALL (same as --onnxruntime-node-install=cuda12) and
# downloads libonnxruntime_providers_cuda.so next to its binding.
RUN ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js \
  && test -f node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so

# ---- production dependencies: what the runtime stages copy ----
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=error \
  && node --no-node-snapshot -e "require('isolated-vm'); require('onnxruntime-node')" \
  && node --no-node-snapshot dist/cli.mjs --help > /dev/null

FROM deps-cuda AS prod-deps-cuda
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=error \
  && node --no-node-snapshot -e "require('isolated-vm'); require('onnxruntime-node')" \
  && node --no-node-snapshot dist/cli.mjs --help > /dev/null

# ---- runtime bases ----
FROM node-base AS runtime
# isolated-vm needs --no-node-snapshot on Node >= 20; NODE_OPTIONS also covers the CLI and child processes.
ENV NODE_OPTIONS=--no-node-snapshot
WORKDIR /app
COPY --from=prod-deps /app /app
# Services run as uid 1000 (`node` here, `ubuntu` in the CUDA image); only run folders are writable.
RUN mkdir -p /app/out /var/lib/fathom/runs /var/lib/fathom/datasets \
  && chown -R 1000:1000 /app/out /var/lib/fathom
USER 1000:1000

FROM ${CUDA_IMAGE} AS runtime-cuda
COPY --from=node-base /usr/local/bin/node /usr/local/bin/node
# The base image already sets NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES for the NVIDIA runtime.
ENV NODE_OPTIONS=--no-node-snapshot
WORKDIR /app
COPY --from=prod-deps-cuda /app /app
RUN mkdir -p /app/out /var/lib/fathom/runs /var/lib/fathom/datasets \
  && chown -R 1000:1000 /app/out /var/lib/fathom
USER 1000:1000

# ---- one target per service ----
FROM runtime AS env-service
EXPOSE 8000 50051
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/env-service.mjs"]

FROM runtime AS admin-api
EXPOSE 8080
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/admin-api.mjs"]

FROM runtime AS reward-service
EXPOSE 9200
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/reward-service.mjs"]

FROM runtime AS rollout-worker
EXPOSE 9100
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/rollout-worker.mjs"]

FROM runtime AS learner-service
EXPOSE 9300 50061
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/learner-service.mjs"]

# One-shot: creates the database if missing and applies prisma/migrations (same as `prisma migrate deploy`).
FROM runtime AS migrate
CMD ["node", "--no-node-snapshot", "dist/cli.mjs", "db", "migrate"]

FROM runtime-cuda AS rollout-worker-cuda
ENV EXECUTION_PROVIDER=cuda
EXPOSE 9100
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/rollout-worker.mjs"]

FROM runtime-cuda AS learner-service-cuda
ENV EXECUTION_PROVIDER=cuda
EXPOSE 9300 50061
CMD ["node", "--no-node-snapshot", "--enable-source-maps", "dist/learner-service.mjs"]
