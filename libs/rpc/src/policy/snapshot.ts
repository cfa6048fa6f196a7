import { createHash } from 'node:crypto';
import { endianness } from 'node:os';

/** One F32 parameter tensor of a policy version. */
export interface PolicyTensor {
  /** The parameter's name as in model.safetensors. */
  name: string;
  shape: number[];
  /** Row-major values; `data.length` is the product of `shape`. */
  data: Float32Array;
}

/**
 * One policy version as the learner holds it. Treated as immutable once handed to the Policy server: the server
 * caches the SHA-256 of its bytes per snapshot object.
 */
export interface PolicySnapshot {
  runId: string;
  version: number;
  /** The learner step whose update produced this version (0 for the initial policy). */
  step: number;
  checkpointPath: string | null;
  /** The model's config.json text, verbatim. */
  configJson: string;
  /** Every parameter in manifest order: the order in which GetWeights streams their bytes. */
  tensors: PolicyTensor[];
}

type MaybePromise<T> = T | Promise<T>;

/** Where the Policy server reads versions from (the learner's in-memory versions and checkpoints). */
export interface PolicySource {
  /** The newest version of a run; undefined for an unknown run (NOT_FOUND). */
  latest(runId: string): MaybePromise<PolicySnapshot | undefined>;
  /**
   * One version of a run: 'evicted' for a version the learner produced but no longer keeps (FAILED_PRECONDITION),
   * undefined for an unknown run or a version never produced (NOT_FOUND).
   */
  get(runId: string, version: number): MaybePromise<PolicySnapshot | 'evicted' | undefined>;
}

/** Where one tensor's bytes sit in the concatenated data of a snapshot. */
export interface TensorLayout {
  name: string;
  shape: number[];
  byteOffset: number;
  byteLength: number;
}

export interface SnapshotLayout {
  tensors: TensorLayout[];
  totalBytes: number;
  /** SHA-256 (hex) of the concatenated tensor bytes. */
  sha256: string;
}

const layouts = new WeakMap<PolicySnapshot, SnapshotLayout>();

/** A tensor's bytes as they go on the wire: the Float32Array's memory, which is little-endian on this host. */
export function tensorBytes(data: Float32Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The byte layout and SHA-256 of a snapshot, computed once per snapshot object. Throws when a tensor's data does
 * not match its shape, naming the run, version and tensor.
 */
export function snapshotLayout(snapshot: PolicySnapshot): SnapshotLayout {
  let layout = layouts.get(snapshot);
  if (layout !== undefined) return layout;
  // The wire format is little-endian; Float32Array memory is in host order.
  if (endianness() !== 'LE') throw new Error('the Policy server needs a little-endian host');
  const hash = createHash('sha256');
  const tensors: TensorLayout[] = [];
  let offset = 0;
  for (const tensor of snapshot.tensors) {
    const elements = tensor.shape.reduce((a, b) => a * b, 1);
    if (elements !== tensor.data.length) {
      throw new Error(
        `run "${snapshot.runId}" version ${snapshot.version}: tensor ${tensor.name} has shape ` +
          `[${tensor.shape.join(', ')}] (${elements} values) but ${tensor.data.length} values`,
      );
    }
    hash.update(tensorBytes(tensor.data));
    tensors.push({ name: tensor.name, shape: tensor.shape, byteOffset: offset, byteLength: tensor.data.byteLength });
    offset += tensor.data.byteLength;
  }
  layout = { tensors, totalBytes: offset, sha256: hash.digest('hex') };
  layouts.set(snapshot, layout);
  return layout;
}

/**
 * The concatenated tensor bytes of a snapshot cut into chunks of `chunkBytes` (the last one shorter). A chunk
 * inside one tensor is a view of its memory; only a chunk that spans tensors is copied.
 */
export function* dataChunks(snapshot: PolicySnapshot, chunkBytes: number): Generator<{ offset: number; data: Buffer }> {
  let offset = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    const data = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    const chunk = { offset, data };
    offset += pendingBytes;
    pending = [];
    pendingBytes = 0;
    return chunk;
  };
  for (const tensor of snapshot.tensors) {
    let rest = tensorBytes(tensor.data);
    while (rest.length > 0) {
      const take = Math.min(chunkBytes - pendingBytes, rest.length);
      pending.push(rest.subarray(0, take));
      pendingBytes += take;
      rest = rest.subarray(take);
      if (pendingBytes === chunkBytes) yield flush();
    }
  }
  if (pendingBytes > 0) yield flush();
}
