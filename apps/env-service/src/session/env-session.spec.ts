import type { SessionLlmRequest } from '@fathom/contracts';
import type { LlmHandler } from '@fathom/sandbox';
import { describe, expect, it } from 'vitest';
import { MAX_QUEUED_REQUESTS, SessionSlot } from '../episode/episode';
import type { EpisodeService } from '../episode/episode.service';
import type { EnvError } from '../errors';
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

  it('reads on past MAX_QUEUED_REQUESTS while an llm() call waits for its reply, refusing what it reads in turn', async () => {
    const flow: string[] = [];
    let llm!: LlmHandler;
    /** Test double of the episode service: a slot, and a reset that keeps the episode's llm() handler. */
    const episodes = {
      acquireSlot: () => new SessionSlot(),
      reset: async (_request: unknown, _transport: unknown, _slot: unknown, handler: LlmHandler) => {
        llm = handler;
        return { episode: { id: 'e' }, reply: {} };
      },
    } as unknown as EpisodeService;
    const sent: SessionLlmRequest[] = [];
    const session = EnvSession.open(
      episodes,
      'ws',
      { send: (request) => sent.push(request), timeoutMs: 60_000 },
      { pause: () => flow.push('pause'), resume: () => flow.push('resume') },
    );
    await session.reset({});
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const outcomes: string[] = [];
    const refuse = async (error: EnvError) => void outcomes.push(error.code);
    for (let i = 0; i < MAX_QUEUED_REQUESTS; i++)
      session.enqueue(async () => void (await gate, outcomes.push('ok')), refuse);
    expect(flow).toEqual(['pause']);
    // The running request's guest calls llm(): its reply may be behind what the client sent, so reading goes on.
    const answer = llm({ prompt: 'q', depth: 1, episodeId: 'e', tokenBudget: 10 });
    expect(flow).toEqual(['pause', 'resume']);
    for (let i = 0; i < MAX_QUEUED_REQUESTS; i++) session.enqueue(async () => void outcomes.push('held'), refuse);
    expect(flow).toEqual(['pause', 'resume', 'pause']);
    session.answerLlm({ request_id: sent[0]!.request_id, reply: { text: 'a' } });
    expect((await answer).text).toBe('a');
    open();
    await expect.poll(() => session.pending).toBe(0);
    expect(outcomes).toEqual([
      ...Array<string>(MAX_QUEUED_REQUESTS).fill('ok'),
      ...Array<string>(MAX_QUEUED_REQUESTS).fill('CAPACITY_REACHED'),
    ]);
    expect(flow).toEqual(['pause', 'resume', 'pause', 'resume']);
  });
});
