import { SftReaderExampleSchema, type SftReaderExample } from '@fathom/contracts';
import { generateReaderExamples, type ReaderExampleOptions } from '@fathom/tasks';
import { DEFAULT_READER_WINDOW_CHARS, planSubcall } from '../subcall';
import { TeacherError } from './errors';
import { SUBCALL_UNKNOWN } from './oracle';

/**
 * `generateReaderExamples`' options (the shares of evidence-only, key-sentence, "unknown", copy-drill and
 * invented-frame examples), with the chunk limit given as the reader window.
 */
export type ReaderCurriculumOptions = Omit<ReaderExampleOptions, 'maxChunkChars' | 'seed'> & {
  seed: number;
  /** Largest chunk; every example must be a leaf call under it. Default DEFAULT_READER_WINDOW_CHARS. */
  readerWindowChars?: number;
};

/**
 * The reader curriculum: `n` leaf sub-call examples from the task generator's own frames (`generateReaderExamples`
 * of `@fathom/tasks`: varied sub-question phrasings, distractor sentences in the chunk, open-vocabulary values,
 * "unknown" when the chunk lacks the evidence). Each is checked against the schema and against the one meaning of
 * `llm()`: a chunk above the reader window would be a child episode, never a leaf (OVERSIZED_SUBCALL).
 */
export function* buildReaderExamples(options: ReaderCurriculumOptions): Generator<SftReaderExample> {
  const { readerWindowChars: window = DEFAULT_READER_WINDOW_CHARS, ...shares } = options;
  for (const raw of generateReaderExamples({ ...shares, maxChunkChars: window })) {
    const example = SftReaderExampleSchema.parse(raw);
    if (planSubcall(example.chunk.length, window) !== 'leaf')
      throw new TeacherError(
        'OVERSIZED_SUBCALL',
        `reader example chunk of ${example.chunk.length} characters exceeds the ${window}-character reader window`,
      );
    yield example;
  }
}

/** Counts of a reader curriculum, per type and family, with the share answered "unknown". */
export interface ReaderCurriculumStats {
  examples: number;
  unknown: number;
  maxChunkChars: number;
  byType: Record<string, number>;
  byFamily: Record<string, number>;
}

export function readerCurriculumStats(examples: Iterable<SftReaderExample>): ReaderCurriculumStats {
  const stats: ReaderCurriculumStats = { examples: 0, unknown: 0, maxChunkChars: 0, byType: {}, byFamily: {} };
  for (const e of examples) {
    stats.examples++;
    if (e.answer === SUBCALL_UNKNOWN) stats.unknown++;
    stats.maxChunkChars = Math.max(stats.maxChunkChars, e.chunk.length);
    stats.byType[e.type] = (stats.byType[e.type] ?? 0) + 1;
    stats.byFamily[e.family] = (stats.byFamily[e.family] ?? 0) + 1;
  }
  return stats;
}
