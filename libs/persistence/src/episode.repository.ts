import type { Episode, Prisma, PrismaClient } from './generated/client';
import { assertFinite } from './finite';
import { withoutNul } from './text';

/** Each reward component's value by name, as the run's reward config composed them. */
export type RewardComponentValues = Record<string, number>;

/** A stored episode, its reward components typed. */
export type StoredEpisode = Omit<Episode, 'rewardComponents'> & { rewardComponents: RewardComponentValues };

export type EpisodeRecord = Omit<Prisma.EpisodeCreateManyInput, 'id' | 'createdAt' | 'rewardComponents'> & {
  rewardComponents: RewardComponentValues;
  transcript: Prisma.InputJsonValue;
  recursionTree: Prisma.InputJsonValue;
};

export interface EpisodeFilter {
  step?: number;
  taskType?: string;
  minReward?: number;
  maxReward?: number;
  minContextTokens?: number;
  maxContextTokens?: number;
}

/** The columns of an episode list: everything but the (large) transcript and recursion tree. */
const SUMMARY = {
  id: true,
  runId: true,
  step: true,
  groupId: true,
  sampleIndex: true,
  taskId: true,
  taskType: true,
  contextTokens: true,
  policyVersion: true,
  status: true,
  reward: true,
  rewardComponents: true,
  llmCalls: true,
  tokens: true,
  turns: true,
  answer: true,
  goldAnswer: true,
} as const;

/** The reward components of a row as written by `recordMany`: a JSON object of finite numbers. */
function withComponents<T extends { rewardComponents: Prisma.JsonValue }>(
  row: T,
): Omit<T, 'rewardComponents'> & { rewardComponents: RewardComponentValues } {
  return { ...row, rewardComponents: row.rewardComponents as RewardComponentValues };
}

/** Scored episodes, keyed by (runId, step, groupId, sampleIndex): a re-delivered group inserts nothing. */
export class EpisodeRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Inserts the episodes not yet stored; returns how many were new. NUL characters are stored as U+FFFD. */
  async recordMany(episodes: readonly EpisodeRecord[]): Promise<number> {
    for (const e of episodes) {
      const what = `episode ${e.runId}:${e.step}:${e.groupId}:${e.sampleIndex}`;
      assertFinite(e, ['reward'], what);
      assertFinite(e.rewardComponents, Object.keys(e.rewardComponents), `${what}, reward component`);
    }
    const { count } = await this.prisma.episode.createMany({ data: episodes.map(withoutNul), skipDuplicates: true });
    return count;
  }

  /** A page of episode summaries, newest step first; pass the returned cursor to get the next page. */
  async list(runId: string, filter: EpisodeFilter = {}, page: { limit?: number; cursor?: bigint } = {}) {
    const limit = Math.min(page.limit ?? 50, 500);
    const where: Prisma.EpisodeWhereInput = {
      runId,
      step: filter.step,
      taskType: filter.taskType,
      reward: { gte: filter.minReward, lte: filter.maxReward },
      contextTokens: { gte: filter.minContextTokens, lte: filter.maxContextTokens },
      id: page.cursor === undefined ? undefined : { lt: page.cursor },
    };
    const items = await this.prisma.episode.findMany({
      where,
      select: SUMMARY,
      orderBy: { id: 'desc' },
      take: limit + 1,
    });
    const hasMore = items.length > limit;
    const pageItems = hasMore ? items.slice(0, limit) : items;
    return {
      items: pageItems.map(withComponents),
      nextCursor: hasMore ? pageItems[pageItems.length - 1].id : null,
    };
  }

  async get(id: bigint): Promise<StoredEpisode | null> {
    const row = await this.prisma.episode.findUnique({ where: { id } });
    return row === null ? null : withComponents(row);
  }
}
