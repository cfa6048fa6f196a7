import { z } from 'zod';

/**
 * OpenAPI 3.1 documents built from the zod schemas the services validate with, so a documented parameter, body or
 * response cannot drift from the one the code checks. A service lists its operations once (`ApiOperation`) and
 * serves `openApiDocument(...)` of them; its tests parse real replies with the same response schemas.
 */

export type JsonSchema = Record<string, unknown>;

/** One documented reply of an operation. Without a schema the body is described in words only (HTML, text). */
export interface ApiResponse {
  description: string;
  schema?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
}

export interface ApiOperation {
  method: 'get' | 'post';
  /** OpenAPI form: `/runs/{id}`. */
  path: string;
  summary: string;
  description?: string;
  /** Path parameters: one field per `{name}` of the path; a field's `.describe()` is the parameter's description. */
  params?: z.ZodObject;
  /** Query parameters, the schema the route parses its query with. */
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  /** By status code. */
  responses: Record<number, ApiResponse>;
  /** Reachable without the API's security scheme (health, metrics, static pages). */
  public?: boolean;
  /** The operation's own security scheme, where it differs from the document's. */
  security?: string;
}

export interface ApiDocumentSpec {
  title: string;
  version: string;
  description: string;
  operations: readonly ApiOperation[];
  /** Named schemas: wherever one of these instances appears it is written as a `$ref` to it. */
  components: Record<string, z.ZodType>;
  /** Bearer security schemes by name; `security` names the one every non-public operation needs. */
  bearerSchemes?: readonly string[];
  security?: string;
}

const REF_PREFIX = '#/components/schemas/';

/**
 * Replies that share one body schema, by status, each with its description (an API's error replies): every status of
 * `descriptions`, or only `statuses`.
 */
export function describedResponses(
  descriptions: Readonly<Record<number, string>>,
  schema: z.ZodType,
  statuses: readonly number[] = Object.keys(descriptions).map(Number),
): Record<number, ApiResponse> {
  return Object.fromEntries(statuses.map((status) => [status, { description: descriptions[status]!, schema }]));
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema as a request sees it, named components as `$ref`s. */
function jsonSchema(schema: z.ZodType, components: ReadonlyMap<z.ZodType, string>): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const at = ctx.zodSchema as unknown as z.ZodType;
      const name = components.get(at);
      if (name === undefined || at === schema) return;
      const target = ctx.jsonSchema as JsonSchema;
      for (const key of Object.keys(target)) delete target[key];
      target.$ref = `${REF_PREFIX}${name}`;
    },
  }) as JsonSchema;
  return rest;
}

/** A schema where it is used: a `$ref` when it is a named component, else inline. */
function schemaAt(schema: z.ZodType, components: ReadonlyMap<z.ZodType, string>): JsonSchema {
  const name = components.get(schema);
  return name === undefined ? jsonSchema(schema, components) : { $ref: `${REF_PREFIX}${name}` };
}

function parameters(op: ApiOperation, components: ReadonlyMap<z.ZodType, string>): JsonSchema[] {
  const of = (where: 'path' | 'query', object: z.ZodObject | undefined) =>
    Object.entries(object?.shape ?? {}).map(([name, field]) => {
      const { description, ...schema } = jsonSchema(field as z.ZodType, components);
      const required = where === 'path' || !(field as z.ZodType).safeParse(undefined).success;
      return { name, in: where, required, ...(description === undefined ? {} : { description }), schema };
    });
  const pathNames = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const declared = Object.keys(op.params?.shape ?? {});
  if (pathNames.join() !== declared.join()) {
    throw new Error(
      `${op.method.toUpperCase()} ${op.path}: path parameters [${pathNames}] but params declares [${declared}]`,
    );
  }
  return [...of('path', op.params), ...of('query', op.query)];
}

function operation(op: ApiOperation, components: ReadonlyMap<z.ZodType, string>): JsonSchema {
  const params = parameters(op, components);
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      {
        description: r.description,
        ...(r.schema === undefined
          ? {}
          : { content: { [r.contentType ?? 'application/json']: { schema: schemaAt(r.schema, components) } } }),
      },
    ]),
  );
  return {
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(op.public ? { security: [] } : op.security === undefined ? {} : { security: [{ [op.security]: [] }] }),
    ...(params.length === 0 ? {} : { parameters: params }),
    ...(op.body === undefined
      ? {}
      : {
          requestBody: {
            required: op.body.required,
            content: { 'application/json': { schema: schemaAt(op.body.schema, components) } },
          },
        }),
    responses,
  };
}

/** The OpenAPI 3.1 document of a service's operations. Throws when a path's parameters and `params` disagree. */
export function openApiDocument(spec: ApiDocumentSpec): JsonSchema {
  const components = new Map(Object.entries(spec.components).map(([name, schema]) => [schema, name]));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of spec.operations) {
    const entry = (paths[op.path] ??= {});
    if (entry[op.method] !== undefined) throw new Error(`${op.method.toUpperCase()} ${op.path} is listed twice`);
    entry[op.method] = operation(op, components);
  }
  const schemes = spec.bearerSchemes ?? [];
  return {
    openapi: '3.1.0',
    info: { title: spec.title, version: spec.version, description: spec.description },
    ...(spec.security === undefined ? {} : { security: [{ [spec.security]: [] }] }),
    paths,
    components: {
      ...(schemes.length === 0
        ? {}
        : { securitySchemes: Object.fromEntries(schemes.map((s) => [s, { type: 'http', scheme: 'bearer' }])) }),
      schemas: Object.fromEntries(
        Object.entries(spec.components).map(([name, schema]) => [name, jsonSchema(schema, components)]),
      ),
    },
  };
}

/**
 * The documented operation a request went to (`GET /runs/run-1/steps` → `GET /runs/{id}/steps`), so a test can
 * check a real reply against the operation's response schema. Literal segments win over parameters.
 */
export function findOperation(
  operations: readonly ApiOperation[],
  method: string,
  requestPath: string,
): ApiOperation | undefined {
  const segments = requestPath.split('?')[0]!.split('/');
  const matches = operations.filter((op) => {
    if (op.method !== method.toLowerCase()) return false;
    const parts = op.path.split('/');
    return parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i]);
  });
  const literals = (op: ApiOperation) => op.path.split('/').filter((p) => !p.startsWith('{')).length;
  return matches.sort((a, b) => literals(b) - literals(a))[0];
}

/**
 * Throws unless a JSON reply matches the schema its operation documents for that status; replies of undocumented
 * operations or statuses, or that are not JSON, pass. Tests run every reply they get through it, so the document
 * cannot drift from what the service sends.
 */
export function checkDocumentedReply(
  operations: readonly ApiOperation[],
  reply: { method: string; path: string; status: number; contentType: string; body: unknown },
): void {
  const documented = findOperation(operations, reply.method, reply.path)?.responses[reply.status];
  if (documented?.schema === undefined || !reply.contentType.includes('application/json')) return;
  const parsed = documented.schema.safeParse(reply.body);
  if (!parsed.success) throw new Error(`${reply.method} ${reply.path} → ${reply.status}: ${parsed.error.message}`);
}

/** One request of `malformedRequests`: a documented operation asked with bad input. */
interface MalformedRequest {
  operation: ApiOperation;
  method: 'GET' | 'POST';
  /** The path with its `{params}` filled and a query string appended. */
  path: string;
  /** Raw JSON-ish text, absent for a GET. */
  body?: string;
}

const MALFORMED_BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '1e999',
  '{"__proto__": {"polluted": 1}}',
  '{"constructor": {"prototype": {"polluted": 1}}}',
  '{"toString": 1, "hasOwnProperty": 2, "valueOf": 3}',
  `{"deep": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
  JSON.stringify({ name: 'x'.repeat(50_000), context: '\u0000\ud800', seed: -1.5, task_id: { $ne: 1 } }),
  JSON.stringify({ action: { code: 5, answer: null }, episode_id: [], steps: 1e308, batchSize: 'NaN' }),
  JSON.stringify({ messages: [{ role: 'user', content: { type: 'file' } }], max_tokens: 1e308 }),
  JSON.stringify({ jsonrpc: '2.0', id: {}, method: 'tools/call', params: { name: '__proto__', arguments: 5 } }),
  JSON.stringify({ model: { checkpoint: '../../../../etc/passwd' }, data: { trainFile: '/etc/shadow' } }),
];
const MALFORMED_IDS = ['x', '%00', '..%2F..%2Fetc', 'a'.repeat(2_000), '%E0%A4%A'];
const MALFORMED_QUERIES = ['', '?limit=-5&offset=abc&x[]=1&y=%ZZ&status=%00'];

/**
 * Every documented operation asked with malformed input: bodies that are not JSON, not objects, nested 5,000 deep,
 * with keys named like Object.prototype's members, wrong types and absurd numbers; path ids with NUL, traversal and
 * broken escapes; garbage queries. A service must answer each below 500 and keep serving (the malformed-input tests
 * of the admin API and the env-service).
 */
function* malformedRequests(operations: readonly ApiOperation[]): Generator<MalformedRequest> {
  for (const operation of operations) {
    const paths = operation.path.includes('{')
      ? MALFORMED_IDS.map((id) => operation.path.replace(/\{[^}]+\}/g, id))
      : [operation.path];
    for (const path of paths)
      for (const query of MALFORMED_QUERIES) {
        if (operation.method === 'get') yield { operation, method: 'GET', path: `${path}${query}` };
        else for (const body of MALFORMED_BODIES) yield { operation, method: 'POST', path: `${path}${query}`, body };
      }
  }
}

/**
 * Sends every request of `malformedRequests` to a running service, one at a time, and returns the answers at or above
 * 500 (method, path, the body's start and the reply) and how many of the operations were asked.
 */
export async function serverErrorsOnMalformedInput(
  baseUrl: string,
  operations: readonly ApiOperation[],
  headers: Record<string, string> = {},
): Promise<{ errors: string[]; operationsAsked: number }> {
  const errors: string[] = [];
  const asked = new Set<ApiOperation>();
  for (const { operation, method, path, body } of malformedRequests(operations)) {
    const reply = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await reply.text();
    if (reply.status >= 500) errors.push(`${method} ${path} ${String(body).slice(0, 80)} → ${reply.status} ${text}`);
    asked.add(operation);
  }
  return { errors, operationsAsked: asked.size };
}
