import * as grpc from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { createLogger } from '@fathom/observability';
import { of } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusError } from '../errors';
import type { GenerateReply__Output } from '../generated/fathom/inference/v1/GenerateReply';
import type { InferenceClient } from '../generated/fathom/inference/v1/Inference';
import { loadService } from '../protos';
import { startGrpcService, type GrpcServiceHandle } from './grpc.service';
import { StatusErrorFilter } from './status.filter';

const logger = createLogger({ service: 'rpc-test', level: 'silent' });
const INFERENCE = [{ proto: 'inference.proto' as const, name: 'fathom.inference.v1.Inference' }];

/** What the scripted Generate handler does next: answer a reply, an Observable of replies, or throw. */
let script: () => unknown = () => ({});

@Controller()
@UseFilters(StatusErrorFilter)
class ScriptedInferenceController {
  @GrpcMethod('Inference', 'Generate')
  generate(): unknown {
    return script();
  }

  @GrpcMethod('Inference', 'Describe')
  describe(): unknown {
    return {};
  }

  @GrpcMethod('Inference', 'ReadSpan')
  readSpan(): unknown {
    return {};
  }
}

@Controller()
class EmptyController {}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function serve(): Promise<{ server: GrpcServiceHandle; client: InferenceClient }> {
  const server = await startGrpcService({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: INFERENCE,
    controllers: [ScriptedInferenceController],
  });
  cleanup.push(() => server.close());
  const Inference = loadService('inference.proto', 'fathom.inference.v1.Inference');
  const client = new Inference(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  cleanup.push(() => client.close());
  return { server, client };
}

function generate(client: InferenceClient): Promise<GenerateReply__Output> {
  return new Promise((resolve, reject) =>
    client.Generate({}, (error, reply) => (error ? reject(error) : resolve(reply!))),
  );
}

async function text(client: InferenceClient): Promise<string | undefined> {
  return (await generate(client)).text;
}

async function failure(call: Promise<unknown>): Promise<grpc.ServiceError> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: grpc.ServiceError) => error,
  );
}

describe('GrpcTransport (Nest microservice)', () => {
  it('answers what a controller method returns, resolves or emits last', async () => {
    const { client } = await serve();
    script = () => ({ text: 'a' });
    expect(await text(client)).toBe('a');
    script = async () => ({ text: 'b' });
    expect(await text(client)).toBe('b');
    script = () => of({ text: 'c' }, { text: 'd' });
    expect(await text(client)).toBe('d');
  });

  it('answers a StatusError with its status, anything else INTERNAL naming the method, and keeps serving', async () => {
    const { client } = await serve();
    script = () => {
      throw new StatusError(grpc.status.FAILED_PRECONDITION, 'no such model');
    };
    const refused = await failure(generate(client));
    expect(refused.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(refused.details).toBe('no such model');

    script = () => Promise.reject(new TypeError('cannot read x of undefined'));
    const failed = await failure(generate(client));
    expect(failed.code).toBe(grpc.status.INTERNAL);
    expect(failed.details).toBe('/fathom.inference.v1.Inference/Generate: cannot read x of undefined');

    script = () => ({ text: 'e' });
    expect(await text(client)).toBe('e');
  });

  it('refuses to start when a method of a served service has no handler, naming the decorator to add', async () => {
    const start = startGrpcService({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: INFERENCE,
      controllers: [EmptyController],
    });
    await expect(start).rejects.toThrow(
      "no handler for /fathom.inference.v1.Inference/Generate: decorate a controller method @GrpcMethod('Inference', 'Generate')",
    );
  });

  it('lets a call in flight finish when closing, and answers a new one UNAVAILABLE', async () => {
    const { server, client } = await serve();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    script = async () => {
      await released;
      return { text: 'f' };
    };
    const inFlight = generate(client);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    const late = await failure(generate(client));
    expect(late.code).toBe(grpc.status.UNAVAILABLE);
    release();
    expect((await inFlight).text).toBe('f');
    await closed;
  });
});
