import { AdminError } from '../errors';
import { withDeadline } from './dependencies';

export type DependencyState = 'up' | 'down';

export interface HealthReport {
  status: 'healthy' | 'degraded';
  database: DependencyState;
  redis: DependencyState;
}

/** /health: the service answers, and says whether Postgres and Redis do. */
export class HealthService {
  constructor(
    private readonly pingDatabase: () => Promise<unknown>,
    private readonly pingRedis: () => Promise<unknown>,
    private readonly timeoutMs: number,
  ) {}

  async check(): Promise<HealthReport> {
    const probe = (what: string, ping: () => Promise<unknown>) =>
      withDeadline(what, this.timeoutMs, ping).then(
        (): DependencyState => 'up',
        (error: unknown): DependencyState => {
          if (error instanceof AdminError && error.code === 'DEPENDENCY_UNAVAILABLE') return 'down';
          throw error;
        },
      );
    const [database, redis] = await Promise.all([probe('Postgres', this.pingDatabase), probe('Redis', this.pingRedis)]);
    return { status: database === 'up' && redis === 'up' ? 'healthy' : 'degraded', database, redis };
  }
}
