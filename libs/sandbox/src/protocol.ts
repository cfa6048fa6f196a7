import type { StepError } from './errors';
import type { SandboxLimits } from './limits';
import type { LlmRequest, LlmResponse, StepResult } from './types';

/** The result of a step that could not run because its episode has ended (or was never open in the worker). */
export function endedResult(error: StepError): StepResult {
  return {
    stdout: '',
    truncatedChars: 0,
    error,
    variables: [],
    cpuMs: 0,
    wallMs: 0,
    llmCalls: [],
    alive: false,
    answer: null,
  };
}

/** Messages between the pool (supervisor) and one worker process, over IPC with `serialization: 'advanced'`. */
export type ToWorker =
  | {
      type: 'open';
      rid: number;
      episodeId: string;
      /** Absent when `ctxKey` names a document the worker already holds (see DocCache). */
      ctx?: string;
      ctxKey?: string;
      question: string;
      depth: number;
      limits: SandboxLimits;
    }
  | { type: 'run'; rid: number; episodeId: string; code: string; wallMs?: number }
  | { type: 'close'; rid: number; episodeId: string }
  | { type: 'llm_reply'; callId: number; ok: true; response: LlmResponse }
  | { type: 'llm_reply'; callId: number; ok: false; message: string };

export type FromWorker =
  | { type: 'ready'; warm: number }
  | { type: 'warm'; warm: number }
  | { type: 'opened'; rid: number; warm: number }
  | { type: 'open_failed'; rid: number; message: string; warm: number }
  | { type: 'step'; rid: number; result: StepResult }
  | { type: 'closed'; rid: number }
  | { type: 'llm'; callId: number; request: LlmRequest };
