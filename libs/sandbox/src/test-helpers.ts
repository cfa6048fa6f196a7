import { expect } from 'vitest';
import type { SandboxPool } from './pool';
import type { LlmHandler } from './types';

/** Test double for the sub-call handler: echoes the request and charges fixed token counts. */
export const echoLlmDouble: LlmHandler = async (req) => ({
  text: `echo(${req.depth}):${req.prompt}:${req.chunk ?? ''}`,
  promptTokens: 10,
  completionTokens: 5,
});

/**
 * Runs `attack` while a bystander episode on every worker keeps stepping, then checks that every bystander
 * produced correct output throughout and that the pool still opens and runs fresh episodes.
 */
export async function expectContained(pool: SandboxPool, attack: () => Promise<void>): Promise<void> {
  const workers = pool.stats().workers.length;
  const bystanders = await Promise.all(
    Array.from({ length: workers }, (_, i) =>
      pool.openEpisode({ ctx: `bystander ${i} with a needle`, limits: { maxSteps: 1e6, episodeCpuMs: 1e6 } }),
    ),
  );
  let stop = false;
  // Loops collect their outcome instead of throwing, so a failure is reported after the attack, not as an
  // unhandled rejection while it runs.
  const loops = bystanders.map(async (episode, i) => {
    await episode.run('let n = 0');
    let steps = 0;
    // At least one step after the attack has begun, however quick the attack is.
    while (!stop || steps === 0) {
      const result = await episode.run('n++; print(ctx.indexOf("needle"), n)');
      const expected = `${18 + String(i).length} ${steps + 1}\n`;
      if (result.error !== null || result.stdout !== expected) return { steps, failure: result };
      steps++;
    }
    return { steps, failure: null };
  });
  try {
    await attack();
  } finally {
    stop = true;
  }
  for (const { steps, failure } of await Promise.all(loops)) {
    expect(failure).toBeNull();
    expect(steps).toBeGreaterThan(0);
  }
  await Promise.all(bystanders.map((episode) => episode.close()));

  const stats = pool.stats();
  expect(stats.workers.every((w) => w.ready)).toBe(true);
  const fresh = await pool.openEpisode({ ctx: 'fresh' });
  const result = await fresh.run('print(ctx, typeof process, ({}).polluted)');
  expect(result).toMatchObject({ error: null, stdout: 'fresh undefined undefined\n' });
  await fresh.close();
}
