export {
  PermanentJobError,
  type DeliveredJob,
  type DeliveryOptions,
  type EventListener,
  type SubscribeOptions,
  type FailedJobInfo,
  type JobHandlerFn,
  type JobTransport,
  type LostJob,
  type NewJob,
  type QueueCounts,
  type TransportWorker,
  type WorkOptions,
} from './transport';
export { InProcessTransport } from './in-process.transport';
export {
  BullMqTransport,
  DEFAULT_LOCK_MS,
  DEFAULT_STALLED_CHECK_MS,
  redisOptionsFromUrl,
  type BullMqTransportOptions,
} from './bullmq.transport';
export { JobProducer, type EnqueueResult } from './producer';
export { DEFAULT_TRANSIENT_RETRY_MS, JobConsumer, type JobConsumerOptions } from './consumer';
export { isTransientInfraError, waitOutOutages, type OutageWait } from './transient';
export {
  checkHandlers,
  handlerFor,
  type HandlerMismatch,
  type HandlerRegistration,
  type JobContext,
  type JobHandler,
} from './handlers';
export { subscribeEvent } from './events';
export { QueueMetrics, type JobOutcome, type QueueMetricsOptions } from './metrics';
export { queueStats, type QueueStats } from './stats';
export { QueueError, queueErrorMessage, type QueueErrorCode } from './errors';
