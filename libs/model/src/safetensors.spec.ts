import { describe, expect, it } from 'vitest';
import { ModelError } from './errors';
import { floatToHalf, halfToFloat, parseSafetensors, serializeSafetensors } from './safetensors';

const values = Float32Array.from([0, 1, -2.5, 0.1, 3.14159, 65504, -1e-5, 1e-8]);

describe('safetensors', () => {
  it('round-trips F32 exactly and starts the data 8-byte aligned', () => {
    const bytes = serializeSafetensors(
      [
        { name: 'a', shape: [2, 4], data: values },
        { name: 'b.weight', shape: [3], data: Float32Array.from([7, 8, 9]) },
      ],
      'F32',
      { format: 'pt' },
    );
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + headerLength) % 8).toBe(0);
    const file = parseSafetensors(bytes);
    expect(file.metadata).toEqual({ format: 'pt' });
    expect(file.tensors.get('a')?.shape).toEqual([2, 4]);
    expect([...file.tensors.get('a')!.data]).toEqual([...values]);
    expect([...file.tensors.get('b.weight')!.data]).toEqual([7, 8, 9]);
  });

  it('stores BF16 as the top 16 bits rounded to nearest even', () => {
    const file = parseSafetensors(serializeSafetensors([{ name: 'x', shape: [8], data: values }], 'BF16'));
    const got = file.tensors.get('x')!;
    expect(got.dtype).toBe('BF16');
    expect(got.data[1]).toBe(1);
    expect(got.data[2]).toBe(-2.5);
    for (let i = 0; i < values.length; i++)
      expect(Math.abs(got.data[i] - values[i])).toBeLessThanOrEqual(Math.abs(values[i]) / 256);
  });

  it('reads a BF16 tensor written byte by byte', () => {
    const header = new TextEncoder().encode(JSON.stringify({ w: { dtype: 'BF16', shape: [2], data_offsets: [0, 4] } }));
    const bytes = new Uint8Array(8 + header.length + 4);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(header.length), true);
    bytes.set(header, 8);
    bytes.set([0x80, 0x3f, 0x20, 0xc0], 8 + header.length); // 0x3f80 = 1.0, 0xc020 = -2.5
    expect([...parseSafetensors(bytes).tensors.get('w')!.data]).toEqual([1, -2.5]);
  });

  it('converts F16 including subnormals, the maximum and rounding', () => {
    expect(floatToHalf(1)).toBe(0x3c00);
    expect(floatToHalf(-2)).toBe(0xc000);
    expect(floatToHalf(65504)).toBe(0x7bff);
    expect(floatToHalf(1e6)).toBe(0x7c00);
    expect(floatToHalf(2 ** -24)).toBe(1);
    expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00);
    expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(halfToFloat(0x3555)).toBeCloseTo(0.333251953125, 12);
    const file = parseSafetensors(serializeSafetensors([{ name: 'x', shape: [8], data: values }], 'F16'));
    for (let i = 0; i < values.length; i++)
      expect(Math.abs(file.tensors.get('x')!.data[i] - values[i])).toBeLessThanOrEqual(
        Math.abs(values[i]) / 1024 + 6e-8,
      );
  });

  it('rejects a truncated file and an unsupported dtype by name', () => {
    const bytes = serializeSafetensors([{ name: 'x', shape: [8], data: values }]);
    expect(() => parseSafetensors(bytes.subarray(0, bytes.length - 1))).toThrow(/'x' offsets/);
    const header = new TextEncoder().encode(
      JSON.stringify({ ids: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }),
    );
    const raw = new Uint8Array(8 + header.length + 8);
    new DataView(raw.buffer).setBigUint64(0, BigInt(header.length), true);
    raw.set(header, 8);
    expect(() => parseSafetensors(raw)).toThrow(ModelError);
    expect(() => parseSafetensors(raw)).toThrow(/'ids'.*I64/);
  });
});
