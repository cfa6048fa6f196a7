import { type DType, type HostArray, checkHostArray } from './dtype';
import { TensorError } from './errors';
import { type Dim, type Shape, normDim, shapeToString } from './shape';

/** An ONNX attribute value; the wrapper says which ONNX attribute type it serialises to. */
export type AttrValue =
  { int: number } | { float: number } | { string: string } | { ints: readonly number[] } | { tensor: InitializerData };
export type Attrs = Readonly<Record<string, AttrValue>>;

/** How a tensor enters the graph: fed at run time, baked into the model, or computed by a node. */
export type TensorKind = 'input' | 'initializer' | 'node';

/** A symbolic tensor: a name in one graph with a dtype and a (possibly symbolic) shape. Holds no data. */
export class Tensor {
  /** @internal use the Graph methods and the op functions to make tensors. */
  constructor(
    readonly graph: Graph,
    readonly name: string,
    readonly dtype: DType,
    readonly shape: readonly Dim[],
    readonly kind: TensorKind,
    /** The node that computes this tensor (kind 'node' only). */
    readonly producer?: Node,
  ) {}

  get rank(): number {
    return this.shape.length;
  }

  toString(): string {
    return `${this.name}: ${this.dtype}${shapeToString(this.shape)}`;
  }
}

/** One ONNX node. `op` is the ONNX op type, except 'StopGradient' (serialised as Identity, no gradient). */
export interface Node {
  readonly op: string;
  /** Inputs in ONNX order; `null` marks an omitted optional input. */
  readonly inputs: readonly (Tensor | null)[];
  readonly outputs: readonly Tensor[];
  readonly attrs: Attrs;
  /** Creation order; node order is a topological order because tensors exist before their consumers. */
  readonly index: number;
}

export interface InitializerData {
  readonly dtype: DType;
  readonly dims: readonly number[];
  readonly data: HostArray;
}

/**
 * An append-only ONNX graph under construction. Build tensors with `input`, `initializer` and `constant`, combine
 * them with the op functions, differentiate with `grad`, and compile selected outputs with `Runtime.compile`. Only
 * what the compiled outputs need is serialised, so one graph can serve several compiled functions.
 */
export class Graph {
  readonly inputs: Tensor[] = [];
  readonly nodes: Node[] = [];
  readonly initializers = new Map<string, InitializerData>();
  private readonly names = new Set<string>();
  private readonly smallConstants = new Map<string, Tensor>();
  private counter = 0;

  constructor(readonly name = 'fathom') {}

  /**
   * A tensor fed at run time (parameters of full fine-tuning, token ids, masks). Feeding is zero-copy, so even a
   * large parameter costs nothing to pass in. Named dims ('B', 'T') are bound from the feeds of each call.
   */
  input(name: string, dtype: DType, shape: Shape): Tensor {
    this.claim(name);
    const t = new Tensor(this, name, dtype, shape.map(normDim), 'input');
    this.inputs.push(t);
    return t;
  }

  /**
   * A frozen tensor baked into the model as an initializer (raw bytes): it is uploaded to the execution provider
   * once per session and never fed again. This is how a frozen base under LoRA adapters is held.
   */
  initializer(name: string, dtype: DType, dims: readonly number[], data: HostArray): Tensor {
    checkHostArray(name, dtype, data);
    const size = dims.reduce((a, b) => a * b, 1);
    if (data.length !== size)
      throw new TensorError('INVALID_GRAPH', `initializer '${name}' has ${data.length} values for dims [${dims}]`);
    this.claim(name);
    return this.addInitializer(name, dtype, dims, data);
  }

  private addInitializer(name: string, dtype: DType, dims: readonly number[], data: HostArray): Tensor {
    this.initializers.set(name, { dtype, dims: [...dims], data });
    return new Tensor(this, name, dtype, [...dims], 'initializer');
  }

  /**
   * A constant; values are converted to the dtype's typed array. Small constants (axes, shapes, scalars) are
   * shared between all uses of the same values, so graphs do not fill up with copies.
   */
  constant(values: readonly number[] | readonly bigint[], dtype: DType, dims: readonly number[]): Tensor {
    if (values.length > 16) return this.addInitializer(this.fresh('const'), dtype, dims, toHostArray(values, dtype));
    const key = `${dtype}[${dims}]:${values.map((v) => (Object.is(v, -0) ? '-0' : String(v)))}`;
    let t = this.smallConstants.get(key);
    if (!t) {
      t = this.addInitializer(this.fresh('const'), dtype, dims, toHostArray(values, dtype));
      this.smallConstants.set(key, t);
    }
    return t;
  }

  /** A rank-0 constant of the dtype. */
  scalar(value: number, dtype: DType): Tensor {
    return this.constant([value], dtype, []);
  }

  /** @internal appends a node; op functions call this after inferring output dtypes and shapes. */
  addNode(
    op: string,
    inputs: readonly (Tensor | null)[],
    outputs: readonly { dtype: DType; shape: Shape }[],
    attrs: Attrs = {},
  ): Tensor[] {
    for (const t of inputs)
      if (t && t.graph !== this)
        throw new TensorError('INVALID_GRAPH', `${op}: tensor '${t.name}' belongs to another graph`);
    const made: Tensor[] = [];
    const node: Node = { op, inputs, outputs: made, attrs, index: this.nodes.length };
    for (const spec of outputs)
      made.push(new Tensor(this, this.fresh(op.toLowerCase()), spec.dtype, spec.shape.map(normDim), 'node', node));
    this.nodes.push(node);
    return made;
  }

  private fresh(prefix: string): string {
    let name: string;
    do name = `${prefix}_${this.counter++}`;
    while (this.names.has(name));
    this.names.add(name);
    return name;
  }

  private claim(name: string): void {
    if (this.names.has(name)) throw new TensorError('INVALID_GRAPH', `name '${name}' is already used`);
    this.names.add(name);
  }
}

/** Converts plain numbers to the typed array of a dtype. */
export function toHostArray(values: readonly number[] | readonly bigint[], dtype: DType): HostArray {
  const nums = values as readonly (number | bigint)[];
  switch (dtype) {
    case 'float32':
      return Float32Array.from(nums, Number);
    case 'float16':
      return Uint16Array.from(nums, (v) => toHalfBits(Number(v)));
    case 'int64':
      return BigInt64Array.from(nums, (v) => BigInt(v));
    case 'int32':
      return Int32Array.from(nums, Number);
    case 'bool':
      return Uint8Array.from(nums, (v) => (Number(v) ? 1 : 0));
  }
}

/** IEEE half-precision bits of a number (round to nearest even), for float16 constants. */
function toHalfBits(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  const mant = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    const m = (mant | 0x800000) >> (1 - exp);
    return sign | ((m + 0x1000) >> 13);
  }
  const half = sign | (exp << 10) | (mant >> 13);
  const rest = mant & 0x1fff;
  return rest > 0x1000 || (rest === 0x1000 && half & 1) ? half + 1 : half;
}
