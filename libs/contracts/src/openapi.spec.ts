import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDocumentedReply, describedResponses, findOperation, openApiDocument, type ApiOperation } from './openapi';

const Thing = z.strictObject({ id: z.string(), size: z.number().int() });
const ops: ApiOperation[] = [
  {
    method: 'get',
    path: '/things/{id}',
    summary: 'One thing',
    params: z.strictObject({ id: z.string().describe('Thing id') }),
    query: z.strictObject({
      depth: z.string().describe('How deep'),
      limit: z.string().optional().describe('At most'),
      page: z.string().default('1').describe('Page'),
    }),
    responses: { 200: { description: 'The thing', schema: Thing } },
  },
  {
    method: 'get',
    path: '/things/latest',
    summary: 'The newest thing',
    public: true,
    responses: { 200: { description: 'A list', schema: z.array(Thing) } },
  },
];
const spec = { title: 'T', version: '1', description: 'd', operations: ops, components: { Thing } };

describe('openApiDocument', () => {
  it('writes parameters from the zod fields: path ones required, query ones unless optional or defaulted', () => {
    const doc = openApiDocument(spec) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(doc.paths['/things/{id}']!.get!.parameters).toEqual([
      { name: 'id', in: 'path', required: true, description: 'Thing id', schema: { type: 'string' } },
      { name: 'depth', in: 'query', required: true, description: 'How deep', schema: { type: 'string' } },
      { name: 'limit', in: 'query', required: false, description: 'At most', schema: { type: 'string' } },
      { name: 'page', in: 'query', required: false, description: 'Page', schema: { type: 'string', default: '1' } },
    ]);
  });

  it('refers to a component wherever its schema instance appears, at the top or nested', () => {
    const doc = openApiDocument(spec) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const reply = (path: string) =>
      (doc.paths[path]!.get!.responses as Record<string, { content: Record<string, { schema: unknown }> }>)['200']!
        .content['application/json']!.schema;
    expect(reply('/things/{id}')).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(reply('/things/latest')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Thing' } });
    expect(doc.paths['/things/latest']!.get!.security).toEqual([]);
  });

  it('refuses a path whose parameters are not the declared ones, and an operation listed twice', () => {
    const bad = { ...ops[0]!, path: '/things/{thingId}' };
    expect(() => openApiDocument({ ...spec, operations: [bad] })).toThrow(
      'GET /things/{thingId}: path parameters [thingId] but params declares [id]',
    );
    expect(() => openApiDocument({ ...spec, operations: [ops[1]!, ops[1]!] })).toThrow(
      'GET /things/latest is listed twice',
    );
  });
});

describe('findOperation', () => {
  it('matches a request path to its operation, literal segments before parameters', () => {
    expect(findOperation(ops, 'GET', '/things/latest')?.summary).toBe('The newest thing');
    expect(findOperation(ops, 'GET', '/things/t-1?depth=2')?.summary).toBe('One thing');
    expect(findOperation(ops, 'POST', '/things/t-1')).toBeUndefined();
    expect(findOperation(ops, 'GET', '/things/t-1/more')).toBeUndefined();
  });
});

describe('describedResponses', () => {
  it('gives each status its description and the shared schema, all of them or the ones asked for', () => {
    const descriptions = { 404: 'Unknown thing', 409: 'Busy' };
    expect(describedResponses(descriptions, Thing)).toEqual({
      404: { description: 'Unknown thing', schema: Thing },
      409: { description: 'Busy', schema: Thing },
    });
    expect(describedResponses(descriptions, Thing, [409])).toEqual({ 409: { description: 'Busy', schema: Thing } });
  });
});

describe('checkDocumentedReply', () => {
  const reply = { method: 'GET', path: '/things/t-1', status: 200, contentType: 'application/json' };
  it('passes a JSON reply that matches its documented schema, and replies it does not document', () => {
    expect(() => checkDocumentedReply(ops, { ...reply, body: { id: 't-1', size: 2 } })).not.toThrow();
    expect(() => checkDocumentedReply(ops, { ...reply, status: 500, body: 'oops' })).not.toThrow();
    expect(() => checkDocumentedReply(ops, { ...reply, contentType: 'text/html', body: '<p>' })).not.toThrow();
  });

  it('throws, naming the request and status, when a documented reply does not match', () => {
    expect(() => checkDocumentedReply(ops, { ...reply, body: { id: 't-1', size: 2, extra: true } })).toThrow(
      /^GET \/things\/t-1 → 200: /,
    );
  });
});
