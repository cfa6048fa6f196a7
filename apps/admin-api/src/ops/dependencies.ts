import { AdminError } from '../errors';

/**
 * Runs a call to Postgres or Redis with a deadline: an unreachable dependency answers 503 DEPENDENCY_UNAVAILABLE
 * within `timeoutMs` instead of hanging the request (ioredis and BullMQ retry a lost connection indefinitely).
 */
export async function withDeadline<T>(what: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AdminError('DEPENDENCY_UNAVAILABLE', `${what} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([call(), deadline]);
  } catch (error) {
    if (error instanceof AdminError) throw error;
    throw new AdminError('DEPENDENCY_UNAVAILABLE', `${what} failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
