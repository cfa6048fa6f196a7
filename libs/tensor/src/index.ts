/**
 * @fathom/tensor — an ONNX graph builder with reverse-mode autodiff and optimizers, run by onnxruntime-node.
 * See libs/tensor/README.md for a walk-through.
 */
export { TensorError, type TensorErrorCode } from './errors';
export type { DType, HostArray, TypedArrayOf } from './dtype';
export { isFloat } from './dtype';
export type { Dim, Shape } from './shape';
export { broadcastShapes, sameShape } from './shape';
export { Graph, Tensor } from './graph';
export type { AttrValue, Attrs, InitializerData, Node, TensorKind } from './graph';
export {
  add,
  cast,
  concat,
  detach,
  div,
  equal,
  erf,
  exp,
  expand,
  gather,
  gatherElements,
  greater,
  greaterOrEqual,
  less,
  lessOrEqual,
  log,
  logSoftmax,
  logicalAnd,
  logicalNot,
  matmul,
  maximum,
  mul,
  neg,
  pow,
  reciprocal,
  reduceMax,
  reduceMean,
  reduceSum,
  reshape,
  shapeOf,
  sigmoid,
  slice,
  softmax,
  sqrt,
  squeeze,
  sub,
  tanh,
  transpose,
  trilu,
  unsqueeze,
  where,
} from './ops';
export type { TensorLike } from './ops';
export {
  causalAttention,
  causalMask,
  embedding,
  gelu,
  linear,
  maskedCrossEntropy,
  repeatHeads,
  rmsNorm,
  silu,
  swiglu,
  tokenEntropy,
  tokenLogProbs,
} from './nn';
export { grad, gradientRules } from './autodiff';
export type { GradContext, GradRule } from './autodiff';
export { OPSET, serialize } from './serialize';
export type { DimBindings, SerializedModel } from './serialize';
export { CompiledGraph, Runtime, RuntimeConfigSchema } from './runtime';
export type { Feed, HostTensor, RunResult, RuntimeConfig } from './runtime';
export {
  AdamW,
  adamWStateFromTensors,
  adamWStateToTensors,
  clipGradNorm,
  constantLr,
  globalGradNorm,
  warmupCosine,
  warmupLinear,
} from './optim';
export type { AdamWOptions, AdamWState, AdamWStepInfo, LrSchedule, WarmupDecayOptions } from './optim';
