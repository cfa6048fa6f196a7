/**
 * @fathom/queue/testing — tools for outage tests against the real servers (the services' chaos tests): FaultProxy
 * cuts a client off Postgres or Redis and lets it back. Never imported by production code.
 */
export { FaultProxy } from './testing/fault.proxy';
