import { counter, gauge, histogram, LATENCY_BUCKETS_S, metricsClass } from '@fathom/observability';
import { QUEUE_NAMES, type QueueName } from '@fathom/contracts';
import { queueStats } from './stats';
import type { JobTransport } from './transport';

/**
 * How a delivery ended, as counted by fathom_queue_jobs_processed_total; `outage_wait` counts each wait of a
 * handler for unreachable infrastructure within one attempt.
 */
export type JobOutcome = 'completed' | 'retrying' | 'dead_lettered' | 'outage_wait';

/** Buckets for job latency: jobs run from milliseconds (learn bookkeeping) to minutes (a group of rollouts). */
const JOB_SECONDS_BUCKETS = [...LATENCY_BUCKETS_S, 30, 60, 120, 300, 600];

/** Which queues a service's queue metrics report, and how long a scrape waits for their counts. */
export interface QueueMetricsOptions {
  /** The queues whose counts are reported (default: all). */
  queues?: readonly QueueName[];
  /** How long a scrape waits for the counts (default 2000); a scrape never hangs on an unreachable Redis. */
  timeoutMs?: number;
}

/**
 * Queue metrics on a service's registry: job counts per queue and state (read from the transport at each
 * scrape, dead-letter depth included) and, for consumers, processed jobs by outcome and job latency.
 */
export class QueueMetrics extends metricsClass(
  (transport: JobTransport, { queues = QUEUE_NAMES, timeoutMs = 2000 }: QueueMetricsOptions = {}) => ({
    jobs: gauge('queue_jobs', "Jobs per queue and state (dead_lettered: jobs in the queue's dead-letter queue)", {
      labelNames: ['queue', 'state'],
      async collect() {
        let all;
        let timer: NodeJS.Timeout | undefined;
        try {
          all = await Promise.race([
            queueStats(transport, queues),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('queue counts timed out')), timeoutMs);
            }),
          ]);
        } catch {
          // Redis unreachable: report no series rather than stale counts (and never fail the whole scrape).
          this.reset();
          return;
        } finally {
          clearTimeout(timer);
        }
        for (const stats of all) {
          for (const state of ['waiting', 'active', 'delayed', 'completed', 'failed', 'deadLettered'] as const) {
            this.set({ queue: stats.queue, state: state === 'deadLettered' ? 'dead_lettered' : state }, stats[state]);
          }
        }
      },
    }),
    processed: counter('queue_jobs_processed_total', 'Job deliveries handled by this process, by outcome', {
      labelNames: ['queue', 'name', 'outcome'],
    }),
    jobSeconds: histogram(
      'queue_job_seconds',
      'Time from a delivery start to its end (success or failure), by job name',
      {
        labelNames: ['queue', 'name'],
        buckets: JOB_SECONDS_BUCKETS,
      },
    ),
  }),
) {}
