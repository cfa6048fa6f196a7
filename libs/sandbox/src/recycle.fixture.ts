/**
 * A script for recycle.test.ts: a pool whose one worker is recycled every 2 episodes, and 6 episodes opened one after
 * another with nothing else keeping the process alive. Prints how many ran, then closes the pool.
 */
import { SandboxPool } from './pool';

const pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1, recycleAfterEpisodes: 2 });
let ran = 0;
for (let i = 0; i < 6; i++) {
  const episode = await pool.openEpisode({ ctx: `episode ${i}` });
  if ((await episode.run('print(ctx)')).stdout === `episode ${i}\n`) ran++;
  await episode.close();
}
process.stdout.write(`${JSON.stringify({ ran, recycled: pool.stats().totals.recycled })}\n`);
await pool.close();
