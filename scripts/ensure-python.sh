#!/usr/bin/env bash
# Makes sure Debian's python3 can import websockets and requests (the OpenEnv conformance client in tests/openenv
# speaks the upstream protocol from Python). Idempotent and silent when they are there; installs python3,
# python3-websockets and python3-requests with apt-get otherwise (needs root or sudo).
set -euo pipefail
PYTHON=${OPENENV_PYTHON:-/usr/bin/python3}
importable() { [ -x "$PYTHON" ] && "$PYTHON" -c 'import websockets, requests' >/dev/null 2>&1; }
importable && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-python: $PYTHON cannot import websockets and requests, and apt-get is not available;" \
    "install them for $PYTHON or point OPENENV_PYTHON at a python3 that has them" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "ensure-python: $PYTHON cannot import websockets and requests; run as root (or with sudo) to install" \
      "python3-websockets and python3-requests" >&2
    exit 1
  fi
fi
echo "ensure-python: installing python3-websockets and python3-requests with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a parallel test run, another ensure script) may hold the lock; wait for it instead of failing.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3 python3-websockets python3-requests >/dev/null
if ! importable; then
  echo "ensure-python: apt-get installed the packages but $PYTHON still cannot import websockets and requests" >&2
  exit 1
fi
