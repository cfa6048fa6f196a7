import { randomUUID } from 'node:crypto';
import { InProcessTransport } from './in-process.transport';
import { describeTransportConformance, FAST_DELIVERY } from './testing/transport.conformance';

describeTransportConformance('in-process', async () => {
  const transport = new InProcessTransport();
  return {
    transport,
    inject: async (queue, name, data, id) => {
      await transport.add(queue, { id: id ?? randomUUID(), name, data }, FAST_DELIVERY);
    },
    destroy: () => transport.close(),
  };
});
