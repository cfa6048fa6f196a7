import { type Task, TaskSchema } from '@fathom/contracts';
import type { core } from 'zod';
import { readLines } from './jsonl';
import { structuralIssues } from './structure';
import { estimateTokens } from './tokens';

/** One bad line of a dataset file. */
export interface LineIssue {
  /** 1-based line number. */
  line: number;
  /** Every reason the line is bad, in a human-readable form. */
  reasons: string[];
}

export interface ValidationReport {
  lines: number;
  valid: number;
  issues: LineIssue[];
  /** Valid lines whose structured ground truth (`meta`) was checked against their text (generated tasks). */
  structured: number;
}

export interface ValidateOptions {
  /** Check lines that carry `meta` against it (default true); see `structuralIssues`. */
  checkMeta?: boolean;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !(key in current))
      return { present: false, value: undefined };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value: current };
}

function describeIssue(issue: core.$ZodIssue, raw: unknown): string {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys')
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  const { present, value } = valueAt(raw, issue.path);
  if (!present) return `missing field "${field}"`;
  if (issue.code === 'invalid_type') return `field "${field}": expected ${issue.expected}, got ${typeName(value)}`;
  return `field "${field}": ${issue.message}`;
}

/** Consistency checks beyond the schema. */
function semanticReasons(task: Task, checkMeta: boolean): { reasons: string[]; structured: boolean } {
  const reasons: string[] = [];
  const expectedTokens = estimateTokens(task.context);
  if (task.context_tokens !== expectedTokens)
    reasons.push(`context_tokens is ${task.context_tokens} but estimateTokens(context) gives ${expectedTokens}`);
  task.needle_positions.forEach((p, i) => {
    if (p.end > task.context.length)
      reasons.push(`needle_positions[${i}] ends at ${p.end}, past the context (${task.context.length} characters)`);
  });
  if (!checkMeta || task.meta === undefined || reasons.length > 0) return { reasons, structured: false };
  reasons.push(...structuralIssues(task));
  return { reasons, structured: true };
}

/**
 * Checks one JSONL line: JSON syntax, the task schema (every issue, not just the first), context_tokens against the
 * shared estimator, needle bounds, and — for lines that carry `meta` — that the text agrees with it
 * (`structuralIssues`). `seenIds` maps ids to the line they first appeared on; it is updated. Pure apart from `seenIds`; never
 * throws.
 */
export function checkTaskLine(
  text: string,
  line: number,
  seenIds: Map<string, number>,
  options: ValidateOptions = {},
): { reasons: string[]; structured: boolean } {
  if (text.trim() === '') return { reasons: ['empty line'], structured: false };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { reasons: [`bad JSON: ${(error as Error).message}`], structured: false };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { reasons: [`expected a JSON object, got ${typeName(raw)}`], structured: false };
  const id = (raw as { id?: unknown }).id;
  const idReasons: string[] = [];
  if (typeof id === 'string') {
    const first = seenIds.get(id);
    if (first !== undefined) idReasons.push(`duplicate id "${id}" (first on line ${first})`);
    else seenIds.set(id, line);
  }
  const parsed = TaskSchema.safeParse(raw);
  if (!parsed.success)
    return { reasons: [...idReasons, ...parsed.error.issues.map((i) => describeIssue(i, raw))], structured: false };
  const semantic = semanticReasons(parsed.data, options.checkMeta ?? true);
  return { reasons: [...idReasons, ...semantic.reasons], structured: semantic.structured };
}

/**
 * Validates a whole JSONL file, streaming, and reports every bad line (never stops at the first).
 * `onIssue` sees each issue as soon as it is found. Throws only TasksError(FILE_ACCESS) when the file cannot be read.
 */
export async function validateTasksFile(
  path: string,
  options: ValidateOptions = {},
  onIssue?: (issue: LineIssue) => void,
): Promise<ValidationReport> {
  const seenIds = new Map<string, number>();
  const report: ValidationReport = { lines: 0, valid: 0, issues: [], structured: 0 };
  for await (const { line, text } of readLines(path)) {
    report.lines = line;
    const { reasons, structured } = checkTaskLine(text, line, seenIds, options);
    if (reasons.length === 0) {
      report.valid++;
      if (structured) report.structured++;
    } else {
      const issue = { line, reasons };
      report.issues.push(issue);
      onIssue?.(issue);
    }
  }
  return report;
}
