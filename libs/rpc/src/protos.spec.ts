import { describe, expect, it } from 'vitest';
import { loadProto, loadService } from './protos';

describe('loadService', () => {
  it('returns each service constructor with its definition', () => {
    expect(Object.keys(loadService('env.proto', 'fathom.env.v1.Env').service)).toEqual([
      'Reset',
      'Step',
      'State',
      'Close',
      'Session',
    ]);
    const session = loadService('env.proto', 'fathom.env.v1.Env').service.Session;
    expect([session.requestStream, session.responseStream]).toEqual([true, true]);
    expect(Object.keys(loadService('inference.proto', 'fathom.inference.v1.Inference').service)).toContain('Generate');
    expect(Object.keys(loadService('policy.proto', 'fathom.policy.v1.Policy').service)).toEqual([
      'GetLatest',
      'GetWeights',
    ]);
    expect(loadService('policy.proto', 'fathom.policy.v1.Policy').service.GetWeights.responseStream).toBe(true);
  });

  it('loads each proto once', () => {
    expect(loadProto('policy.proto')).toBe(loadProto('policy.proto'));
  });

  it('rejects a path that is not a service, at compile time and at run time', () => {
    // @ts-expect-error a message type, not a service
    expect(() => loadService('policy.proto', 'fathom.policy.v1.WeightsChunk')).toThrow(/no service at/);
    // @ts-expect-error the Inference service lives in inference.proto
    expect(() => loadService('policy.proto', 'fathom.inference.v1.Inference')).toThrow(
      /no service at "fathom.inference.v1.Inference"/,
    );
  });
});
