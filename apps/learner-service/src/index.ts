export { LearnerServiceConfigSchema, loadConfig, type LearnerServiceConfig } from './config';
export { startLearnerService, type LearnerServiceHandle } from './server';
export { LearnerService, type LearnerServiceDeps } from './learner.service';
