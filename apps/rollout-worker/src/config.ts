import { DEFAULT_POLICY_DIR } from '@fathom/training';
import { DEFAULT_LOCK_MS, DEFAULT_STALLED_CHECK_MS } from '@fathom/queue';
import { HostPortSchema, PortSchema, envInt, loadEnvConfig, onnxEnvShape, serviceEnvShape } from '@fathom/runtime';
import { z } from 'zod';

/**
 * The rollout worker's configuration, read once at boot from environment variables; defaults work on one machine.
 * A worker takes `rollout.group` jobs, pulls the job's policy version from the learner (POLICY_ADDRESS), runs the
 * G episodes (in its own sandbox pool, or in the OpenEnv environment at ENV_URL) and hands the trajectories to the
 * `reward` queue.
 */
export const RolloutWorkerConfigSchema = z.object({
  ...serviceEnvShape(9100),
  /** host:port of the learner-service's gRPC Policy service (weights). */
  POLICY_ADDRESS: HostPortSchema.default('127.0.0.1:50061'),
  /** Deadline of one Policy RPC (a whole weights stream included). */
  POLICY_TIMEOUT_MS: envInt(1).default(60_000),
  /**
   * rollout.group jobs this worker runs at once. Those of one run and policy version that arrive together decode as
   * one batch (every live episode of them), as the in-process loop decodes a step.
   */
  CONCURRENCY: envInt(1).default(4),
  /** Sandbox worker processes (isolated-vm) of this worker; none are started when ENV_URL is set. */
  SANDBOX_WORKERS: envInt(1).default(2),
  /**
   * WebSocket session endpoint of an OpenEnv environment whose actions are REPLEnv's (FATHOM's env-service:
   * ws://env-service:8000/ws). When set, every rollout and eval episode runs there (OpenEnvSandbox: one session per
   * episode, child episodes included), and the llm() calls of FATHOM's env-service come back to this worker,
   * answered by the policy version the job names; otherwise episodes run in this worker's own sandbox pool.
   */
  ENV_URL: z.url({ protocol: /^wss?$/, error: 'expected a ws:// or wss:// URL of an OpenEnv /ws endpoint' }).optional(),
  /** Bearer token sent to ENV_URL (the env-service's OPENENV_TOKEN); unset: none. */
  ENV_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** gRPC Inference (the env-service's llm() sub-calls, its INFERENCE_ADDRESS); 0 picks a free port. */
  INFERENCE_PORT: PortSchema.default(50081),
  /**
   * Checkpoint folder whose weights answer Inference.Generate, loaded on the first request; default the shipped
   * default model (data/checkpoints/default). While it is missing, Generate answers FAILED_PRECONDITION naming
   * it and the worker still runs rollouts.
   */
  INFERENCE_CHECKPOINT: z.string().min(1).default(DEFAULT_POLICY_DIR),
  ...onnxEnvShape(),
  /** How long SIGTERM lets running groups finish before releasing them to other workers. */
  DRAIN_TIMEOUT_MS: envInt(0).default(30_000),
  /**
   * How long this worker's lock on a running job lasts without renewal (renewed every half of it). When a worker
   * dies mid-group, another worker takes the group over once the lock expired and a stalled check ran.
   */
  JOB_LOCK_MS: envInt(1000).default(DEFAULT_LOCK_MS),
  /** How often this worker looks for jobs whose worker died (stalled jobs). */
  STALLED_CHECK_MS: envInt(100).default(DEFAULT_STALLED_CHECK_MS),
});

export type RolloutWorkerConfig = z.infer<typeof RolloutWorkerConfigSchema>;

export function loadConfig(env: Record<string, string | undefined>): RolloutWorkerConfig {
  return loadEnvConfig('rollout-worker', RolloutWorkerConfigSchema, env);
}
