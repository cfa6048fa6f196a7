import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ScriptedInferenceServer, startEnvService, type RunningEnvService } from '@fathom/env-service';

/**
 * OpenEnv conformance from a second language: tests/openenv/openenv_client.py speaks upstream OpenEnv's protocol
 * (its EnvClient and REPLEnv client messages, stateless HTTP, MCP over HTTP and WebSocket) against a real
 * env-service, and reports one result per check. It needs Debian's python3 with python3-websockets and
 * python3-requests (scripts/ensure-python.sh, run by scripts/test.sh); without them the file reports one skipped
 * test whose title says why, which scripts/test-summary.mjs lists in the closing summary.
 */

const PYTHON = process.env.OPENENV_PYTHON ?? '/usr/bin/python3';
const CLIENT = fileURLToPath(new URL('./openenv_client.py', import.meta.url));
const MAX_SESSIONS = 4;
const CHECKS = [
  'http_basics',
  'http_stateless',
  'ws_episode',
  'ws_mcp_message',
  'mcp_http',
  'ws_mcp_endpoint',
  'ws_capacity_at_connect',
] as const;

interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

function pythonMissing(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import websockets, requests'], { encoding: 'utf8' });
  if (probe.status === 0) return null;
  const why = probe.error ? probe.error.message : probe.stderr.trim().split('\n').at(-1);
  return `${PYTHON} cannot import websockets and requests (${why}); run "bash scripts/ensure-python.sh"`;
}

const missing = pythonMissing();

if (missing !== null) it.skip(`SKIPPED (missing dependency): OpenEnv conformance from Python: ${missing}`);

describe.skipIf(missing !== null)('OpenEnv conformance, from a Python client of the upstream protocol', () => {
  const inference = new ScriptedInferenceServer((request) => `sub-answer at depth ${request.depth}`);
  let service: RunningEnvService | undefined;
  let results: Map<string, CheckResult>;

  beforeAll(async () => {
    const config = loadConfig({
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      INFERENCE_ADDRESS: await inference.start(),
      LOG_LEVEL: 'silent',
      SANDBOX_WORKERS: '1',
      MAX_CONCURRENT_ENVS: String(MAX_SESSIONS),
    });
    service = await startEnvService(config);
    const baseUrl = `http://127.0.0.1:${service.httpPort}`;
    const run = await promisify(execFile)(PYTHON, [CLIENT, baseUrl, String(MAX_SESSIONS)], {
      timeout: 50_000,
    }).catch((error: { stdout?: string; stderr?: string; code?: number }) => {
      if (!error.stdout) throw new Error(`openenv_client.py failed (exit ${error.code}): ${error.stderr}`);
      return { stdout: error.stdout };
    });
    const report = JSON.parse(run.stdout) as { checks: CheckResult[] };
    results = new Map(report.checks.map((check) => [check.name, check]));
  });

  afterAll(async () => {
    await service?.close();
    await inference.stop();
  });

  it('runs every check', () => {
    expect([...results.keys()]).toEqual([...CHECKS]);
  });

  it.each(CHECKS)('%s', (name) => {
    const result = results.get(name);
    expect(result, `${name} did not run`).toBeDefined();
    expect(result!.ok, `${name}: ${result!.detail}`).toBe(true);
  });
});
