import type { PolicyVersion, PrismaClient } from './generated/client';

export type { PolicyVersion };

/** Policy versions of a run, keyed by (runId, version); recording one twice keeps the first. */
export class PolicyVersionRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async record(version: { runId: string; version: number; step: number; checkpointPath?: string }): Promise<void> {
    await this.prisma.policyVersion.createMany({ data: [version], skipDuplicates: true });
  }

  latest(runId: string): Promise<PolicyVersion | null> {
    return this.prisma.policyVersion.findFirst({ where: { runId }, orderBy: { version: 'desc' } });
  }

  list(runId: string): Promise<PolicyVersion[]> {
    return this.prisma.policyVersion.findMany({ where: { runId }, orderBy: { version: 'asc' } });
  }
}
