import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package; CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why chromium cannot be launched (it is not installed), or null when it is there. */
export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM_PATH)
    ? null
    : `chromium is not installed at ${CHROMIUM_PATH}; install it with "bash scripts/ensure-chromium.sh" ` +
        '(apt-get install chromium) or point CHROMIUM_PATH at a chromium binary';
}

/** Launches headless chromium, or fails saying how to install it. */
export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing !== null) throw new Error(missing);
  // --no-sandbox: CI containers run as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}
