export { RewardServiceConfigSchema, loadConfig, type RewardServiceConfig } from './config';
export { startRewardService } from './server';
export { episodeRecordOf, transcriptOf, type StoredTranscript } from './episode.record';
