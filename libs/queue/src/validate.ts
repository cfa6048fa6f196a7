import type { z } from 'zod';

/** A zod error as one line: `path: message; path: message` (the path is "(root)" for the whole payload). */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
