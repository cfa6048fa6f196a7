import * as grpc from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { createLogger } from '@fathom/observability';
import { of } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusError } from '../errors';
import type { RewardClient } from '../generated/fathom/reward/v1/Reward';
import type { ScoreGroupReply__Output } from '../generated/fathom/reward/v1/ScoreGroupReply';
import { loadService } from '../protos';
import { startGrpcService, type GrpcServiceHandle } from './grpc.service';
import { StatusErrorFilter } from './status.filter';

const logger = createLogger({ service: 'rpc-test', level: 'silent' });
const REWARD = [{ proto: 'reward.proto' as const, name: 'fathom.reward.v1.Reward' }];

/** What the scripted ScoreGroup handler does next: answer a reply, an Observable of replies, or throw. */
let script: () => unknown = () => ({});

@Controller()
@UseFilters(StatusErrorFilter)
class ScriptedRewardController {
  @GrpcMethod('Reward', 'ScoreGroup')
  scoreGroup(): unknown {
    return script();
  }
}

@Controller()
class EmptyController {}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function serve(): Promise<{ server: GrpcServiceHandle; client: RewardClient }> {
  const server = await startGrpcService({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: REWARD,
    controllers: [ScriptedRewardController],
  });
  cleanup.push(() => server.close());
  const Reward = loadService('reward.proto', 'fathom.reward.v1.Reward');
  const client = new Reward(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  cleanup.push(() => client.close());
  return { server, client };
}

function scoreGroup(client: RewardClient): Promise<ScoreGroupReply__Output> {
  return new Promise((resolve, reject) =>
    client.ScoreGroup({}, (error, reply) => (error ? reject(error) : resolve(reply!))),
  );
}

async function firstTotal(client: RewardClient): Promise<number | undefined> {
  return (await scoreGroup(client)).results?.[0]?.total;
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
    script = () => ({ results: [{ total: 0.5 }] });
    expect(await firstTotal(client)).toBe(0.5);
    script = async () => ({ results: [{ total: 0.25 }] });
    expect(await firstTotal(client)).toBe(0.25);
    script = () => of({ results: [{ total: 0.1 }] }, { results: [{ total: 0.75 }] });
    expect(await firstTotal(client)).toBe(0.75);
  });

  it('answers a StatusError with its status, anything else INTERNAL naming the method, and keeps serving', async () => {
    const { client } = await serve();
    script = () => {
      throw new StatusError(grpc.status.FAILED_PRECONDITION, 'no such group');
    };
    const refused = await failure(scoreGroup(client));
    expect(refused.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(refused.details).toBe('no such group');

    script = () => Promise.reject(new TypeError('cannot read x of undefined'));
    const failed = await failure(scoreGroup(client));
    expect(failed.code).toBe(grpc.status.INTERNAL);
    expect(failed.details).toBe('/fathom.reward.v1.Reward/ScoreGroup: cannot read x of undefined');

    script = () => ({ results: [{ total: 2 }] });
    expect(await firstTotal(client)).toBe(2);
  });

  it('refuses to start when a method of a served service has no handler, naming the decorator to add', async () => {
    const start = startGrpcService({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: REWARD,
      controllers: [EmptyController],
    });
    await expect(start).rejects.toThrow(
      "no handler for /fathom.reward.v1.Reward/ScoreGroup: decorate a controller method @GrpcMethod('Reward', 'ScoreGroup')",
    );
  });

  it('lets a call in flight finish when closing, and answers a new one UNAVAILABLE', async () => {
    const { server, client } = await serve();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    script = async () => {
      await released;
      return { results: [{ total: 1 }] };
    };
    const inFlight = scoreGroup(client);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    const late = await failure(scoreGroup(client));
    expect(late.code).toBe(grpc.status.UNAVAILABLE);
    release();
    expect((await inFlight).results?.[0]?.total).toBe(1);
    await closed;
  });
});
