import { TensorError } from './errors';

/** Element types a symbolic tensor can hold. `float16` values travel as raw `Uint16Array` bits. */
export type DType = 'float32' | 'float16' | 'int64' | 'int32' | 'bool';

/** The typed array that holds each dtype on the host (what `run` accepts and returns). */
export interface TypedArrayOf {
  float32: Float32Array;
  float16: Uint16Array;
  int64: BigInt64Array;
  int32: Int32Array;
  bool: Uint8Array;
}

export type HostArray = TypedArrayOf[DType];

/** ONNX TensorProto.DataType codes. */
export const onnxDataType: Record<DType, number> = { float32: 1, bool: 9, int32: 6, int64: 7, float16: 10 };

export const isFloat = (dtype: DType): boolean => dtype === 'float32' || dtype === 'float16';

/** The onnxruntime-node tensor type name of a dtype. */
export const ortType: Record<DType, 'float32' | 'float16' | 'int64' | 'int32' | 'bool'> = {
  float32: 'float32',
  float16: 'float16',
  int64: 'int64',
  int32: 'int32',
  bool: 'bool',
};

/** Checks that `data` is the typed array `dtype` needs; the name is only for the error message. */
export function checkHostArray(name: string, dtype: DType, data: unknown): void {
  const ok =
    (dtype === 'float32' && data instanceof Float32Array) ||
    (dtype === 'float16' && data instanceof Uint16Array) ||
    (dtype === 'int64' && data instanceof BigInt64Array) ||
    (dtype === 'int32' && data instanceof Int32Array) ||
    (dtype === 'bool' && data instanceof Uint8Array);
  if (!ok) {
    const got = (data as object | undefined)?.constructor?.name ?? typeof data;
    throw new TensorError('INVALID_FEED', `'${name}' is ${dtype} and needs a ${hostArrayName[dtype]}, got ${got}`);
  }
}

const hostArrayName: Record<DType, string> = {
  float32: 'Float32Array',
  float16: 'Uint16Array',
  int64: 'BigInt64Array',
  int32: 'Int32Array',
  bool: 'Uint8Array',
};
