import { readFileSync } from 'node:fs';

/**
 * Whether a process exists and has not exited (a zombie waiting to be reaped counts as exited), for tests that
 * check a killed or orphaned process is gone. Reads /proc, so Linux only.
 */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
