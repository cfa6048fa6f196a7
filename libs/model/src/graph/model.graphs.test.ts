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
    const { session, logits } = await decoder.start([{ tokens: prompt, rows: 2 }]);
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

  it('decodes rows of different lengths side by side, and keeps decoding after rows are dropped', async () => {
    const decoder = graphs.decoder(params);
    const prompts = [rows[0].slice(0, 3), rows[1].slice(0, 7), rows[0].slice(2, 4)];
    const { session, logits } = await decoder.start(prompts.map((tokens, i) => ({ tokens, rows: i === 1 ? 2 : 1 })));
    const v = config.vocabSize;
    prompts.forEach((p, i) =>
      expect(maxAbsDiff(logits.subarray(i * v, (i + 1) * v), referenceForward(config, params, p).at(-1)!)).toBeLessThan(
        1e-4,
      ),
    );
    // Rows: prompt 0, prompt 1 twice, prompt 2; long enough to grow the cache of the short rows' session.
    const seqs = [prompts[0], prompts[1], prompts[1], prompts[2]].map((p) => [...p]);
    let live = [0, 1, 2, 3];
    for (let s = 0; s < 40; s++) {
      if (s === 5) {
        live = [3, 1];
        session.retain([3, 1]);
      }
      // Increasing rows move down in place.
      if (s === 20) {
        live = [1];
        session.retain([1]);
      }
      const next = live.map((r) => (r * 5 + s * 3) % v);
      live.forEach((r, i) => seqs[r].push(next[i]));
      const out = await session.step(next);
      expect(session.rows).toBe(live.length);
      if (s % 13 !== 4) continue;
      live.forEach((r, i) =>
        expect(
          maxAbsDiff(out.subarray(i * v, (i + 1) * v), referenceForward(config, params, seqs[r]).at(-1)!),
        ).toBeLessThan(1e-4),
      );
    }
    session.close();
    await decoder.release();
  });

  it("starts a prompt marked reuse from a kept row's prefix, with the logits of a full prefill", async () => {
    const decoder = graphs.decoder(params);
    const v = config.vocabSize;
    // Long enough to be worth reusing (at least 16 shared tokens).
    const turn = Array.from({ length: 20 }, (_, i) => (i * 7 + 3) % v);
    const first = await decoder.start([{ tokens: turn, rows: 2, reuse: true }]);
    const sampled = [
      [3, 8, 1],
      [5, 5, 2],
    ];
    for (let s = 0; s < 3; s++) await first.session.step([sampled[0][s], sampled[1][s]]);
    first.session.retain([1]);
    first.session.close();
    expect(decoder.positions).toEqual({ computed: 20, reused: 0 });
    // Each next prompt continues one row and adds an observation; a prompt continuing neither is prefilled.
    const next = [[...turn, ...sampled[1], 9, 9, 4], [...turn, ...sampled[0].slice(0, 2), 7], [...rows[1]]];
    const { session, logits } = await decoder.start(next.map((tokens) => ({ tokens, rows: 1, reuse: true })));
    expect(decoder.positions).toEqual({ computed: 20 + 3 + 1 + 8, reused: 23 + 22 });
    next.forEach((p, i) =>
      expect(maxAbsDiff(logits.subarray(i * v, (i + 1) * v), referenceForward(config, params, p).at(-1)!)).toBeLessThan(
        1e-4,
      ),
    );
    const out = await session.step([1, 2, 3]);
    next.forEach((p, i) =>
      expect(
        maxAbsDiff(out.subarray(i * v, (i + 1) * v), referenceForward(config, params, [...p, i + 1]).at(-1)!),
      ).toBeLessThan(1e-4),
    );
    session.close();
    decoder.forget();
    await decoder.start([{ tokens: next[0], rows: 1, reuse: true }]);
    expect(decoder.positions.computed).toBe(32 + next[0].length);
    await decoder.release();
  });

  it('keeps decoding correctly after the cache buffers grow', async () => {
    const decoder = graphs.decoder(params);
    const prompt = [3, 1, 4];
    const { session } = await decoder.start([{ tokens: prompt, rows: 2 }]);
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
