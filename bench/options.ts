import { availableParallelism } from 'node:os';
import { InvalidArgumentError, Option } from 'commander';

/** `--threads N`: onnxruntime intra-op threads, by default the runtime's own default (one per core). */
export const threadsOption = () =>
  new Option('--threads <n>', "onnxruntime intra-op threads (0 = onnxruntime's own choice)")
    .argParser(Number)
    .default(availableParallelism());

/** `--lengths 128,512`: sequence lengths to measure, each a positive integer (anything else is refused by name). */
export const lengthsOption = (description: string, lengths: number[]) =>
  new Option('--lengths <list>', description)
    .argParser((value: string) =>
      value.split(',').map((item) => {
        const n = Number(item);
        if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${item}" is not a positive integer length`);
        return n;
      }),
    )
    .default(lengths);
