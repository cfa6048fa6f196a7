import { FathomError } from '@fathom/contracts';

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

/** The one place that turns a code into a message. */
export function rewardErrorMessage(code: RewardErrorCode, detail: string): string {
  switch (code) {
    case 'INVALID_CONFIG':
      return `invalid reward config: ${detail}`;
    case 'INVALID_TRAJECTORY':
      return `invalid trajectory for reward: ${detail}`;
    case 'EMPTY_GROUP':
      return `cannot score an empty group: ${detail}`;
    case 'INVALID_COMPONENT':
      return `invalid reward component ${detail}`;
  }
}

export class RewardError extends FathomError<RewardErrorCode> {
  override readonly name = 'RewardError';
  constructor(code: RewardErrorCode, detail: string) {
    super(code, rewardErrorMessage(code, detail));
  }
}
