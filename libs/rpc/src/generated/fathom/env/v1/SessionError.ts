// Original file: proto/env.proto


/**
 * A request of the session that failed: the gRPC status a unary call would have ended with, the service's error
 * code (VALIDATION_ERROR, NO_ACTIVE_EPISODE, …) and a message naming the problem.
 */
export interface SessionError {
  'status'?: (number);
  'reason'?: (string);
  'message'?: (string);
}

/**
 * A request of the session that failed: the gRPC status a unary call would have ended with, the service's error
 * code (VALIDATION_ERROR, NO_ACTIVE_EPISODE, …) and a message naming the problem.
 */
export interface SessionError__Output {
  'status'?: (number);
  'reason'?: (string);
  'message'?: (string);
}
