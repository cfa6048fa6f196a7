/** Error taxonomy of `libs/rewards`: every error this library throws is a `RewardError` with one of these codes. */
export enum RewardErrorCode {
  /** The reward config failed validation (unknown key or component, weights not summing to 1, out-of-range value). */
  InvalidConfig = 'INVALID_CONFIG',
  /** The trajectory does not match `RewardTrajectorySchema` (negative or fractional token counts, missing fields). */
  InvalidTrajectory = 'INVALID_TRAJECTORY',
  /** `scoreGroup` was given no trajectories. */
  EmptyGroup = 'EMPTY_GROUP',
  /** A component registered under a name that is not snake_case or is taken, or that scored outside [0, 1]. */
  InvalidComponent = 'INVALID_COMPONENT',
}

/** The one place that turns a code into a message. */
export function rewardErrorMessage(code: RewardErrorCode, detail: string): string {
  switch (code) {
    case RewardErrorCode.InvalidConfig:
      return `invalid reward config: ${detail}`;
    case RewardErrorCode.InvalidTrajectory:
      return `invalid trajectory for reward: ${detail}`;
    case RewardErrorCode.EmptyGroup:
      return `cannot score an empty group: ${detail}`;
    case RewardErrorCode.InvalidComponent:
      return `invalid reward component ${detail}`;
    default: {
      const unreachable: never = code;
      return `unknown reward error ${String(unreachable)}: ${detail}`;
    }
  }
}

export class RewardError extends Error {
  constructor(
    readonly code: RewardErrorCode,
    detail: string,
  ) {
    super(rewardErrorMessage(code, detail));
    this.name = 'RewardError';
  }
}
