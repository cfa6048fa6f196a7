import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import type { ProtoGrpcType as EnvProto } from './generated/env';
import type { ProtoGrpcType as InferenceProto } from './generated/inference';
import type { ProtoGrpcType as PolicyProto } from './generated/policy';

/** The repository's proto/ folder. */
export const PROTO_DIR = fileURLToPath(new URL('../../../proto/', import.meta.url));

/**
 * The options every FATHOM service loads protos with; scripts/gen-proto.sh passes the same ones to
 * proto-loader-gen-types, so the generated types describe exactly what these loaders produce. keepCase keeps
 * snake_case field names (gRPC messages read like the JSON bodies), longs arrive as numbers, `oneofs` names the
 * set member of each oneof, and with `defaults: false` an unset proto3 field is absent (undefined).
 */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = Object.freeze({
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
});

/** Each proto file and the typed package object it loads to (from the generated types). */
export interface ProtoTypes {
  'env.proto': EnvProto;
  'inference.proto': InferenceProto;
  'policy.proto': PolicyProto;
}
export type ProtoFile = keyof ProtoTypes;

/** The value at a dotted path of a package object, e.g. `PathValue<PolicyProto, 'fathom.policy.v1.Policy'>`. */
type PathValue<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? PathValue<T[Head], Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** Dotted paths of a package object that lead to a service constructor (a value with a `service` definition). */
type ServicePaths<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends { service: grpc.ServiceDefinition }
    ? `${Prefix}${K}`
    : T[K] extends object
      ? ServicePaths<T[K], `${Prefix}${K}.`>
      : never;
}[keyof T & string];

const loaded = new Map<ProtoFile, grpc.GrpcObject>();

/** Loads one of the repository's protos (once per process) as its typed package object. */
export function loadProto<F extends ProtoFile>(file: F): ProtoTypes[F] {
  let pkg = loaded.get(file);
  if (pkg === undefined) {
    pkg = grpc.loadPackageDefinition(protoLoader.loadSync(`${PROTO_DIR}${file}`, PROTO_LOADER_OPTIONS));
    loaded.set(file, pkg);
  }
  return pkg as unknown as ProtoTypes[F];
}

/**
 * A service of one of the protos: its constructor makes typed clients, its `.service` is the definition a
 * `grpc.Server` implements. `loadService('policy.proto', 'fathom.policy.v1.Policy')`.
 */
export function loadService<F extends ProtoFile, P extends ServicePaths<ProtoTypes[F]> & string>(
  file: F,
  path: P,
): PathValue<ProtoTypes[F], P> {
  let node: unknown = loadProto(file);
  for (const part of path.split('.')) {
    node = typeof node === 'object' || typeof node === 'function' ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== 'function' || !('service' in node)) {
    throw new Error(`${file} has no service at "${path}"`);
  }
  return node as PathValue<ProtoTypes[F], P>;
}
