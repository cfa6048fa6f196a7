/**
 * @fathom/queue/testing — tools for tests of the services built on the queues: FaultProxy cuts a client off Postgres
 * or Redis and lets it back (the chaos tests); samplePayloads gives a valid payload of every job name; waitFor polls a
 * condition; deleteQueuePrefix and queuePrefixBytes clean up and measure a queue prefix in a shared Redis. Never
 * imported by production code.
 */
export { FaultProxy } from './testing/fault.proxy';
export { samplePayloads, waitFor } from './testing/transport.conformance';
export { deleteQueuePrefix, queuePrefixBytes } from './testing/redis-prefix';
