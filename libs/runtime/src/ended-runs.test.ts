import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@fathom/observability';
import type { RunStatus } from '@fathom/persistence';
import { BullMqTransport, JobProducer } from '@fathom/queue';
import { deleteQueuePrefix, waitFor } from '@fathom/queue/testing';
import { EndedRuns } from './ended-runs';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const logger = createLogger({ service: 'test', level: 'silent' });

/** A test double of `RunRepository.endedStatus`: statuses set by the test, every read counted. */
class CountingStatuses {
  readonly statuses = new Map<string, RunStatus>();
  reads = 0;
  /** When set, a read waits for this before answering (to land an announcement mid-read). */
  gate: Promise<void> | null = null;

  async endedStatus(runId: string): Promise<RunStatus | null> {
    this.reads++;
    const status = this.statuses.get(runId) ?? null;
    await this.gate;
    return status;
  }
}

describe('EndedRuns on the machine’s Redis', () => {
  let prefix: string;
  let transport: BullMqTransport;
  let producer: JobProducer;
  let source: CountingStatuses;
  let clock: number;
  let ended: EndedRuns;

  beforeEach(async () => {
    prefix = `fathom-test-${process.pid}-${randomUUID().slice(0, 8)}`;
    transport = new BullMqTransport({ redisUrl, prefix });
    producer = new JobProducer(transport);
    source = new CountingStatuses();
    clock = 0;
    ended = new EndedRuns({ source, transport, logger, recheckMs: 30_000, now: () => clock });
    await ended.listen();
  });

  afterEach(async () => {
    await ended.close();
    await transport.close();
    await deleteQueuePrefix(prefix, redisUrl);
  });

  it('reads a live run once, then answers from memory until recheckMs has passed', async () => {
    expect(await ended.endedStatus('run-a')).toBeNull();
    expect(await ended.endedStatus('run-a')).toBeNull();
    clock += 29_999;
    expect(await ended.endedStatus('run-a')).toBeNull();
    expect(source.reads).toBe(1);
    clock += 1;
    source.statuses.set('run-a', 'stopped');
    expect(await ended.endedStatus('run-a')).toBe('stopped');
    expect(source.reads).toBe(2);
  });

  it('reads an ended run every time, so a resumed run is live again at once', async () => {
    source.statuses.set('run-a', 'failed');
    expect(await ended.endedStatus('run-a')).toBe('failed');
    source.statuses.delete('run-a');
    expect(await ended.endedStatus('run-a')).toBeNull();
    expect(source.reads).toBe(2);
  });

  it('forgets a run when its end or its stop is announced, and only that run', async () => {
    expect(await ended.endedStatus('run-a')).toBeNull();
    expect(await ended.endedStatus('run-b')).toBeNull();
    source.statuses.set('run-a', 'completed');
    await producer.publish('run.ended', { runId: 'run-a', status: 'completed' });
    await waitFor(async () => (await ended.endedStatus('run-a')) === 'completed');
    expect(await ended.endedStatus('run-b')).toBeNull();
    expect(source.reads).toBe(3);

    expect(await ended.endedStatus('run-c')).toBeNull();
    source.statuses.set('run-c', 'stopped');
    await producer.publish('run.stopping', { runId: 'run-c' });
    await waitFor(async () => (await ended.endedStatus('run-c')) === 'stopped');
  });

  it('does not remember a read that an announcement overtook', async () => {
    const seen: unknown[] = [];
    const unsubscribe = await transport.subscribe('run.ended', (m) => seen.push(m));
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    // The read starts while the run is live; the run ends and is announced before the read answers.
    const read = ended.endedStatus('run-a');
    await waitFor(() => source.reads === 1);
    await producer.publish('run.ended', { runId: 'run-a', status: 'stopped' });
    await waitFor(() => seen.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.gate = null;
    open();
    expect(await read).toBeNull();
    source.statuses.set('run-a', 'stopped');
    expect(await ended.endedStatus('run-a')).toBe('stopped');
    expect(source.reads).toBe(2);
    await unsubscribe();
  });

  it('forgets every run when its subscriptions come back after a lost connection', async () => {
    expect(await ended.endedStatus('run-a')).toBeNull();
    const admin = new Redis(redisUrl);
    try {
      const clients = String(await admin.client('LIST'))
        .split('\n')
        .filter((line) => line.includes(` name=fathom:${prefix}:subscriber `));
      expect(clients).toHaveLength(2);
      for (const line of clients) await admin.client('KILL', 'ID', /\bid=(\d+)/.exec(line)![1]!);
      source.statuses.set('run-a', 'stopped');
      await waitFor(async () => (await ended.endedStatus('run-a')) === 'stopped');
    } finally {
      admin.disconnect();
    }
  });

  it('reads every time before it listens', async () => {
    const unlistened = new EndedRuns({ source, transport, logger, now: () => clock });
    await unlistened.endedStatus('run-a');
    await unlistened.endedStatus('run-a');
    expect(source.reads).toBe(2);
  });
});
