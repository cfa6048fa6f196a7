import * as grpc from '@grpc/grpc-js';
import { loadService } from '@fathom/rpc';
import type { GenerateReply, GenerateRequest, ReadSpanReply, ReadSpanRequest } from '../inference/inference.client';

/** How a scripted span reader reads: the span of the chunk it answers, as [first, last] characters, or null ("unknown"). */
export type ScriptedRead = (request: ReadSpanRequest) => [number, number] | null;

/**
 * TEST DOUBLE. A deterministic Inference gRPC server for tests and benchmarks, speaking proto/inference.proto like
 * the real one (the rollout worker). It answers each Generate with `script(request)` and records every request.
 * Given `read`, it has a span reader: Describe says so and ReadSpan answers the chunk's characters `read` picks
 * (positions are characters, logprob -0.5); without it, it knows neither (UNIMPLEMENTED, as an endpoint from before
 * span reads). Never wired by default: the env-service only reaches it when a test passes its address as
 * INFERENCE_ADDRESS.
 */
export class ScriptedInferenceServer {
  readonly requests: GenerateRequest[] = [];
  readonly reads: ReadSpanRequest[] = [];
  private readonly server = new grpc.Server();
  private port = 0;

  constructor(
    private readonly script: (request: GenerateRequest) => string,
    private readonly read?: ScriptedRead,
  ) {}

  /** Starts on a free local port and returns the "host:port" address. */
  async start(): Promise<string> {
    const read = this.read;
    const reader: grpc.UntypedServiceImplementation =
      read === undefined
        ? {}
        : {
            Describe: (_call: unknown, callback: grpc.sendUnaryData<{ span_reader: boolean }>) =>
              callback(null, { span_reader: true }),
            ReadSpan: (
              call: grpc.ServerUnaryCall<ReadSpanRequest, ReadSpanReply>,
              callback: grpc.sendUnaryData<ReadSpanReply>,
            ) => {
              this.reads.push(call.request);
              const span = read(call.request);
              const none = call.request.chunk.length;
              callback(null, {
                text: span === null ? 'unknown' : call.request.chunk.slice(span[0], span[1] + 1),
                answered: span !== null,
                start: span?.[0] ?? none,
                end: span?.[1] ?? none,
                logprob: -0.5,
                prompt_tokens: Math.ceil((call.request.question.length + call.request.chunk.length) / 4),
              });
            },
          };
    this.server.addService(loadService('inference.proto', 'fathom.inference.v1.Inference').service, {
      ...reader,
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
