#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium (the dashboard's Playwright tests drive it headless).
# Idempotent and silent when it is already there; installs it with apt-get otherwise (needs root or sudo).
set -euo pipefail
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available; install chromium and set CHROMIUM_PATH" >&2
  exit 1
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "ensure-chromium: $CHROMIUM is missing; run as root (or with sudo) to install the chromium package" >&2
    exit 1
  fi
fi
echo "ensure-chromium: installing chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a parallel test run, another ensure script) may hold the lock; wait for it instead of failing.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null
if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: apt-get installed chromium but $CHROMIUM is still missing" >&2
  exit 1
fi
