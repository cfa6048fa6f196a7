/** Compiles graphs into cached onnxruntime-node sessions and runs them on typed arrays. */
import { availableParallelism } from 'node:os';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { type HostArray, checkHostArray, ortType } from './dtype';
import { TensorError } from './errors';
import type { Graph, Tensor } from './graph';
import { type DimBindings, requiredInputs, serialize } from './serialize';
import { normDim } from './shape';

/** Runtime settings. Unknown keys are rejected. */
export const RuntimeConfigSchema = z
  .object({
    /** 'cpu' everywhere; 'cuda' on GPU nodes (needs an onnxruntime-node build with the CUDA provider). */
    executionProvider: z.enum(['cpu', 'cuda']).default('cpu'),
    /** CUDA device ordinal. */
    deviceId: z.number().int().min(0).default(0),
    /**
     * Threads inside one op; default one per core this process may use (`os.availableParallelism()`). 0 leaves the
     * choice to onnxruntime, which on the 2-core machine ran a train step 1.75× slower than two threads
     * (experiments/services/JOURNAL.md, issue 18).
     */
    intraOpThreads: z
      .number()
      .int()
      .min(0)
      .default(() => availableParallelism()),
    /** Threads across independent ops (only used when > 1, which switches to parallel execution). */
    interOpThreads: z.number().int().min(0).default(1),
    graphOptimizationLevel: z.enum(['disabled', 'basic', 'extended', 'all']).default('all'),
    /**
     * Let idle pool threads spin between runs (onnxruntime's own default). Off here: measured on the 2-core
     * machine, spinning burns more than a core while the caller prepares the next step, which on a machine shared
     * with rollout workers and sandboxes costs more than the wake-up latency it saves.
     */
    spinWait: z.boolean().default(false),
    /**
     * Compile one session per binding of named dims (shape signature) with those dims made concrete, so onnxruntime
     * folds shape arithmetic; false compiles a single session that takes any shape.
     */
    specializeShapes: z.boolean().default(true),
    /**
     * onnxruntime's memory pattern: plan a run's intermediates from the previous run and allocate them as one block.
     * Off here: on top of the arena it nearly doubles a train step's peak memory (B=8, T=512: 1,722 against 989 MB;
     * T=1,024: 3,937 against 2,116) at the same step time (experiments/services/JOURNAL.md, issue 18).
     */
    memPattern: z.boolean().default(false),
    /** Sessions kept per compiled graph; the least recently used one is released beyond this. */
    maxSessions: z.number().int().positive().default(8),
  })
  .strict();

export type RuntimeConfig = z.input<typeof RuntimeConfigSchema>;
type ResolvedConfig = z.output<typeof RuntimeConfigSchema>;

/** A host tensor: data in the dtype's typed array, row-major, with concrete dims. */
export interface HostTensor<A extends HostArray = HostArray> {
  readonly data: A;
  readonly dims: readonly number[];
}

/** What `run` accepts per input: a typed array (dims taken from the declared shape) or data with explicit dims. */
export type Feed = HostArray | HostTensor;

/** Output key → host tensor. Float outputs are Float32Array, int64 BigInt64Array, and so on. */
export type RunResult<K extends string = string> = Record<K, HostTensor>;

/**
 * Owns session options and compiles graphs. Create one per process (or per device) and reuse it.
 */
export class Runtime {
  readonly config: ResolvedConfig;

  constructor(config: RuntimeConfig = {}) {
    const parsed = RuntimeConfigSchema.safeParse(config);
    if (!parsed.success) throw new TensorError('INVALID_GRAPH', `runtime config: ${parsed.error.message}`);
    this.config = parsed.data;
  }

  /** onnxruntime session options derived from the config. */
  sessionOptions(): ort.InferenceSession.SessionOptions {
    const c = this.config;
    return {
      executionProviders: c.executionProvider === 'cuda' ? [{ name: 'cuda', deviceId: c.deviceId }] : ['cpu'],
      intraOpNumThreads: c.intraOpThreads,
      interOpNumThreads: c.interOpThreads,
      executionMode: c.interOpThreads > 1 ? 'parallel' : 'sequential',
      graphOptimizationLevel: c.graphOptimizationLevel,
      enableMemPattern: c.memPattern,
      extra: {
        session: {
          intra_op: { allow_spinning: c.spinWait ? '1' : '0' },
          inter_op: { allow_spinning: c.spinWait ? '1' : '0' },
        },
      },
    };
  }

  /**
   * Prepares `outputs` (key → tensor of `graph`) for running. Nothing is serialised until the first `run`; each new
   * shape signature then compiles once and its session is cached. Later changes to the graph do not affect it.
   */
  compile<K extends string>(graph: Graph, outputs: Readonly<Record<K, Tensor>>): CompiledGraph<K> {
    return new CompiledGraph(this, graph, { ...outputs });
  }
}

interface CachedSession {
  session: Promise<ort.InferenceSession>;
  outputNames: Readonly<Record<string, string>>;
}

/** A set of outputs of a graph, runnable on typed arrays; holds one cached session per shape signature. */
export class CompiledGraph<K extends string = string> {
  /** Graph inputs that the outputs depend on: exactly the feeds `run` needs. */
  readonly inputs: readonly Tensor[];
  private readonly sessions = new Map<string, CachedSession>();
  /** Per input, per axis: the canonical name of a named dim, or null for a static one. */
  private readonly dimKeys: readonly (readonly (string | null)[])[];
  /** Every named dim of the inputs, sorted: the shape signature lists their sizes in this order. */
  private readonly signatureDims: readonly string[];

  constructor(
    private readonly runtime: Runtime,
    private readonly graph: Graph,
    private readonly outputs: Readonly<Record<K, Tensor>>,
  ) {
    for (const t of Object.values<Tensor>(outputs))
      if (t.graph !== graph) throw new TensorError('INVALID_GRAPH', `output '${t.name}' belongs to another graph`);
    this.inputs = requiredInputs(graph, Object.values(outputs));
    this.dimKeys = this.inputs.map((t) => t.shape.map((d) => (typeof d === 'number' ? null : String(normDim(d)))));
    this.signatureDims = [...new Set(this.dimKeys.flat().filter((k) => k !== null))].sort();
  }

  /** Number of sessions currently cached (one per shape signature seen, up to `maxSessions`). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The ONNX model bytes for a shape signature (for inspection or saving with a `.onnx` extension). */
  modelBytes(bindings?: DimBindings): Uint8Array {
    return this.serialize(bindings).bytes;
  }

  /**
   * Runs the graph. Inputs are passed zero-copy; outputs are copied out of onnxruntime, so return only what is
   * needed (e.g. loss and gradients, not activations). Rejects with INVALID_FEED on a missing or malformed feed.
   */
  async run(feeds: Readonly<Record<string, Feed>>): Promise<RunResult<K>> {
    const { bindings, tensors } = this.prepareFeeds(feeds);
    const key = this.runtime.config.specializeShapes
      ? this.signatureDims.map((k) => `${k}=${bindings[k]}`).join(',')
      : '*';
    const cached = this.session(key, bindings);
    let raw: ort.InferenceSession.OnnxValueMapType;
    try {
      raw = await (await cached.session).run(tensors);
    } catch (cause) {
      throw new TensorError(
        'RUNTIME_FAILURE',
        `running '${this.graph.name}' [${key}]: ${String(cause)}`,
        {},
        { cause },
      );
    }
    const result = {} as Record<K, HostTensor>;
    for (const k of Object.keys(this.outputs) as K[]) {
      const t = raw[cached.outputNames[k]] as ort.Tensor;
      result[k] = { data: t.data as HostArray, dims: t.dims };
    }
    return result;
  }

  /** Releases every cached session. */
  async release(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map(async (c) => (await c.session.catch(() => null))?.release()));
  }

  private serialize(bindings?: DimBindings) {
    return serialize(this.graph, this.outputs, bindings);
  }

  private session(key: string, bindings: DimBindings): CachedSession {
    const hit = this.sessions.get(key);
    if (hit) {
      this.sessions.delete(key);
      this.sessions.set(key, hit);
      return hit;
    }
    const model = this.serialize(this.runtime.config.specializeShapes ? bindings : undefined);
    const session = ort.InferenceSession.create(model.bytes, this.runtime.sessionOptions()).catch((cause: unknown) => {
      this.sessions.delete(key);
      throw new TensorError(
        'RUNTIME_FAILURE',
        `compiling '${this.graph.name}' [${key}]: ${String(cause)}`,
        {},
        { cause },
      );
    });
    const entry = { session, outputNames: model.outputNames };
    this.sessions.set(key, entry);
    if (this.sessions.size > this.runtime.config.maxSessions) {
      const [oldestKey, oldest] = this.sessions.entries().next().value!;
      this.sessions.delete(oldestKey);
      void oldest.session.then((s) => s.release()).catch(() => undefined);
    }
    return entry;
  }

  /** Binds named dims from the feeds, checks every feed, and wraps it as an ort.Tensor (no copy). */
  private prepareFeeds(feeds: Readonly<Record<string, Feed>>) {
    const bindings: Record<string, number> = {};
    const bind = (input: Tensor, keys: readonly (string | null)[], dims: readonly number[]) => {
      if (dims.length !== input.rank)
        throw new TensorError('INVALID_FEED', `'${input.name}' has dims [${dims}], declared ${input}`);
      for (let i = 0; i < dims.length; i++) {
        const key = keys[i];
        const known = key === null ? (input.shape[i] as number) : bindings[key];
        if (known !== undefined && known !== dims[i])
          throw new TensorError(
            'INVALID_FEED',
            `'${input.name}' dim ${i} is ${dims[i]}, expected ${input.shape[i]}=${known}`,
          );
        if (key !== null) bindings[key] = dims[i];
      }
    };
    const { inputs, dimKeys } = this;
    for (let k = 0; k < inputs.length; k++) {
      const feed = feeds[inputs[k].name];
      if (feed === undefined) throw new TensorError('INVALID_FEED', `missing feed '${inputs[k].name}' (${inputs[k]})`);
      if ('dims' in feed) bind(inputs[k], dimKeys[k], feed.dims);
    }
    const tensors: Record<string, ort.Tensor> = {};
    for (let k = 0; k < inputs.length; k++) {
      const input = inputs[k];
      const feed = feeds[input.name];
      let data: HostArray;
      let dims: readonly number[];
      if ('dims' in feed) ({ data, dims } = feed);
      else {
        data = feed;
        dims = this.inferDims(input, dimKeys[k], data, bindings);
        bind(input, dimKeys[k], dims);
      }
      checkHostArray(input.name, input.dtype, data);
      let size = 1;
      for (const d of dims) size *= d;
      if (data.length !== size)
        throw new TensorError('INVALID_FEED', `'${input.name}' has ${data.length} values for dims [${dims}]`);
      tensors[input.name] = new ort.Tensor(ortType[input.dtype], data, dims);
    }
    return { bindings, tensors };
  }

  /** Dims of a bare typed array: declared sizes, bound names, and at most one name inferred from the length. */
  private inferDims(
    input: Tensor,
    keys: readonly (string | null)[],
    data: HostArray,
    bindings: Record<string, number>,
  ): number[] {
    const dims = input.shape.map((d, i) => (typeof d === 'number' ? d : bindings[keys[i] as string]));
    const unknown = dims.flatMap((d, i) => (d === undefined ? [i] : []));
    if (unknown.length === 1) {
      const rest = dims.reduce((a: number, b) => a * (b ?? 1), 1);
      dims[unknown[0]] = rest === 0 ? 0 : data.length / rest;
    } else if (unknown.length > 1)
      throw new TensorError('INVALID_FEED', `'${input.name}' (${input}) needs explicit dims: { data, dims }`);
    return dims as number[];
  }
}
