import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

export interface LaunchOptions {
  /** Shown in errors and prefixed to forwarded log lines, e.g. "rollout-worker-1". */
  name: string;
  /**
   * The service's main module (absolute path), run with Node 24 `--no-node-snapshot`: a TypeScript source through
   * tsx, or a compiled bundle (`dist/<service>.mjs`, scripts/build.ts) as it is.
   */
  entry: string;
  /** Working directory (the repository root). */
  cwd: string;
  /** Environment variables added to this process's. */
  env: Record<string, string>;
  /** The `msg` of the JSON log line that says the service is up; its fields are returned. */
  readyMessage: string;
  /** How long to wait for it. Default 60 s. */
  timeoutMs?: number;
  /** Every log line the service prints (stdout and stderr), e.g. to forward or keep for a failure message. */
  onLine?: (line: string) => void;
  /**
   * Runs the service in a process group of its own, so a Ctrl-C in the terminal reaches only the parent, which
   * then stops the services in its own order (the demo stops its run first). If the parent dies without stopping
   * it (SIGKILL), the service notices its IPC channel close and shuts down.
   */
  ownProcessGroup?: boolean;
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** The fields of the ready log line (ports and such). */
  ready: Record<string, unknown>;
  /** The last lines it printed (for error messages). */
  tail(): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Starts one FATHOM service as its own process and waits until it logs `readyMessage`. If it exits first or the
 * wait times out, rejects with the service's last output lines, so a failing start says why.
 */
export function launchService(options: LaunchOptions): Promise<ServiceProcess> {
  const loader = options.entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, ['--no-node-snapshot', ...loader, options.entry], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    // The IPC channel closes when this process dies, however it dies: the service then shuts itself down
    // (onTerminationSignal), so no service outlives the process that launched it.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: options.ownProcessGroup === true,
  });
  const lines: string[] = [];
  const remember = (line: string) => {
    lines.push(line);
    if (lines.length > 40) lines.shift();
    options.onLine?.(line);
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  createInterface({ input: child.stderr! }).on('line', remember);
  return new Promise<ServiceProcess>((resolve, reject) => {
    const fail = (why: string) => {
      void stop(1000);
      reject(new Error(`${options.name} did not start: ${why}\n${lines.join('\n')}`));
    };
    const timer = setTimeout(
      () => fail(`no "${options.readyMessage}" within ${options.timeoutMs ?? 60_000} ms`),
      options.timeoutMs ?? 60_000,
    );
    void exited.then((code) => {
      clearTimeout(timer);
      fail(`exited with code ${code}`);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      remember(line);
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (record.msg !== options.readyMessage) return;
      clearTimeout(timer);
      resolve({ name: options.name, child, ready: record, tail: () => [...lines], stop });
    });
  });
}

/** Lowest port `freePort` hands out: above the ports services are usually configured on. */
const PICKED_PORT_FLOOR = 20_000;

/**
 * A TCP port free on 127.0.0.1 now, for a service that must be told its port before it starts. It lies outside the
 * kernel's ephemeral range, so no outgoing connection and no `listen(0)` on this machine can take it in the seconds
 * before the service binds it (a port from `listen(0)`, freed at once, can be a Redis client's source port by then:
 * EADDRINUSE in the service).
 */
export async function freePort(): Promise<number> {
  const [first, last] = await ephemeralRange();
  const below = Math.max(0, first - PICKED_PORT_FLOOR);
  const above = Math.max(0, 65_535 - last);
  if (below + above === 0) {
    throw new Error(`the ephemeral port range ${first}-${last} leaves no port from ${PICKED_PORT_FLOOR} outside it`);
  }
  for (let tries = 0; tries < 100; tries++) {
    const pick = Math.floor(Math.random() * (below + above));
    const port = pick < below ? PICKED_PORT_FLOOR + pick : last + 1 + pick - below;
    if (await bindable(port)) return port;
  }
  throw new Error(`no free TCP port on 127.0.0.1 outside the ephemeral range ${first}-${last} after 100 tries`);
}

/** The kernel's ephemeral port range (Linux: ip_local_port_range; elsewhere IANA's 49152-65535). */
async function ephemeralRange(): Promise<[number, number]> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '49152 65535');
  const [first, last] = range.trim().split(/\s+/).map(Number);
  return [first!, last!];
}

function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
