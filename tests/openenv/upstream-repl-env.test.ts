import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_CONTEXT_CHARS } from '@fathom/contracts';
import { loadConfig, ScriptedInferenceServer, startEnvService, type RunningEnvService } from '@fathom/env-service';

/**
 * Upstream OpenEnv's own REPLEnv client (tests/openenv/upstream, unmodified) against a real env-service: after a
 * step it lists the guest's variables and reads their values, and its state() carries every REPLState field. Its
 * Python is out/openenv-venv (scripts/ensure-openenv-python.sh, run by scripts/test.sh); without it the file reports
 * one skipped test whose title says why.
 */

const PYTHON = fileURLToPath(new URL('../../out/openenv-venv/bin/python', import.meta.url));
const DRIVER = fileURLToPath(new URL('./upstream_repl_env.py', import.meta.url));

function pythonMissing(): string | null {
  const probe = spawnSync(PYTHON, ['-c', 'import pydantic, requests, websockets.asyncio.client'], { encoding: 'utf8' });
  if (probe.status === 0) return null;
  const why = probe.error ? probe.error.message : probe.stderr.trim().split('\n').at(-1);
  return `${PYTHON} cannot import pydantic, requests and websockets.asyncio (${why}); run "bash scripts/ensure-openenv-python.sh"`;
}

const missing = pythonMissing();

if (missing !== null) it.skip(`SKIPPED (missing dependency): upstream OpenEnv REPLEnv: ${missing}`);

describe.skipIf(missing !== null)("upstream OpenEnv's REPLEnv client, unmodified", () => {
  const inference = new ScriptedInferenceServer(() => 'unused');
  let service: RunningEnvService | undefined;

  beforeAll(async () => {
    service = await startEnvService(
      loadConfig({
        HOST: '127.0.0.1',
        HTTP_PORT: '0',
        GRPC_PORT: '0',
        INFERENCE_ADDRESS: await inference.start(),
        LOG_LEVEL: 'silent',
        SANDBOX_WORKERS: '1',
        SANDBOX_LOW_PRIORITY_WORKERS: '0',
      }),
    );
  });

  afterAll(async () => {
    await service?.close();
    await inference.stop();
  });

  it("lists the guest's variables after a step, with their values, and reads every REPLState field", async () => {
    const { stdout } = await promisify(execFile)(PYTHON, [DRIVER, `http://127.0.0.1:${service!.httpPort}`], {
      timeout: 50_000,
    });
    const read = JSON.parse(stdout) as Record<string, unknown>;
    expect(read).toEqual({
      reset_context_length: 8_424,
      variables_before: [],
      stdout: '4417\n',
      locals_snapshot: {
        hits: 'Array(1) [{"text":"The vault code is 4417.","start":3200,"end":3223}]',
        code: '"4417"',
      },
      list_variables: ['hits', 'code'],
      state: {
        namespace_keys: ['hits', 'code'],
        iteration: 1,
        max_iterations: expect.any(Number),
        context_chars: STATE_CONTEXT_CHARS,
        context_start: 'Ledger. Ledger. ',
        task_prompt: 'What is the vault code?',
        step_count: 1,
      },
    });
  });
});
