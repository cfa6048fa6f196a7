/** Serialises the part of a Graph that some outputs need into an ONNX ModelProto (onnx-proto's generated types). */
import onnxProto from 'onnx-proto';
import { type DType, onnxDataType } from './dtype';
import type { AttrValue, Graph, InitializerData, Tensor } from './graph';
import { type Dim, normDim } from './shape';

const { onnx } = onnxProto;

/** ONNX opset of every node this library emits. */
export const OPSET = 18;
const IR_VERSION = 8;

/** Named dim → size, as bound from the feeds of one call. */
export type DimBindings = Readonly<Record<string, number>>;

export interface SerializedModel {
  readonly bytes: Uint8Array;
  /** Graph inputs the outputs depend on, in ONNX input order. */
  readonly inputs: readonly Tensor[];
  /** Output key → ONNX output name. */
  readonly outputNames: Readonly<Record<string, string>>;
}

/** Graph inputs that `outputs` depend on, in declaration order. */
export function requiredInputs(graph: Graph, outputs: readonly Tensor[]): Tensor[] {
  return prune(graph, outputs).inputs;
}

/** Nodes, inputs and initializers reachable backwards from `outputs`, so unused parts of the graph cost nothing. */
function prune(graph: Graph, outputs: readonly Tensor[]) {
  const needed = new Set<string>(outputs.map((t) => t.name));
  const nodes = [];
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const node = graph.nodes[i];
    if (!node.outputs.some((t) => needed.has(t.name))) continue;
    nodes.push(node);
    for (const t of node.inputs) if (t) needed.add(t.name);
  }
  nodes.reverse();
  return {
    nodes,
    inputs: graph.inputs.filter((t) => needed.has(t.name)),
    initializers: [...graph.initializers].filter(([name]) => needed.has(name)),
  };
}

function tensorProto(name: string, init: InitializerData): onnxProto.onnx.ITensorProto {
  const { data } = init;
  return {
    name,
    dims: [...init.dims],
    dataType: onnxDataType[init.dtype],
    rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in v) return { name, type: T.INT, i: v.int };
  if ('float' in v) return { name, type: T.FLOAT, f: v.float };
  if ('string' in v) return { name, type: T.STRING, s: new TextEncoder().encode(v.string) };
  if ('ints' in v) return { name, type: T.INTS, ints: [...v.ints] };
  return { name, type: T.TENSOR, t: tensorProto('', v.tensor) };
}

function valueInfo(name: string, dtype: DType, shape?: readonly Dim[], bindings?: DimBindings) {
  const dim = shape?.map((d) => {
    if (typeof d === 'number') return { dimValue: d };
    const bound = bindings?.[String(normDim(d))];
    return bound === undefined ? { dimParam: d } : { dimValue: bound };
  });
  return { name, type: { tensorType: { elemType: onnxDataType[dtype], shape: dim ? { dim } : undefined } } };
}

/**
 * Encodes the sub-graph that computes `outputs` (key → tensor). With `bindings`, named input dims become concrete
 * sizes, which lets onnxruntime fold shape computations and plan memory for exactly that shape.
 */
export function serialize(
  graph: Graph,
  outputs: Readonly<Record<string, Tensor>>,
  bindings?: DimBindings,
): SerializedModel {
  const { nodes, inputs, initializers } = prune(graph, Object.values(outputs));
  const nodeProtos: onnxProto.onnx.INodeProto[] = nodes.map((node) => ({
    opType: node.op === 'StopGradient' ? 'Identity' : node.op,
    input: node.inputs.map((t) => t?.name ?? ''),
    output: node.outputs.map((t) => t.name),
    attribute: Object.entries(node.attrs).map(([name, v]) => attribute(name, v)),
  }));
  // An ONNX output must be a node output with one name; inputs, initializers and repeated tensors get an Identity.
  const outputNames: Record<string, string> = {};
  const used = new Set<string>();
  const outputInfos = Object.entries(outputs).map(([key, t]) => {
    let name = t.name;
    if (t.kind !== 'node' || used.has(name)) {
      name = `${key}__output`;
      nodeProtos.push({ opType: 'Identity', input: [t.name], output: [name] });
    }
    used.add(name);
    outputNames[key] = name;
    return valueInfo(name, t.dtype);
  });
  const model = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: '@fathom/tensor',
    opsetImport: [{ domain: '', version: OPSET }],
    graph: {
      name: graph.name,
      node: nodeProtos,
      input: inputs.map((t) => valueInfo(t.name, t.dtype, t.shape, bindings)),
      output: outputInfos,
      initializer: initializers.map(([name, init]) => tensorProto(name, init)),
    },
  });
  return { bytes: onnx.ModelProto.encode(model).finish(), inputs, outputNames };
}
