import type { NextFunction, Request, Response } from 'express';
import { EnvError } from '../errors';

/**
 * Bounds the bytes of request bodies the service holds at once: a request is counted from its arrival until its
 * response is sent, by its Content-Length (`unknownLengthBytes`, the largest body accepted, when it has none). One that
 * would take the total past `budgetBytes` is refused with CAPACITY_REACHED before its body is read, and Node discards
 * the body; a request always passes when no other body is held. A flood of large bodies is then neither kept in memory
 * nor parsed all at once, which stalls the event loop that every session's steps are answered on.
 */
export function bodyBudget(
  budgetBytes: number,
  unknownLengthBytes: number,
  refuse: (error: EnvError, req: Request, res: Response) => void,
) {
  let held = 0;
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.headers['content-length'];
    const bytes =
      declared === undefined ? (req.headers['transfer-encoding'] ? unknownLengthBytes : 0) : Number(declared);
    if (!(bytes > 0)) return next();
    if (held > 0 && held + bytes > budgetBytes) {
      refuse(
        new EnvError(
          'CAPACITY_REACHED',
          `the service holds ${held} bytes of request bodies and takes at most ${budgetBytes} at once ` +
            '(MAX_BODY_BYTES_IN_FLIGHT); retry when earlier requests are answered',
        ),
        req,
        res,
      );
      return;
    }
    held += bytes;
    res.once('close', () => {
      held -= bytes;
    });
    next();
  };
}
