import { OpsController } from '@fathom/runtime';
import { nestRoutes } from '@fathom/runtime/testing';
import { describe, expect, it } from 'vitest';
import { ADMIN_CONTROLLERS } from '../app.module';
import { ADMIN_OPERATIONS, adminOpenApiDocument } from './openapi';

type Doc = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean }[] } & Json>>;
  components: { schemas: Record<string, Json> };
};
type Json = Record<string, unknown>;

/** Routes served by express before Nest (bootstrap's dashboard mount and its redirect). */
const STATIC_ROUTES = ['GET /dashboard/', 'GET /'];

describe('the admin API document', () => {
  it('lists exactly the routes the controllers serve, and the static ones', () => {
    const documented = ADMIN_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    expect(documented).toEqual([...nestRoutes([...ADMIN_CONTROLLERS, OpsController]), ...STATIC_ROUTES].sort());
  });

  it('gives every JSON reply a schema and every query parameter a description', () => {
    for (const op of ADMIN_OPERATIONS) {
      for (const [status, reply] of Object.entries(op.responses)) {
        if (status !== '302') expect(reply.schema, `${op.method} ${op.path} ${status}`).toBeDefined();
      }
      for (const [name, field] of Object.entries(op.query?.shape ?? {})) {
        expect(field.description, `${op.path}?${name}`).toBeTruthy();
      }
    }
  });

  it('derives parameters and bodies from the zod schemas, with shared schemas as components', () => {
    const doc = adminOpenApiDocument() as Doc;
    const episodes = doc.paths['/runs/{id}/episodes']!.get!;
    expect(episodes.parameters!.map((p) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
      ['step', 'query', false],
      ['taskType', 'query', false],
      ['minReward', 'query', false],
      ['maxReward', 'query', false],
      ['minContextTokens', 'query', false],
      ['maxContextTokens', 'query', false],
      ['limit', 'query', false],
      ['cursor', 'query', false],
    ]);
    expect(doc.paths['/runs']!.post!.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RunConfig' } } },
    });
    const run = doc.components.schemas.Run as { properties: Record<string, Json> };
    expect(run.properties.config).toEqual({ $ref: '#/components/schemas/RunConfig' });
    const config = doc.components.schemas.RunConfig as { properties: Record<string, { properties: Json }> };
    expect(config.properties.grpo).toBeDefined();
    expect(Object.keys(config.properties.optimizer.properties).sort()).toEqual([
      'beta1',
      'beta2',
      'lr',
      'maxGradNorm',
      'minLr',
      'warmupSteps',
      'weightDecay',
    ]);
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });
});
