import {
  describedResponses,
  openApiDocument,
  OPS_OPERATIONS,
  RunConfigSchema,
  type ApiOperation,
  type ApiResponse,
} from '@fathom/contracts';
import { z } from 'zod';
import { EvalIdParamsSchema, EvalRequestSchema } from '../evals/eval.schemas';
import { FailedQuerySchema, QueueNameParamsSchema } from '../ops/ops.schemas';
import {
  EpisodeIdParamsSchema,
  EpisodesQuerySchema,
  RunIdParamsSchema,
  RunListQuerySchema,
  SeriesQuerySchema,
  StepsQuerySchema,
} from '../runs/run.schemas';
import { ADMIN_API_VERSION } from '../version';
import {
  EpisodeReplySchema,
  EpisodesReplySchema,
  ErrorReplySchema,
  EvalAcceptedReplySchema,
  EvalDetailReplySchema,
  EvalResultReplySchema,
  EvalSummaryReplySchema,
  FailedJobsReplySchema,
  QueuesReplySchema,
  RunDetailReplySchema,
  RunListReplySchema,
  RunReplySchema,
  SeriesReplySchema,
  StepsReplySchema,
} from './responses';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400:
    'Malformed JSON body (INVALID_JSON), or text that cannot be stored (INVALID_TEXT: a body that is not UTF-8, a ' +
    'NUL, a lone surrogate, a path parameter that is not percent-encoded UTF-8); the message names the field',
  401: 'Missing or wrong bearer token',
  403: 'Without a token: a change sent from another origin (CROSS_ORIGIN)',
  404: 'Unknown run, episode, eval or queue',
  409: 'The run is in a status that does not allow this',
  413: 'Body over the size limit',
  415: 'A body or Content-Type other than application/json',
  421: 'Without a token: a request addressed (Host) to a name that is not loopback nor in ADMIN_ALLOWED_HOSTS',
  422: 'Invalid input; details lists each issue with its path',
  503: 'Postgres or Redis unreachable',
};

/** The error replies of a route: `statuses`, and 421, which any route answers to a misdirected request. */
const errors = (...statuses: number[]) => describedResponses(ERROR_DESCRIPTIONS, ErrorReplySchema, [...statuses, 421]);
const html = (description: string): ApiResponse => ({ description, schema: z.string(), contentType: 'text/html' });

/**
 * Every route of the admin API, once: its parameters, body and replies are the zod schemas the controllers parse
 * with and the API tests check replies against. The OpenAPI document and the /docs page are generated from this.
 */
export const ADMIN_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/runs',
    summary: 'Create a run (status pending) from a run config; defaults fill every omitted field',
    body: { schema: RunConfigSchema, required: true },
    responses: {
      201: { description: 'The run as stored', schema: RunReplySchema },
      ...errors(400, 401, 403, 413, 415, 422),
    },
  },
  {
    method: 'get',
    path: '/runs',
    summary: 'List runs, newest first, each with latestStep {step, rewardMean} (null before the first step)',
    query: RunListQuerySchema,
    responses: { 200: { description: 'Runs', schema: RunListReplySchema }, ...errors(401, 422) },
  },
  {
    method: 'get',
    path: '/runs/{id}',
    summary: 'One run, with its policy versions',
    params: RunIdParamsSchema,
    responses: { 200: { description: 'The run', schema: RunDetailReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/runs/{id}/steps',
    summary: "A run's per-step metrics and reward-component statistics, by step",
    params: RunIdParamsSchema,
    query: StepsQuerySchema,
    responses: { 200: { description: 'Steps', schema: StepsReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/runs/{id}/series',
    summary:
      "A run's step metrics as columns for charting and the mean of each reward component; null where a step did " +
      'not record a value',
    params: RunIdParamsSchema,
    query: SeriesQuerySchema,
    responses: { 200: { description: 'Columns', schema: SeriesReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/runs/{id}/episodes',
    summary: "A page of a run's episode summaries, newest first (no transcripts)",
    params: RunIdParamsSchema,
    query: EpisodesQuerySchema,
    responses: { 200: { description: 'A page', schema: EpisodesReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/episodes/{id}',
    summary: 'One episode: prompt, turns and observations, reward components, recursion tree',
    params: EpisodeIdParamsSchema,
    responses: { 200: { description: 'The episode', schema: EpisodeReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'post',
    path: '/runs/{id}/stop',
    summary: 'Stop a run: pending → stopped, running → stopping (the learner finishes its step); repeatable',
    params: RunIdParamsSchema,
    responses: {
      200: { description: 'The run', schema: RunReplySchema },
      ...errors(400, 401, 403, 404, 409, 415, 422),
    },
  },
  {
    method: 'post',
    path: '/runs/{id}/resume',
    summary: 'Resume a stopped or failed run from its last checkpoint (status → running); repeatable',
    params: RunIdParamsSchema,
    responses: {
      200: { description: 'The run', schema: RunReplySchema },
      ...errors(400, 401, 403, 404, 409, 415, 422),
    },
  },
  {
    method: 'post',
    path: '/evals',
    summary: 'Queue an evaluation (an eval.run job on the eval queue); results appear as EvalResult rows',
    body: { schema: EvalRequestSchema, required: true },
    responses: {
      202: { description: 'Queued', schema: EvalAcceptedReplySchema },
      ...errors(400, 401, 403, 404, 413, 415, 422, 503),
    },
  },
  {
    method: 'get',
    path: '/evals',
    summary: 'Every evaluation that has results (one checkpoint on one split), oldest first',
    responses: { 200: { description: 'Evaluations', schema: z.array(EvalSummaryReplySchema) }, ...errors(401) },
  },
  {
    method: 'get',
    path: '/evals/{id}',
    summary: 'One evaluation with its rows: accuracy, mean tokens and llm() calls per task type and length bucket',
    params: EvalIdParamsSchema,
    responses: { 200: { description: 'The evaluation', schema: EvalDetailReplySchema }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/queues',
    summary: 'Job counts of every queue and its dead-letter queue',
    responses: { 200: { description: 'Counts', schema: QueuesReplySchema }, ...errors(401, 503) },
  },
  {
    method: 'get',
    path: '/queues/{name}/failed',
    summary: 'The newest failed jobs of a queue with their reasons (dead-lettered ones included)',
    params: QueueNameParamsSchema,
    query: FailedQuerySchema,
    responses: {
      200: { description: 'Failed jobs', schema: FailedJobsReplySchema },
      ...errors(400, 401, 404, 422, 503),
    },
  },
  ...OPS_OPERATIONS,
  { method: 'get', path: '/docs', summary: 'This API, as a page', responses: { 200: html('HTML') } },
  {
    method: 'get',
    path: '/docs/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/dashboard/',
    summary: 'The dashboard (static files, no token needed; its data calls send the bearer token)',
    public: true,
    responses: { 200: html('HTML') },
  },
  {
    method: 'get',
    path: '/',
    summary: 'Redirects to /dashboard/',
    public: true,
    responses: { 302: { description: 'Redirect' } },
  },
];

/** The OpenAPI 3.1 document of the admin API, served at /docs/openapi.json. */
export function adminOpenApiDocument(): ReturnType<typeof openApiDocument> {
  return openApiDocument({
    title: 'FATHOM admin API',
    version: ADMIN_API_VERSION,
    description:
      'Start, stop and inspect GRPO runs; browse episodes; request evals; watch the queues. When the service has ' +
      'an ADMIN_TOKEN (always in production) every route but /health and /metrics needs `Authorization: Bearer`.',
    operations: ADMIN_OPERATIONS,
    components: {
      RunConfig: RunConfigSchema,
      EvalRequest: EvalRequestSchema,
      Run: RunReplySchema,
      EvalSummary: EvalSummaryReplySchema,
      EvalResult: EvalResultReplySchema,
      Error: ErrorReplySchema,
    },
    bearerSchemes: ['bearer'],
    security: 'bearer',
  });
}
