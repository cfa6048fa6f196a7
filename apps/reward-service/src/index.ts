export { RewardServiceConfigSchema, loadConfig, type RewardServiceConfig } from './config';
export { startRewardService, type RewardServiceHandle } from './server';
export { episodeRecordOf, transcriptOf, type StoredTranscript } from './episode.record';
