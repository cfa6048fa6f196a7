export { RewardServiceConfigSchema, loadConfig, type RewardServiceConfig } from './config';
export { startRewardService } from './server';
export { episodeRecordOf, transcriptOf, type StoredTranscript } from './episode.record';
export { RewardService, type RewardServiceDeps } from './reward.service';
export { RewardMetrics } from './metrics';
