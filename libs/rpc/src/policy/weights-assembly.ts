import { status } from '@grpc/grpc-js';
import { createHash, type Hash } from 'node:crypto';
import { endianness } from 'node:os';
import type { PolicyVersionInfo__Output } from '../generated/fathom/policy/v1/PolicyVersionInfo';
import type { WeightsHeader__Output } from '../generated/fathom/policy/v1/WeightsHeader';

/** A policy version as GetLatest describes it. */
export interface PolicyVersion {
  runId: string;
  version: number;
  step: number;
  checkpointPath: string | null;
  /** Bytes of tensor data GetWeights streams for this version. */
  totalBytes: number;
  /** SHA-256 (hex) of those bytes. */
  sha256: string;
}

/** The weights of one policy version, received and verified. */
export interface PolicyWeights {
  info: PolicyVersion;
  /** The model's config.json text. */
  configJson: string;
  /** Parameters by name, in manifest order; views into one buffer holding all the bytes. */
  params: Map<string, Float32Array>;
  shapes: Map<string, number[]>;
}

/** Why a transfer cannot be used, with the gRPC code the client reports it under. */
export class TransferError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

export function policyVersionOf(info: PolicyVersionInfo__Output): PolicyVersion {
  return {
    runId: info.run_id ?? '',
    version: info.version ?? 0,
    step: info.step ?? 0,
    checkpointPath: info.checkpoint_path ?? null,
    totalBytes: info.total_bytes ?? 0,
    sha256: info.sha256 ?? '',
  };
}

/**
 * Reassembles a GetWeights stream: the header allocates one buffer for every tensor, each data chunk is copied
 * straight to its offset and hashed, and `finish` checks that every byte arrived and the SHA-256 matches.
 * Chunks must arrive in order (a gRPC stream keeps order); anything else is DATA_LOSS.
 */
export class WeightsAssembly {
  private readonly bytes: Uint8Array;
  private readonly hash: Hash = createHash('sha256');
  private received = 0;

  private constructor(
    private readonly info: PolicyVersion,
    private readonly configJson: string,
    private readonly params: Map<string, Float32Array>,
    private readonly shapes: Map<string, number[]>,
    buffer: ArrayBuffer,
  ) {
    this.bytes = new Uint8Array(buffer);
  }

  /** Validates the manifest (F32 only, contiguous in order, sizes matching shapes) and allocates the buffer. */
  static fromHeader(header: WeightsHeader__Output): WeightsAssembly {
    if (header.version === undefined) throw new TransferError(status.DATA_LOSS, 'header without version info');
    if (header.adapters_only === true) {
      throw new TransferError(status.UNIMPLEMENTED, 'adapter-only weights are not supported by this client');
    }
    // Float32Array views read host order; the wire is little-endian.
    if (endianness() !== 'LE')
      throw new TransferError(status.UNIMPLEMENTED, 'the Policy client needs a little-endian host');
    const info = policyVersionOf(header.version);
    const buffer = new ArrayBuffer(info.totalBytes);
    const params = new Map<string, Float32Array>();
    const shapes = new Map<string, number[]>();
    let offset = 0;
    for (const tensor of header.tensors ?? []) {
      const name = tensor.name ?? '';
      const shape = tensor.shape ?? [];
      const elements = shape.reduce((a, b) => a * b, 1);
      const byteOffset = tensor.byte_offset ?? 0;
      const byteLength = tensor.byte_length ?? 0;
      if (tensor.dtype !== 'F32') {
        throw new TransferError(
          status.UNIMPLEMENTED,
          `tensor ${name} has dtype ${tensor.dtype}; only F32 is supported`,
        );
      }
      if (params.has(name)) throw new TransferError(status.DATA_LOSS, `tensor ${name} appears twice in the manifest`);
      if (byteOffset !== offset || byteLength !== elements * 4 || offset + byteLength > info.totalBytes) {
        throw new TransferError(
          status.DATA_LOSS,
          `tensor ${name} (shape [${shape.join(', ')}]) at bytes ${byteOffset}+${byteLength} does not follow the ` +
            `manifest layout (expected offset ${offset}, length ${elements * 4}, total ${info.totalBytes})`,
        );
      }
      params.set(name, new Float32Array(buffer, byteOffset, elements));
      shapes.set(name, shape);
      offset += byteLength;
    }
    if (offset !== info.totalBytes) {
      throw new TransferError(
        status.DATA_LOSS,
        `manifest covers ${offset} bytes but total_bytes is ${info.totalBytes}`,
      );
    }
    return new WeightsAssembly(info, header.config_json ?? '', params, shapes, buffer);
  }

  write(offset: number, data: Uint8Array): void {
    if (offset !== this.received) {
      throw new TransferError(status.DATA_LOSS, `data chunk at offset ${offset}, expected ${this.received}`);
    }
    if (offset + data.length > this.bytes.length) {
      throw new TransferError(
        status.DATA_LOSS,
        `data chunk at offset ${offset} of ${data.length} bytes overruns total_bytes ${this.bytes.length}`,
      );
    }
    this.bytes.set(data, offset);
    this.hash.update(data);
    this.received += data.length;
  }

  finish(): PolicyWeights {
    if (this.received !== this.bytes.length) {
      throw new TransferError(status.DATA_LOSS, `received ${this.received} of ${this.bytes.length} bytes`);
    }
    const sha256 = this.hash.digest('hex');
    if (sha256 !== this.info.sha256) {
      throw new TransferError(status.DATA_LOSS, `SHA-256 mismatch: received ${sha256}, expected ${this.info.sha256}`);
    }
    return { info: this.info, configJson: this.configJson, params: this.params, shapes: this.shapes };
  }
}
