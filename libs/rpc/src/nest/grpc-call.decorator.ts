import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The grpc-js call object of a unary `@GrpcMethod` handler (`GrpcTransport` hands over request, metadata and call), for
 * a handler that listens for the call's cancellation: `generate(@Payload() request, @GrpcCall() call)`.
 */
export const GrpcCall = createParamDecorator((_data: unknown, context: ExecutionContext): unknown =>
  context.getArgByIndex(2),
);
