import { MESSAGE_SCHEMAS, type EventName, type EventPayload } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { JobTransport, SubscribeOptions } from './transport';
import { formatIssues } from './validate';

/**
 * Subscribes to a broadcast event with validation on receipt: a malformed message is logged with its reason and
 * dropped (events are not queued, so there is nothing to dead-letter); the listener only sees valid payloads.
 * Returns the unsubscribe function.
 */
export function subscribeEvent<E extends EventName>(
  transport: Pick<JobTransport, 'subscribe'>,
  name: E,
  listener: (payload: EventPayload<E>) => void,
  logger: Logger,
  options?: SubscribeOptions,
): Promise<() => Promise<void>> {
  return transport.subscribe(
    name,
    (message) => {
      const parsed = MESSAGE_SCHEMAS[name].safeParse(message);
      if (!parsed.success) {
        logger.warn('malformed event dropped', { event: name, reason: formatIssues(parsed.error) });
        return;
      }
      listener(parsed.data as EventPayload<E>);
    },
    options,
  );
}
