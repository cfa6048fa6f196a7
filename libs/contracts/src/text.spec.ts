import { describe, expect, it } from 'vitest';
import { EnvResetRequestSchema, EnvStepRequestSchema } from './env';
import { groupId, MESSAGE_SCHEMAS } from './jobs';
import {
  escapeRegExp,
  isInvalidTextIssue,
  storableText,
  TEXT_LIMITS,
  TextIdSchema,
  TextNameSchema,
  textProblem,
} from './text';

describe('storable text', () => {
  it('accepts any well-formed Unicode without NUL, astral characters included', () => {
    for (const value of ['run-1', '✓', '日本語', '🚀 emoji', 'tab\tand\nnewline', '\uFFFD', '\u{10FFFF}']) {
      expect(textProblem(value)).toBeNull();
      expect(TextIdSchema.safeParse(value).success).toBe(true);
    }
  });

  it('refuses NUL and lone surrogates with an issue marked invalid text', () => {
    for (const value of ['\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uDC00\uD800']) {
      const issues = TextIdSchema.safeParse(value).error?.issues ?? [];
      expect(issues).toHaveLength(1);
      expect(isInvalidTextIssue(issues[0]!)).toBe(true);
      expect(issues[0]!.message).toMatch(/NUL|surrogate/);
    }
  });

  it('applies length limits as ordinary (not invalid-text) issues, and trims names', () => {
    const long = TextIdSchema.safeParse('a'.repeat(TEXT_LIMITS.id + 1)).error?.issues ?? [];
    expect(long.map((i) => [i.code, isInvalidTextIssue(i)])).toEqual([['too_big', false]]);
    expect(TextIdSchema.safeParse('').success).toBe(false);
    expect(storableText(10, 0).safeParse('').success).toBe(true);
    expect(TextNameSchema.parse('  run  ')).toBe('run');
    expect(TextNameSchema.safeParse('   ').success).toBe(false);
  });
});

describe('every edge that takes an id or a path refuses text Postgres or a log cannot hold', () => {
  const bad = ['a\u0000b', '\uD800'];

  it('env-service reset and step bodies (HTTP, WebSocket and gRPC share them)', () => {
    for (const value of bad) {
      for (const result of [
        EnvResetRequestSchema.safeParse({ episode_id: value }),
        EnvResetRequestSchema.safeParse({ task_id: value }),
        EnvStepRequestSchema.safeParse({ episode_id: value, action: { code: '1' } }),
      ]) {
        expect(result.success).toBe(false);
        expect(result.error!.issues.some(isInvalidTextIssue)).toBe(true);
      }
    }
    expect(EnvResetRequestSchema.safeParse({ episode_id: 'ep-✓', task_id: 'niah/7' }).success).toBe(true);
  });

  it('job payloads: a task id or an eval checkpoint with a NUL never reaches a worker', () => {
    const key = { runId: 'run-1', step: 0, groupId: groupId(0, 0), policyVersion: 0 };
    for (const value of bad) {
      const rollout = MESSAGE_SCHEMAS['rollout.group'].safeParse({ ...key, taskId: value, G: 2, seed: 1 });
      expect(rollout.error?.issues.some(isInvalidTextIssue)).toBe(true);
    }
    expect(MESSAGE_SCHEMAS['rollout.group'].safeParse({ ...key, taskId: 'niah/1', G: 2, seed: 1 }).success).toBe(true);
  });
});

describe('escapeRegExp', () => {
  const tricky = 'a.b/c (d) [e] {2} ^f$ g|h *+? \\i';

  it('escapes every character a RegExp reads as syntax, slashes included', () => {
    expect(escapeRegExp('a.b/c (d)')).toBe('a\\.b\\/c \\(d\\)');
    expect(escapeRegExp('plain words')).toBe('plain words');
  });

  it('matches the text itself and nothing else, with and without the u flag and inside a /…/ literal', () => {
    for (const flags of ['', 'u']) {
      const re = new RegExp(`^${escapeRegExp(tricky)}$`, flags);
      expect(re.test(tricky)).toBe(true);
      expect(re.test(tricky.replace('.', 'x'))).toBe(false);
    }
    const literal = new Function(`return /^${escapeRegExp(tricky)}$/;`)() as RegExp;
    expect(literal.test(tricky)).toBe(true);
  });
});
