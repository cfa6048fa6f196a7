import { EpisodeSettingsSchema } from '@fathom/contracts';
import { InvalidArgumentError, type Command } from 'commander';

/** A commander parser of a finite number option; the error names the option and the value. */
export function number(name: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed))
      throw new InvalidArgumentError(`${name} must be a number, got "${value}"`);
    return parsed;
  };
}

/** A commander parser of an integer option, at least `min` when given; the error names the option and the value. */
export function integer(name: string, min?: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || (min !== undefined && parsed < min))
      throw new InvalidArgumentError(
        `${name} must be an integer${min === undefined ? '' : ` >= ${min}`}, got "${value}"`,
      );
    return parsed;
  };
}

/** A commander parser of a share: a number in [0, 1]; the error names the option and the value. */
export function share(name: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !(parsed >= 0 && parsed <= 1))
      throw new InvalidArgumentError(`${name} must be a number in [0, 1], got "${value}"`);
    return parsed;
  };
}

/** A commander parser of a ws:// or wss:// URL option; the error names the option and the value. */
export function webSocketUrl(name: string): (value: string) => string {
  return (value) => {
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'ws:' && protocol !== 'wss:')
      throw new InvalidArgumentError(`${name} must be a ws:// or wss:// URL, got "${value}"`);
    return value;
  };
}

/** Commander's parser of a repeatable `--set key=value`: every value given, in order. */
export function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

/**
 * The `key=value` overrides a command's convenience flags stand for (`--lr 3e-4` → `optimizer.lr=3e-4`), in the
 * order of `paths`, which maps each flag's property to its dotted config path: they go through the same
 * `applySetOverrides` as `--set`, which is applied after them.
 */
export function flagOverrides(flags: object, paths: Readonly<Record<string, string>>): string[] {
  const given = flags as Record<string, unknown>;
  return Object.entries(paths).flatMap(([flag, path]) =>
    given[flag] === undefined ? [] : [`${path}=${String(given[flag])}`],
  );
}

/** The episode settings' defaults, from their one schema: what the episode flags' help names. */
const EPISODE_DEFAULTS = EpisodeSettingsSchema.parse({});

/**
 * `command` with the episode-limit flags of `fathom eval` and `fathom ask`: `--max-turns`, `--max-turn-tokens` and
 * `--max-episode-tokens` (flags `maxTurns`, `maxTurnTokens`, `maxEpisodeTokens`; unset: the schema's default).
 */
export function withEpisodeLimits(command: Command): Command {
  return command
    .option(
      '--max-turns <n>',
      `model turns per episode (default ${EPISODE_DEFAULTS.maxTurns})`,
      integer('--max-turns', 1),
    )
    .option(
      '--max-turn-tokens <n>',
      `new tokens one turn may sample (default ${EPISODE_DEFAULTS.maxTokensPerTurn})`,
      integer('--max-turn-tokens', 1),
    )
    .option(
      '--max-episode-tokens <n>',
      `tokens of the whole episode (default ${EPISODE_DEFAULTS.maxEpisodeTokens})`,
      integer('--max-episode-tokens', 1),
    );
}
