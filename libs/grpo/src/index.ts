export { GrpoConfigSchema, grpoConfig, type GrpoConfig } from './config';
export { groupAdvantages, type GroupAdvantages } from './advantages';
export { grpoLoss, type PolicySample, type GrpoLossResult } from './loss';
export { selectGroups, type ScoredGroup, type GroupSelection, type Selection, type SkipReason } from './groups';
export {
  STEP_SKIP_REASONS,
  selectStepGroups,
  type StepSelection,
  type StepSkipReason,
  type TrainableGroup,
} from './step-groups';
