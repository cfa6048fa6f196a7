/** The port the gRPC server actually bound (GRPC_PORT may be 0); filled in when the server starts. */
export class GrpcPort {
  port = 0;
}
