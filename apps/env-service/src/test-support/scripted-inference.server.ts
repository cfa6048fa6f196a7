import * as grpc from '@grpc/grpc-js';
import { loadService } from '@fathom/rpc';
import type { GenerateReply, GenerateRequest } from '../inference/inference.client';

/**
 * TEST DOUBLE. A deterministic Inference gRPC server for tests and benchmarks, speaking proto/inference.proto like
 * the real one (the rollout worker). It answers each Generate with `script(request)` and records every request.
 * Never wired by default: the env-service only reaches it when a test passes its address as INFERENCE_ADDRESS.
 */
export class ScriptedInferenceServer {
  readonly requests: GenerateRequest[] = [];
  private readonly server = new grpc.Server();
  private port = 0;

  constructor(private readonly script: (request: GenerateRequest) => string) {}

  /** Starts on a free local port and returns the "host:port" address. */
  async start(): Promise<string> {
    this.server.addService(loadService('inference.proto', 'fathom.inference.v1.Inference').service, {
      Generate: (
        call: grpc.ServerUnaryCall<GenerateRequest, GenerateReply>,
        callback: grpc.sendUnaryData<GenerateReply>,
      ) => {
        this.requests.push(call.request);
        const text = this.script(call.request);
        callback(null, {
          text,
          prompt_tokens: Math.ceil(call.request.prompt.length / 4),
          completion_tokens: Math.ceil(text.length / 4),
          finish_reason: 'stop',
        });
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
        err ? reject(err) : resolve(port),
      ),
    );
    return this.address;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.tryShutdown(() => resolve()));
  }
}
