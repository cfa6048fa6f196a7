import { describe, expect, it } from 'vitest';
import { MAX_QUEUED_REQUESTS, SessionSlot } from '../episode/episode';
import type { EpisodeService } from '../episode/episode.service';
import { EnvSession } from './env-session';

/** Test double of the episode service: only the capacity slot a session takes when it opens. */
const slotsOnlyDouble = { acquireSlot: () => new SessionSlot() } as unknown as EpisodeService;

describe('EnvSession', () => {
  it('pauses its transport while MAX_QUEUED_REQUESTS requests are unanswered, and resumes it as they are answered', async () => {
    const flow: string[] = [];
    const session = EnvSession.open(slotsOnlyDouble, 'ws', null, {
      pause: () => flow.push('pause'),
      resume: () => flow.push('resume'),
    });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const answered: number[] = [];
    for (let i = 0; i < MAX_QUEUED_REQUESTS + 8; i++) {
      session.enqueue(async () => {
        await gate;
        answered.push(i);
      });
      expect(flow).toEqual(i + 1 < MAX_QUEUED_REQUESTS ? [] : ['pause']);
    }
    open();
    await expect.poll(() => session.pending).toBe(0);
    expect(flow).toEqual(['pause', 'resume']);
    expect(answered).toEqual(Array.from({ length: MAX_QUEUED_REQUESTS + 8 }, (_, i) => i));
  });
});
