import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { dataChunks, snapshotLayout, tensorBytes, type PolicySnapshot } from './snapshot';
import { TransferError, WeightsAssembly } from './weights-assembly';

function snapshot(tensors: PolicySnapshot['tensors']): PolicySnapshot {
  return { runId: 'r', version: 2, step: 5, checkpointPath: null, configJson: '{"a":1}', tensors };
}

const sample = () =>
  snapshot([
    { name: 'a', shape: [2, 3], data: Float32Array.from([1, -0, NaN, Infinity, 1e-40, 3.5]) },
    { name: 'empty', shape: [0, 4], data: new Float32Array(0) },
    { name: 'b', shape: [5], data: Float32Array.from([5, 4, 3, 2, 1]) },
  ]);

function headerOf(snap: PolicySnapshot) {
  const layout = snapshotLayout(snap);
  return {
    version: {
      run_id: snap.runId,
      version: snap.version,
      step: snap.step,
      total_bytes: layout.totalBytes,
      sha256: layout.sha256,
    },
    config_json: snap.configJson,
    adapters_only: false,
    tensors: layout.tensors.map((t) => ({
      name: t.name,
      dtype: 'F32',
      shape: t.shape,
      byte_offset: t.byteOffset,
      byte_length: t.byteLength,
    })),
  };
}

const allBytes = (snap: PolicySnapshot) => Buffer.concat(snap.tensors.map((t) => tensorBytes(t.data)));

describe('snapshot layout and chunks', () => {
  it('lays tensors out back to back and caches the layout per snapshot', () => {
    const snap = sample();
    const layout = snapshotLayout(snap);
    expect(layout.tensors.map((t) => [t.name, t.byteOffset, t.byteLength])).toEqual([
      ['a', 0, 24],
      ['empty', 24, 0],
      ['b', 24, 20],
    ]);
    expect(layout.totalBytes).toBe(44);
    expect(snapshotLayout(snap)).toBe(layout);
  });

  it('rejects a tensor whose data does not fit its shape, naming it', () => {
    const bad = snapshot([{ name: 'w', shape: [2, 2], data: new Float32Array(3) }]);
    expect(() => snapshotLayout(bad)).toThrow(/tensor w has shape \[2, 2\] \(4 values\) but 3 values/);
  });

  it.each([4, 7, 24, 44, 1000])('cuts the concatenated bytes into %i-byte chunks across tensor boundaries', (size) => {
    const snap = sample();
    const chunks = [...dataChunks(snap, size)];
    expect(chunks.map((c) => c.offset)).toEqual(chunks.map((_, i) => i * size));
    expect(chunks.slice(0, -1).every((c) => c.data.length === size)).toBe(true);
    expect(Buffer.concat(chunks.map((c) => c.data)).equals(allBytes(snap))).toBe(true);
  });
});

describe('WeightsAssembly', () => {
  it('reassembles chunks bit-exactly into views of one buffer', () => {
    const snap = sample();
    const assembly = WeightsAssembly.fromHeader(headerOf(snap));
    for (const chunk of dataChunks(snap, 7)) assembly.write(chunk.offset, chunk.data);
    const weights = assembly.finish();
    expect([...weights.params.keys()]).toEqual(['a', 'empty', 'b']);
    expect(weights.shapes.get('empty')).toEqual([0, 4]);
    expect(Buffer.from(weights.params.get('a')!.buffer).equals(allBytes(snap))).toBe(true);
    expect(weights.info).toMatchObject({ runId: 'r', version: 2, step: 5, checkpointPath: null, totalBytes: 44 });
  });

  const dataLoss = (fn: () => unknown, message: RegExp) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(TransferError);
      expect((error as TransferError).code).toBe(status.DATA_LOSS);
      expect((error as TransferError).message).toMatch(message);
      return;
    }
    throw new Error('expected a DATA_LOSS TransferError');
  };

  it('rejects out-of-order, overrunning, short and corrupted transfers', () => {
    const snap = sample();
    const bytes = allBytes(snap);
    dataLoss(() => WeightsAssembly.fromHeader(headerOf(snap)).write(4, bytes.subarray(4, 8)), /offset 4, expected 0/);
    dataLoss(
      () => WeightsAssembly.fromHeader(headerOf(snap)).write(0, Buffer.concat([bytes, Buffer.alloc(1)])),
      /overruns total_bytes 44/,
    );
    const short = WeightsAssembly.fromHeader(headerOf(snap));
    short.write(0, bytes.subarray(0, 40));
    dataLoss(() => short.finish(), /received 40 of 44 bytes/);
    const corrupt = WeightsAssembly.fromHeader(headerOf(snap));
    const flipped = Buffer.from(bytes);
    flipped[10] ^= 1;
    corrupt.write(0, flipped);
    dataLoss(() => corrupt.finish(), /SHA-256 mismatch/);
  });

  it('rejects a manifest that does not match its layout or dtype', () => {
    const header = headerOf(sample());
    dataLoss(
      () =>
        WeightsAssembly.fromHeader({
          ...header,
          tensors: [header.tensors[0], { ...header.tensors[2], byte_offset: 30 }],
        }),
      /tensor b .*expected offset 24/,
    );
    dataLoss(
      () => WeightsAssembly.fromHeader({ ...header, tensors: header.tensors.slice(0, 1) }),
      /covers 24 bytes but total_bytes is 44/,
    );
    expect(() => WeightsAssembly.fromHeader({ ...header, tensors: [{ ...header.tensors[0], dtype: 'BF16' }] })).toThrow(
      /dtype BF16; only F32/,
    );
  });
});
