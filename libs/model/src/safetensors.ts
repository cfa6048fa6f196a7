import { ModelError } from './errors';

/** Element types this library reads and writes; every tensor is float32 in memory. */
export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';

export interface NamedTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

export interface SafetensorsFile {
  tensors: Map<string, { shape: number[]; dtype: SafetensorsDtype; data: Float32Array }>;
  metadata: Record<string, string>;
}

const bytesPer: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 };

function bad(detail: string): never {
  throw new ModelError('INVALID_SAFETENSORS', detail);
}

/**
 * Parses a safetensors file: an 8-byte little-endian header length, a JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?}`, then the raw little-endian data, offsets
 * relative to the end of the header. F16 and BF16 tensors are widened to float32; other dtypes throw naming
 * the tensor.
 */
export function parseSafetensors(bytes: Uint8Array, source = 'safetensors'): SafetensorsFile {
  if (bytes.length < 8) bad(`${source}: ${bytes.length} bytes, shorter than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (8 + headerLength > bytes.length) bad(`${source}: header length ${headerLength} exceeds the file`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<string, unknown>;
  } catch (error) {
    bad(`${source}: header is not JSON (${(error as Error).message})`);
  }
  const dataStart = 8 + headerLength;
  const metadata = (header.__metadata__ ?? {}) as Record<string, string>;
  const tensors: SafetensorsFile['tensors'] = new Map();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets: offsets } = entry as { dtype: string; shape: number[]; data_offsets: number[] };
    if (!(dtype in bytesPer)) {
      throw new ModelError('INVALID_TENSOR', `'${name}' in ${source} has dtype ${dtype}; F32, F16 or BF16 needed`);
    }
    const d = dtype as SafetensorsDtype;
    if (!Array.isArray(shape) || !Array.isArray(offsets) || offsets.length !== 2)
      bad(`${source}: '${name}' has a malformed entry`);
    const count = shape.reduce((a, b) => a * b, 1);
    const [begin, end] = offsets;
    if (end - begin !== count * bytesPer[d] || dataStart + end > bytes.length || begin < 0) {
      bad(`${source}: '${name}' offsets [${begin}, ${end}] do not fit shape [${shape.join(', ')}] ${d}`);
    }
    tensors.set(name, { shape, dtype: d, data: decode(bytes.subarray(dataStart + begin, dataStart + end), d, count) });
  }
  return { tensors, metadata };
}

function decode(raw: Uint8Array, dtype: SafetensorsDtype, count: number): Float32Array {
  // Copy first: the data need not be aligned for a typed-array view of the file buffer.
  const aligned = new Uint8Array(raw);
  if (dtype === 'F32') return new Float32Array(aligned.buffer, 0, count);
  const halves = new Uint16Array(aligned.buffer, 0, count);
  const out = new Float32Array(count);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = halves[i] << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(halves[i]);
  }
  return out;
}

/**
 * Serialises tensors (in the given order) as a safetensors file, converting to `dtype` (round to nearest even).
 * The header is padded with spaces so the data starts 8-byte aligned, as the reference implementation does.
 */
export function serializeSafetensors(
  tensors: readonly NamedTensor[],
  dtype: SafetensorsDtype = 'F32',
  metadata: Record<string, string> = {},
): Uint8Array {
  const header: Record<string, unknown> = Object.keys(metadata).length ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) {
      throw new ModelError(
        'INVALID_TENSOR',
        `'${t.name}' has ${t.data.length} elements for shape [${t.shape.join(', ')}]`,
      );
    }
    const size = count * bytesPer[dtype];
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + size] };
    offset += size;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + Buffer.byteLength(json)) % 8)) % 8);
  const headerBytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const t of tensors) {
    const encoded = encode(t.data, dtype);
    out.set(encoded, at);
    at += encoded.length;
  }
  return out;
}

function encode(data: Float32Array, dtype: SafetensorsDtype): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const halves = new Uint16Array(data.length);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(Float32Array.from(data).buffer);
    for (let i = 0; i < data.length; i++) {
      const b = bits[i];
      halves[i] = Number.isNaN(data[i]) ? 0x7fc0 : ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
    }
  } else {
    for (let i = 0; i < data.length; i++) halves[i] = floatToHalf(data[i]);
  }
  return new Uint8Array(halves.buffer);
}

/** IEEE 754 binary16 bits → number. */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** number → IEEE 754 binary16 bits, rounding to nearest even; overflow saturates to infinity. */
export function floatToHalf(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundEven(a / 2 ** -24);
  const exp = Math.floor(Math.log2(a));
  const e = a / 2 ** exp >= 2 ? exp + 1 : a / 2 ** exp < 1 ? exp - 1 : exp;
  const mant = roundEven((a / 2 ** e - 1) * 1024);
  // A mantissa that rounds up to 1024 carries into the exponent, which the bit layout does by itself.
  return sign | (((e + 15) << 10) + mant);
}

function roundEven(v: number): number {
  const f = Math.floor(v);
  const r = v - f;
  return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f;
}
