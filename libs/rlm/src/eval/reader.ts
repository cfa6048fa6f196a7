import type { SftReaderExample } from '@fathom/contracts';
import { isCorrect } from '@fathom/rewards';
import type { SandboxPool } from '@fathom/sandbox';
import { EpisodeRunner } from '../episode/episode.runner';
import type { Policy } from '../episode/policy';

/** Accuracy of leaf reads over one slice of the reader examples. */
export interface ReaderStats {
  n: number;
  correct: number;
  accuracy: number;
}

/** Reads of chunks holding one kind of distractor. */
export interface DistractorStats extends ReaderStats {
  /** Wrong reads that are a span of a sentence of this kind in the chunk: the reader took the distractor's value. */
  fromDistractor: number;
}

export interface ReaderEvalReport {
  mode: 'greedy' | 'sampled';
  seed: number;
  overall: ReaderStats;
  /** Examples whose gold is "unknown" (the chunk does not state the fact) and the rest. */
  byGold: Record<'unknown' | 'stated', ReaderStats>;
  byType: Record<string, ReaderStats>;
  byFamily: Record<string, ReaderStats>;
  /**
   * By the kinds of distractor in the chunk (the examples' `distractors`): each example counts once under every kind
   * its chunk holds, and under "none" when it holds only the evidence and filler. Empty for examples without them.
   */
  byDistractor: Record<string, DistractorStats>;
  /**
   * How close the reads of stated golds come to copying the value, right or wrong: the mean character similarity
   * (1 − Levenshtein distance / longer length) and the share whose first character is the gold's. A reader that
   * is learning to copy moves these before it gets whole values right.
   */
  copy: { charSimilarity: number; firstCharMatch: number };
  /** The first few wrong reads, for reading what the policy wrote. */
  mistakes: { question: string; chunkChars: number; answer: string; gold: string }[];
}

export interface ReaderEvalOptions {
  /** The sandbox the runner holds (a leaf read never opens an episode in it). */
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  mode?: 'greedy' | 'sampled';
  seed?: number;
  /** New tokens of one read; default the episode config's. */
  maxCompletionTokens?: number;
  /** Extractive reads (`subcalls.extractive` of the episode config): each answer is a span of its chunk or "unknown". */
  extractive?: boolean;
  onExample?: (done: number, total: number) => void;
}

const MISTAKES_KEPT = 20;

function add(stats: Record<string, ReaderStats>, key: string, correct: boolean): void {
  const s = (stats[key] ??= { n: 0, correct: 0, accuracy: 0 });
  s.n++;
  if (correct) s.correct++;
  s.accuracy = s.correct / s.n;
}

/** 1 − (Levenshtein distance / the longer length): 1 for equal strings, 0 for nothing in common. */
export function charSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return 1 - previous[b.length] / longer;
}

/**
 * Leaf-read accuracy on reader examples (`generateReaderExamples` of `@fathom/tasks`): each example is served as the
 * `llm(question, chunk)` call of an episode would be (`EpisodeRunner.serveCall`, the one meaning of `llm()`), so a
 * chunk within the reader window is a direct read by the policy, and the answer is graded by the reward's rule.
 */
export async function evaluateReader(
  policy: Policy,
  examples: readonly SftReaderExample[],
  options: ReaderEvalOptions,
): Promise<ReaderEvalReport> {
  const mode = options.mode ?? 'greedy';
  const seed = options.seed ?? 0;
  const runner = new EpisodeRunner(
    { sandbox: options.sandbox, policy },
    {
      sampling: { temperature: mode === 'greedy' ? 0 : 1 },
      subcalls: {
        extractive: options.extractive === true,
        ...(options.maxCompletionTokens !== undefined && { maxCompletionTokens: options.maxCompletionTokens }),
      },
    },
  );
  const overall: Record<string, ReaderStats> = {};
  const byGold: Record<string, ReaderStats> = {};
  const byType: Record<string, ReaderStats> = {};
  const byFamily: Record<string, ReaderStats> = {};
  const byDistractor: Record<string, DistractorStats> = {};
  const mistakes: ReaderEvalReport['mistakes'] = [];
  const copy = { similarity: 0, firstChar: 0, n: 0 };
  for (const [i, example] of examples.entries()) {
    const { response } = await runner.serveCall(
      `reader-${i}`,
      {
        prompt: example.question,
        chunk: example.chunk,
        depth: 1,
        episodeId: `reader-${i}`,
        tokenBudget: policy.maxLength,
      },
      seed + i,
    );
    const gold = { question: example.question, answer: example.answer, aliases: [], context_tokens: 0 };
    const correct = isCorrect(response.text, gold);
    add(overall, 'all', correct);
    add(byGold, example.answer === 'unknown' ? 'unknown' : 'stated', correct);
    add(byType, example.type, correct);
    add(byFamily, example.family, correct);
    const read = response.text.trim();
    if (example.distractors !== undefined) {
      const kinds = new Set(example.distractors.map((d) => d.kind));
      for (const kind of kinds.size === 0 ? ['none'] : kinds) {
        const stats = (byDistractor[kind] ??= { n: 0, correct: 0, accuracy: 0, fromDistractor: 0 });
        add(byDistractor, kind, correct);
        const inKind = example.distractors.filter((d) => d.kind === kind);
        if (!correct && read !== '' && inKind.some((d) => example.chunk.slice(d.start, d.end).includes(read)))
          stats.fromDistractor++;
      }
    }
    if (example.answer !== 'unknown') {
      copy.similarity += charSimilarity(read, example.answer);
      if (read[0] === example.answer[0]) copy.firstChar++;
      copy.n++;
    }
    if (!correct && mistakes.length < MISTAKES_KEPT)
      mistakes.push({
        question: example.question,
        chunkChars: example.chunk.length,
        answer: response.text,
        gold: example.answer,
      });
    options.onExample?.(i + 1, examples.length);
  }
  const empty = { n: 0, correct: 0, accuracy: 0 };
  return {
    mode,
    seed,
    overall: overall.all ?? empty,
    byGold: { unknown: byGold.unknown ?? empty, stated: byGold.stated ?? empty },
    byType,
    byFamily,
    byDistractor,
    copy: {
      charSimilarity: copy.n === 0 ? 0 : copy.similarity / copy.n,
      firstCharMatch: copy.n === 0 ? 0 : copy.firstChar / copy.n,
    },
    mistakes,
  };
}
