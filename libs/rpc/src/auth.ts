import * as grpc from '@grpc/grpc-js';
import { timingSafeEqual } from 'node:crypto';

/**
 * The shared token of FATHOM's internal gRPC services (GRPC_TOKEN): every call carries `authorization: Bearer
 * <token>` in its metadata. The channels are plaintext (grpc-js composes no call credentials with insecure ones), so
 * the token is sent by a client interceptor and checked by a server interceptor; it keeps callers who can reach a
 * port but were not given the token out, and is no substitute for TLS on a network that others can read.
 */
const AUTHORIZATION = 'authorization';

const bearer = (token: string) => `Bearer ${token}`;

/**
 * Refuses every call whose metadata lacks `authorization: Bearer <token>` with UNAUTHENTICATED, before its request
 * is read. The comparison takes the same time whatever the given value shares with the token.
 */
export function requireToken(token: string): grpc.ServerInterceptor {
  const expected = Buffer.from(bearer(token));
  const matches = (value: grpc.MetadataValue | undefined): boolean => {
    if (typeof value !== 'string') return false;
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return (method, call) =>
    new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, forward) {
            const values = metadata.get(AUTHORIZATION);
            if (values.length === 1 && matches(values[0])) return forward(metadata);
            call.sendStatus({
              code: grpc.status.UNAUTHENTICATED,
              details:
                values.length === 0
                  ? `${method.path}: this server needs "authorization: Bearer <GRPC_TOKEN>" metadata`
                  : `${method.path}: the bearer token is not this server's GRPC_TOKEN`,
            });
          },
        });
      },
    });
}

/** Sends `authorization: Bearer <token>` with every call of a client. */
export function sendToken(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(AUTHORIZATION, bearer(token));
        next(metadata, listener);
      },
    });
}

/** Client options that send `token` with every call; none without a token. */
export function tokenClientOptions(token: string | undefined): grpc.ClientOptions {
  return token === undefined ? {} : { interceptors: [sendToken(token)] };
}
