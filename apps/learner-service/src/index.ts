export { LearnerServiceConfigSchema, loadConfig, type LearnerServiceConfig } from './config';
export { startLearnerService } from './server';
export { LearnerService, type LearnerServiceDeps } from './learner.service';
