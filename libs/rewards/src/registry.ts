import {
  FORMAT_COMPONENT,
  RewardComponentNameSchema,
  type RewardConfig,
  type RewardTrajectory,
} from '@fathom/contracts';
import type { AnswerGrade, RewardTask } from './components/correctness';
import { formatScore } from './components/format';
import type { TokenBudgetScore } from './components/token-budget';
import { RewardError } from './errors';
import type { ExtractedAnswer } from './extract';

/**
 * What every component reads about one episode: the validated trajectory, the task, the run's reward config, and the
 * facts `scoreTrajectory` works out once for all components (and its diagnostics).
 */
export interface EpisodeFacts {
  trajectory: RewardTrajectory;
  task: RewardTask;
  config: RewardConfig;
  /** The answer as read from the final turn (tag or REPL `answer()`). */
  extracted: ExtractedAnswer;
  grade: AnswerGrade;
  budget: TokenBudgetScore;
  /** `llm()` calls: executed, or counted statically in the code. */
  llmCalls: number;
  /** Recursion efficiency before its gate. */
  recursionEfficiencyRaw: number;
}

/**
 * A reward component, in the spirit of a TRL reward function: a name and a pure scoring function of one episode.
 * Its weight comes from the run's reward config, which names the components a run composes.
 */
export interface RewardComponent {
  /** snake_case; the key of the component in configs, results, Episode rows, metric labels and the dashboard. */
  readonly name: string;
  /** A gate (OpenEnv's `Gate` rubric): when true the component is paid only for a correct answer, else it is 0. */
  readonly requiresCorrectAnswer: boolean;
  /**
   * The component's value in [0, 1] (anything else is a bug of the component: `scoreTrajectory` throws INVALID_COMPONENT).
   * Pure and deterministic; never throws for what the model wrote.
   */
  score(facts: EpisodeFacts): number;
}

/** FATHOM's own components (libs/rewards/README.md). */
const BUILT_IN: readonly RewardComponent[] = [
  { name: FORMAT_COMPONENT, requiresCorrectAnswer: false, score: (f) => formatScore(f.extracted, f.grade) },
  { name: 'correctness', requiresCorrectAnswer: false, score: (f) => (f.grade.correct ? 1 : 0) },
  { name: 'token_budget', requiresCorrectAnswer: false, score: (f) => f.budget.score },
  { name: 'recursion_efficiency', requiresCorrectAnswer: true, score: (f) => f.recursionEfficiencyRaw },
];

const registry = new Map<string, RewardComponent>(BUILT_IN.map((component) => [component.name, component]));

/**
 * Adds a component to this process's registry, so that a reward config may name it in `weights`. Register it at
 * module load, before any config naming it is resolved, in every process that scores (the reward-service, and the
 * learner when it scores in-process). Throws `RewardError` INVALID_COMPONENT for a name that is not snake_case or is
 * already registered.
 */
export function registerRewardComponent(component: RewardComponent): void {
  const name = RewardComponentNameSchema.safeParse(component.name);
  if (!name.success) {
    throw new RewardError('INVALID_COMPONENT', `"${component.name}": ${name.error.issues[0].message}`);
  }
  if (registry.has(component.name)) {
    throw new RewardError('INVALID_COMPONENT', `"${component.name}": the name is already registered`);
  }
  registry.set(component.name, component);
}

/** The registered component names, built-in ones first. */
export function registeredRewardComponents(): string[] {
  return [...registry.keys()];
}

/** The registered component of that name; throws `RewardError` INVALID_CONFIG naming the registered ones. */
export function rewardComponent(name: string): RewardComponent {
  const component = registry.get(name);
  if (component === undefined) {
    throw new RewardError(
      'INVALID_CONFIG',
      `unknown reward component "${name}" (registered: ${registeredRewardComponents().join(', ')})`,
    );
  }
  return component;
}

/**
 * The components a config composes and their weights, in the order they are summed (and reported): those `weights`
 * names, then `format`, weighted by `formatBonus`.
 */
export function composedComponents(config: RewardConfig): { component: RewardComponent; weight: number }[] {
  return [...Object.entries(config.weights), [FORMAT_COMPONENT, config.formatBonus] as const].map(([name, weight]) => ({
    component: rewardComponent(name),
    weight,
  }));
}
