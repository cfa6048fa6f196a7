import { availableParallelism } from 'node:os';
import { Option } from 'commander';

/** `--threads N`: onnxruntime intra-op threads, by default the runtime's own default (one per core). */
export const threadsOption = () =>
  new Option('--threads <n>', "onnxruntime intra-op threads (0 = onnxruntime's own choice)")
    .argParser(Number)
    .default(availableParallelism());
