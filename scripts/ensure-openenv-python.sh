#!/usr/bin/env bash
# Makes the Python that runs upstream OpenEnv's own client (tests/openenv/upstream_repl_env.py): a virtual environment
# in out/openenv-venv over python3 (which must have pydantic 2 and requests) with websockets >= 13 installed by pip
# from the package index pip is configured with. Idempotent and silent when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=out/openenv-venv
importable() { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c '
import pydantic, requests, websockets
assert pydantic.VERSION >= "2" and int(websockets.__version__.split(".")[0]) >= 13
' >/dev/null 2>&1; }
importable && exit 0

PYTHON=${OPENENV_UPSTREAM_PYTHON:-python3}
echo "ensure-openenv-python: making $VENV with websockets >= 13 over $($PYTHON --version 2>&1)" >&2
rm -rf "$VENV"
"$PYTHON" -m venv --system-site-packages "$VENV"
# pip warns while it tries each configured index; its output is shown only when the install fails.
log=$(mktemp)
if ! "$VENV/bin/pip" install -q 'websockets>=13' >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
if ! importable; then
  echo "ensure-openenv-python: $VENV cannot import pydantic 2, requests and websockets >= 13" >&2
  exit 1
fi
