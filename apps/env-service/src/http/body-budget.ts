import type { NextFunction, Request, Response } from 'express';
import { EnvError } from '../errors';

/**
 * Bounds the bytes of request bodies the service holds at once for one client address: a request is counted from its
 * arrival until its response is sent, by its Content-Length (`unknownLengthBytes`, the largest body accepted, when it
 * has none). One that would take its address's total past `budgetBytes` is refused with CAPACITY_REACHED before its
 * body is read, and Node discards the body; a request always passes when its address holds no other body. A client's
 * flood of large bodies is then neither kept in memory nor parsed all at once, which stalls the event loop that every
 * session's steps are answered on; and a client that declares bodies it never sends holds back only itself.
 */
export function bodyBudget(
  budgetBytes: number,
  unknownLengthBytes: number,
  refuse: (error: EnvError, req: Request, res: Response) => void,
) {
  const held = new Map<string, number>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.headers['content-length'];
    const bytes =
      declared === undefined ? (req.headers['transfer-encoding'] ? unknownLengthBytes : 0) : Number(declared);
    if (!(bytes > 0)) return next();
    const client = req.socket.remoteAddress ?? '';
    const before = held.get(client) ?? 0;
    if (before > 0 && before + bytes > budgetBytes) {
      refuse(
        new EnvError(
          'CAPACITY_REACHED',
          `this client (${client}) has ${before} bytes of request bodies held, and the service holds at most ` +
            `${budgetBytes} a client (MAX_BODY_BYTES_IN_FLIGHT); retry when its earlier requests are answered`,
        ),
        req,
        res,
      );
      return;
    }
    held.set(client, before + bytes);
    res.once('close', () => {
      const left = (held.get(client) ?? bytes) - bytes;
      if (left > 0) held.set(client, left);
      else held.delete(client);
    });
    next();
  };
}
