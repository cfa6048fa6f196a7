import { errorClass } from '@fathom/contracts';

/** Error taxonomy of `libs/rewards`: every error this library throws is a `RewardError` with one of these codes. */
export type RewardErrorCode =
  /** The reward config failed validation (unknown key or component, weights not summing to 1, out-of-range value). */
  | 'INVALID_CONFIG'
  /** The trajectory does not match `RewardTrajectorySchema` (negative or fractional token counts, missing fields). */
  | 'INVALID_TRAJECTORY'
  /** `scoreGroup` was given no trajectories. */
  | 'EMPTY_GROUP'
  /** A component registered under a name that is not snake_case or is taken, or that scored outside [0, 1]. */
  | 'INVALID_COMPONENT';

/** The one error type of `libs/rewards`; its table is the one place that turns a code into a message. */
export class RewardError extends errorClass<RewardErrorCode>('RewardError', {
  INVALID_CONFIG: 'invalid reward config',
  INVALID_TRAJECTORY: 'invalid trajectory for reward',
  EMPTY_GROUP: 'cannot score an empty group',
  /** The detail starts with the component's quoted name: `invalid reward component "x": …`. */
  INVALID_COMPONENT: (detail) => `invalid reward component ${detail}`,
}) {}

/** The message a RewardError with this code and detail carries. */
export const rewardErrorMessage = RewardError.messageOf;
