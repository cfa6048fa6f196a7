import { RunConfigSchema, TASK_TYPES } from '@fathom/contracts';
import { z } from 'zod';
import { EvalRequestSchema } from '../evals/eval.schemas';
import { ADMIN_ERROR_CODES } from '../errors';
import { RUN_STATUSES } from '../runs/run.schemas';
import { ADMIN_API_VERSION } from '../version';

type Parameter = { name: string; in: 'path' | 'query'; required?: boolean; description: string; schema: object };

const runId: Parameter = { name: 'id', in: 'path', required: true, description: 'Run id', schema: { type: 'string' } };
const int = { type: 'string', pattern: '^\\d+$' };
const num = { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' };
const q = (name: string, description: string, schema: object = int): Parameter => ({
  name,
  in: 'query',
  description,
  schema,
});

const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      { description: ERROR_DESCRIPTIONS[s], content: json({ $ref: '#/components/schemas/Error' }) },
    ]),
  );
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    'Malformed JSON body (INVALID_JSON), or text that cannot be stored (INVALID_TEXT: a NUL, a lone surrogate, a ' +
    'path parameter that is not percent-encoded UTF-8); the message names the field',
  401: 'Missing or wrong bearer token',
  403: 'Without a token: a change sent from another origin (CROSS_ORIGIN)',
  404: 'Unknown run, episode, eval or queue',
  409: 'The run is in a status that does not allow this',
  413: 'Body over the size limit',
  415: 'A body or Content-Type other than application/json',
  422: 'Invalid input; details lists each issue with its path',
  503: 'Postgres or Redis unreachable',
};
const json = (schema: object) => ({ 'application/json': { schema } });
const ok = (description: string, schema: object = { type: 'object' }) => ({ description, content: json(schema) });

/** The OpenAPI 3.1 document of the admin API, served at /docs/openapi.json. Request bodies come from the zod schemas. */
export function openApiDocument(): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'FATHOM admin API',
      version: ADMIN_API_VERSION,
      description:
        'Start, stop and inspect GRPO runs; browse episodes; request evals; watch the queues. When the service has ' +
        'an ADMIN_TOKEN (always in production) every route but /health and /metrics needs `Authorization: Bearer`.',
    },
    security: [{ bearer: [] }],
    paths: {
      '/runs': {
        post: {
          summary: 'Create a run (status pending) from a run config; defaults fill every omitted field',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/RunConfig' }) },
          responses: {
            '201': ok('The run as stored', { $ref: '#/components/schemas/Run' }),
            ...errors(400, 401, 403, 413, 415, 422),
          },
        },
        get: {
          summary: 'List runs, newest first, each with latestStep {step, rewardMean} (null before the first step)',
          parameters: [
            q('status', 'Only runs in this status', { enum: RUN_STATUSES }),
            q('limit', '1-500, default 100'),
          ],
          responses: {
            '200': ok('Runs', { type: 'array', items: { $ref: '#/components/schemas/Run' } }),
            ...errors(401, 422),
          },
        },
      },
      '/runs/{id}': {
        get: {
          summary: 'One run, with its policy versions',
          parameters: [runId],
          responses: { '200': ok('The run', { $ref: '#/components/schemas/Run' }), ...errors(400, 401, 404, 422) },
        },
      },
      '/runs/{id}/steps': {
        get: {
          summary: "A run's per-step metrics and reward-component statistics, by step",
          parameters: [runId, q('fromStep', 'First step, default 0'), q('limit', '1-5000, default 1000')],
          responses: { '200': ok('{runId, items}'), ...errors(400, 401, 404, 422) },
        },
      },
      '/runs/{id}/series': {
        get: {
          summary:
            "A run's step metrics as columns for charting: steps[], series {reward_mean, frac_reward_zero_std, kl, " +
            'loss, clip_ratio, completion_length, llm_calls, tokens_per_s} and components {name: means}; null where ' +
            'a step did not record a value',
          parameters: [runId, q('fromStep', 'First step, default 0'), q('limit', '1-100000, default 100000')],
          responses: { '200': ok('{runId, steps, series, components}'), ...errors(400, 401, 404, 422) },
        },
      },
      '/runs/{id}/episodes': {
        get: {
          summary: "A page of a run's episode summaries, newest first (no transcripts)",
          parameters: [
            runId,
            q('step', 'Only this step'),
            q('taskType', 'Only this task type', { enum: TASK_TYPES }),
            q('minReward', 'Total reward at least', num),
            q('maxReward', 'Total reward at most', num),
            q('minContextTokens', 'Context length at least (tokens)'),
            q('maxContextTokens', 'Context length at most (tokens)'),
            q('limit', '1-500, default 50'),
            q('cursor', 'nextCursor of the previous page'),
          ],
          responses: { '200': ok('{items, nextCursor}; ids are strings'), ...errors(400, 401, 404, 422) },
        },
      },
      '/episodes/{id}': {
        get: {
          summary: 'One episode: prompt, turns and observations, reward components, recursion tree',
          parameters: [{ ...runId, description: 'Episode id (decimal)' }],
          responses: { '200': ok('The episode; id is a string'), ...errors(400, 401, 404, 422) },
        },
      },
      '/runs/{id}/stop': {
        post: {
          summary: 'Stop a run: pending → stopped, running → stopping (the learner finishes its step); repeatable',
          parameters: [runId],
          responses: {
            '200': ok('The run', { $ref: '#/components/schemas/Run' }),
            ...errors(400, 401, 403, 404, 409, 415, 422),
          },
        },
      },
      '/runs/{id}/resume': {
        post: {
          summary: 'Resume a stopped or failed run from its last checkpoint (status → running); repeatable',
          parameters: [runId],
          responses: {
            '200': ok('The run', { $ref: '#/components/schemas/Run' }),
            ...errors(400, 401, 403, 404, 409, 415, 422),
          },
        },
      },
      '/evals': {
        post: {
          summary: 'Queue an evaluation (an eval.run job on the eval queue); results appear as EvalResult rows',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/EvalRequest' }) },
          responses: {
            '202': ok('{evalId, jobId, status: "queued", job}'),
            ...errors(400, 401, 403, 404, 413, 415, 422, 503),
          },
        },
        get: {
          summary: 'Every evaluation that has results (one checkpoint on one split), oldest first',
          responses: {
            '200': ok('Evaluations', { type: 'array', items: { $ref: '#/components/schemas/EvalSummary' } }),
            ...errors(401),
          },
        },
      },
      '/evals/{id}': {
        get: {
          summary:
            'One evaluation with its rows: accuracy, mean tokens and llm() calls per task type and length bucket',
          parameters: [{ ...runId, description: 'evalId (as POST /evals returned it)' }],
          responses: {
            '200': ok('The evaluation', {
              allOf: [
                { $ref: '#/components/schemas/EvalSummary' },
                {
                  type: 'object',
                  properties: { results: { type: 'array', items: { $ref: '#/components/schemas/EvalResult' } } },
                },
              ],
            }),
            ...errors(400, 401, 404, 422),
          },
        },
      },
      '/queues': {
        get: {
          summary: 'Job counts of every queue and its dead-letter queue',
          responses: {
            '200': ok('{queues: [{queue, waiting, active, delayed, completed, failed, deadLettered}]}'),
            ...errors(401, 503),
          },
        },
      },
      '/queues/{name}/failed': {
        get: {
          summary: 'The newest failed jobs of a queue with their reasons (dead-lettered ones included)',
          parameters: [
            {
              name: 'name',
              in: 'path',
              required: true,
              description: 'rollout, reward, learn or eval',
              schema: { type: 'string' },
            },
            q('limit', '1-500, default 20'),
          ],
          responses: {
            '200': ok('{queue, items: [{id, name, reason, attemptsMade}]}'),
            ...errors(400, 401, 404, 422, 503),
          },
        },
      },
      '/health': {
        get: {
          summary: 'Liveness, and whether Postgres and Redis answer',
          security: [],
          responses: { '200': ok('Healthy'), '503': ok('Degraded') },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          security: [],
          responses: { '200': { description: 'text/plain exposition' } },
        },
      },
      '/docs': { get: { summary: 'This API, as a page', responses: { '200': { description: 'HTML' } } } },
      '/dashboard/': {
        get: {
          summary: 'The dashboard (static files, no token needed; its data calls send the bearer token)',
          security: [],
          responses: { '200': { description: 'HTML' } },
        },
      },
      '/': {
        get: { summary: 'Redirects to /dashboard/', security: [], responses: { '302': { description: 'Redirect' } } },
      },
      '/docs/openapi.json': { get: { summary: 'This document', responses: { '200': ok('OpenAPI 3.1') } } },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        RunConfig: z.toJSONSchema(RunConfigSchema, { io: 'input', unrepresentable: 'any' }),
        EvalRequest: z.toJSONSchema(EvalRequestSchema, { io: 'input', unrepresentable: 'any' }),
        Run: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            status: { enum: RUN_STATUSES },
            step: { type: 'integer' },
            policyVersion: { type: 'integer' },
            config: { $ref: '#/components/schemas/RunConfig' },
            error: { type: ['string', 'null'] },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
            startedAt: { type: ['string', 'null'], format: 'date-time' },
            finishedAt: { type: ['string', 'null'], format: 'date-time' },
            latestStep: {
              description: 'GET /runs only: the newest recorded step and its mean reward',
              oneOf: [
                {
                  type: 'object',
                  properties: { step: { type: 'integer' }, rewardMean: { type: 'number' } },
                },
                { type: 'null' },
              ],
            },
          },
        },
        EvalSummary: {
          type: 'object',
          properties: {
            evalId: { type: 'string' },
            checkpoint: { type: 'string' },
            split: { type: 'string' },
            runId: { type: ['string', 'null'] },
            createdAt: { type: 'string', format: 'date-time' },
            rows: { type: 'integer', description: 'EvalResult rows of this evaluation' },
          },
        },
        EvalResult: {
          type: 'object',
          properties: {
            id: { type: 'string', description: '64-bit id as a decimal string' },
            evalId: { type: 'string' },
            runId: { type: ['string', 'null'] },
            checkpoint: { type: 'string' },
            split: { type: 'string' },
            taskType: { type: 'string', description: '"all" or a task type' },
            lengthBucket: { type: 'string', description: '"all" or a context-length bucket such as "4-16K"' },
            n: { type: 'integer' },
            accuracy: { type: 'number' },
            meanTokens: { type: 'number' },
            meanLlmCalls: { type: 'number' },
            createdAt: { type: 'string', format: 'date-time' },
          },
        },
        Error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { enum: ADMIN_ERROR_CODES }, message: { type: 'string' }, details: {} },
        },
      },
    },
  };
}
