import { describe, expect, it } from 'vitest';
import { ADMIN_ERROR_CODES, AdminError, httpStatusOf, toAdminError } from './errors';

describe('the error taxonomy', () => {
  it('gives every code a status, and only INTERNAL and DEPENDENCY_UNAVAILABLE a 5xx', () => {
    const fiveHundreds = ADMIN_ERROR_CODES.filter((code) => httpStatusOf(code) >= 500);
    expect(fiveHundreds.sort()).toEqual(['DEPENDENCY_UNAVAILABLE', 'INTERNAL']);
    for (const code of ADMIN_ERROR_CODES) expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
  });

  it('maps an unreachable Postgres to DEPENDENCY_UNAVAILABLE and hides the text of unknown errors', () => {
    const unreachable = Object.assign(new Error("Can't reach database server at db:5432"), { code: 'P1001' });
    expect(toAdminError(unreachable)).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    const bug = toAdminError(new Error('SELECT secret FROM internals failed'));
    expect(bug.code).toBe('INTERNAL');
    expect(bug.message).not.toMatch(/secret/);
    const known = new AdminError('RUN_NOT_FOUND', 'run x does not exist');
    expect(toAdminError(known)).toBe(known);
  });
});
