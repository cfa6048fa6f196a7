import type { SftExample, TaskType } from '@fathom/contracts';
import type { SftSkip } from './episode';
import { findStrategy } from './strategies';

export interface SftGroupStats {
  examples: number;
  correct: number;
  accuracy: number;
  meanTurns: number;
  /** Mean `llm()` calls per example. */
  meanLlmCalls: number;
  /** Examples that open with a broken cell and its error (repair turns). */
  repairs: number;
  /** Longest code block, in characters. */
  maxCodeChars: number;
  /** Longest observation, in characters. */
  maxObservationChars: number;
}

export interface SftStrategyStats extends SftGroupStats {
  strategy: string;
  type: TaskType;
  robust: boolean;
  usesLlm: boolean;
}

export interface SftStats {
  overall: SftGroupStats;
  byType: Partial<Record<TaskType, SftGroupStats>>;
  /** Strategies with at least one example, in name order. */
  byStrategy: SftStrategyStats[];
  /** Examples by robust (true) and naive (false) strategies. */
  robust: SftGroupStats;
  naive: SftGroupStats;
  skipped: Partial<Record<SftSkip['reason'], number>>;
}

class Group {
  examples = 0;
  correct = 0;
  turns = 0;
  llmCalls = 0;
  repairs = 0;
  maxCodeChars = 0;
  maxObservationChars = 0;

  add(example: SftExample): void {
    this.examples++;
    if (example.correct) this.correct++;
    this.turns += example.turns.length;
    this.llmCalls += example.subcalls.length;
    if (example.repair !== undefined) this.repairs++;
    for (const turn of example.turns) {
      const code = /^```js\n([\s\S]*)\n```$/.exec(turn.completion);
      if (code) this.maxCodeChars = Math.max(this.maxCodeChars, code[1].length);
      if (turn.observation !== undefined)
        this.maxObservationChars = Math.max(this.maxObservationChars, turn.observation.length);
    }
  }

  result(): SftGroupStats {
    const per = (n: number): number => (this.examples === 0 ? 0 : n / this.examples);
    return {
      examples: this.examples,
      correct: this.correct,
      accuracy: per(this.correct),
      meanTurns: per(this.turns),
      meanLlmCalls: per(this.llmCalls),
      repairs: this.repairs,
      maxCodeChars: this.maxCodeChars,
      maxObservationChars: this.maxObservationChars,
    };
  }
}

/** Streaming accuracy and shape statistics of teacher examples: per strategy, per type, robust vs naive. */
export class SftStatsAccumulator {
  private readonly overall = new Group();
  private readonly types = new Map<TaskType, Group>();
  private readonly strategies = new Map<string, Group>();
  private readonly robust = new Group();
  private readonly naive = new Group();
  private readonly skipped: Partial<Record<SftSkip['reason'], number>> = {};
  private readonly meta = new Map<string, Pick<SftStrategyStats, 'type' | 'robust'>>();

  add(example: SftExample): void {
    this.overall.add(example);
    (example.robust ? this.robust : this.naive).add(example);
    const group = <K>(map: Map<K, Group>, key: K): Group => {
      let g = map.get(key);
      if (g === undefined) map.set(key, (g = new Group()));
      return g;
    };
    group(this.types, example.type).add(example);
    group(this.strategies, example.strategy).add(example);
    this.meta.set(example.strategy, { type: example.type, robust: example.robust });
  }

  skip(skip: SftSkip): void {
    this.skipped[skip.reason] = (this.skipped[skip.reason] ?? 0) + 1;
  }

  result(): SftStats {
    const byType: Partial<Record<TaskType, SftGroupStats>> = {};
    for (const [type, g] of this.types) byType[type] = g.result();
    const byStrategy = [...this.strategies.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, g]): SftStrategyStats => {
        const meta = this.meta.get(name) as Pick<SftStrategyStats, 'type' | 'robust'>;
        return { strategy: name, ...meta, usesLlm: findStrategy(name)?.usesLlm ?? false, ...g.result() };
      });
    return {
      overall: this.overall.result(),
      byType,
      byStrategy,
      robust: this.robust.result(),
      naive: this.naive.result(),
      skipped: { ...this.skipped },
    };
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

function row(name: string, kind: string, g: SftGroupStats): string {
  return `| ${name} | ${kind} | ${g.examples} | ${pct(g.accuracy)} | ${g.meanTurns.toFixed(2)} | ${g.meanLlmCalls.toFixed(2)} | ${g.repairs} | ${g.maxCodeChars} | ${g.maxObservationChars} |`;
}

/** The statistics as a Markdown table: one row per strategy, then per type, robust/naive and overall. */
export function formatSftStats(stats: SftStats): string {
  const lines = [
    '| strategy / group | kind | examples | accuracy | turns | llm() calls | repairs | max code chars | max observation chars |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...stats.byStrategy.map((s) => row(s.strategy, `${s.robust ? 'robust' : 'naive'}${s.usesLlm ? ', llm' : ''}`, s)),
    ...Object.entries(stats.byType).map(([type, g]) => row(`**${type}**`, 'type', g)),
    row('**robust strategies**', 'group', stats.robust),
    row('**naive strategies**', 'group', stats.naive),
    row('**all**', 'overall', stats.overall),
  ];
  const skipped = Object.entries(stats.skipped);
  if (skipped.length > 0) lines.push('', `skipped: ${skipped.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  return lines.join('\n');
}
