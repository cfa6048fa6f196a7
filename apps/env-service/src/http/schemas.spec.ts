import { OpsController } from '@fathom/runtime';
import { nestRoutes } from '@fathom/runtime/testing';
import { describe, expect, it } from 'vitest';
import { ENV_CONTROLLERS } from '../app.module';
import { ENV_OPERATIONS, openApiDocument } from './schemas';

describe('the env-service document', () => {
  it('lists exactly the HTTP routes the controllers serve', () => {
    const documented = ENV_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    expect(documented).toEqual(nestRoutes([...ENV_CONTROLLERS, OpsController]).sort());
  });

  it('takes bodies and replies from the contracts, as components', () => {
    const doc = openApiDocument('test') as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    expect(doc.paths['/step']!.post!.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/StepRequest' } } },
    });
    expect(doc.paths['/step']!.post!.responses['200']).toEqual({
      description: 'Observation',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/StepReply' } } },
    });
    expect(doc.components.schemas.StepRequest!.required).toEqual(['action']);
    expect(JSON.stringify(doc.paths['/v1/chat/completions'])).toContain('max_completion_tokens');
  });
});
