import { describe, expect, it } from 'vitest';
import { initParams } from '../params';
import { referenceForward } from '../reference';
import { smallConfigs } from '../testing/configs';
import { ModelGraphs } from './model.graphs';

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

describe.each(smallConfigs())('ModelGraphs on %s', (_name, config) => {
  const params = initParams(config, 5, 0.3);
  const graphs = new ModelGraphs(config);
  const rows = [
    [1, 7, 3, 3, 9, 0, 12, 5],
    [4, 4, 2, 8, 1, 1, 6, 2],
  ];

  it('gives the reference logits within 1e-4', async () => {
    const logits = await graphs.logits(params, rows.flat(), 2, 8);
    const expected = rows.flatMap((r) => referenceForward(config, params, r).flatMap((p) => Array.from(p)));
    expect(maxAbsDiff(logits, expected)).toBeLessThan(1e-4);
  });

  it('decodes with a KV cache exactly as full recomputation', async () => {
    const decoder = graphs.decoder(params);
    const prompt = rows[0].slice(0, 5);
    const { session, logits } = await decoder.start(prompt, 2);
    const full = referenceForward(config, params, prompt);
    expect(maxAbsDiff(logits, full[4])).toBeLessThan(1e-4);
    const next = [
      [11, 2, 9],
      [3, 3, 0],
    ];
    for (let s = 0; s < 3; s++) {
      const out = await session.step([next[0][s], next[1][s]]);
      for (let r = 0; r < 2; r++) {
        const seq = [...prompt, ...next[r].slice(0, s + 1)];
        const ref = referenceForward(config, params, seq);
        expect(
          maxAbsDiff(out.subarray(r * config.vocabSize, (r + 1) * config.vocabSize), ref[seq.length - 1]),
        ).toBeLessThan(1e-4);
      }
    }
    session.close();
  });

  it('keeps decoding correctly after the cache buffers grow', async () => {
    const decoder = graphs.decoder(params);
    const prompt = [3, 1, 4];
    const { session } = await decoder.start(prompt, 2);
    const generated = Array.from({ length: 50 }, (_, i) => (i * 7 + 1) % config.vocabSize);
    let last: Float32Array = new Float32Array();
    for (const t of generated) last = await session.step([t, (t + 1) % config.vocabSize]);
    const seq = [...prompt, ...generated];
    const full = await graphs.logits(params, seq, 1, seq.length);
    const v = config.vocabSize;
    expect(maxAbsDiff(last.subarray(0, v), full.subarray((seq.length - 1) * v))).toBeLessThan(1e-4);
    await decoder.release();
  });
});
