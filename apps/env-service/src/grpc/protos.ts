import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';

/** The repository's proto/ folder. */
export const PROTO_DIR = fileURLToPath(new URL('../../../../proto/', import.meta.url));

/**
 * Loads one of the repository's protos. keepCase keeps snake_case field names, so gRPC messages have the same
 * field names as the JSON bodies; `oneofs` marks which oneof member is set; longs arrive as numbers.
 */
export function loadProto(file: 'env.proto' | 'inference.proto'): grpc.GrpcObject {
  const definition = protoLoader.loadSync(`${PROTO_DIR}${file}`, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition);
}

type ServiceCtor = grpc.ServiceClientConstructor;

/** The Env service constructor (client) and definition (server) from proto/env.proto. */
export function envService(): ServiceCtor {
  const pkg = loadProto('env.proto') as unknown as { fathom: { env: { v1: { Env: ServiceCtor } } } };
  return pkg.fathom.env.v1.Env;
}

/** The Inference service constructor (client) and definition (server) from proto/inference.proto. */
export function inferenceService(): ServiceCtor {
  const pkg = loadProto('inference.proto') as unknown as { fathom: { inference: { v1: { Inference: ServiceCtor } } } };
  return pkg.fathom.inference.v1.Inference;
}
