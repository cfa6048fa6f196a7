/** The port the gRPC server actually bound (GRPC_PORT may be 0); filled in when the server starts. */
export interface GrpcPortRef {
  port: number;
}

export const GRPC_PORT_REF = Symbol('GrpcPortRef');
