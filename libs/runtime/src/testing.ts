import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { readFileSync } from 'node:fs';

/**
 * Whether a process exists and has not exited (a zombie waiting to be reaped counts as exited), for tests that
 * check a killed or orphaned process is gone. Reads /proc, so Linux only.
 */
export function isRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/**
 * The HTTP routes Nest serves for a set of controllers, as "GET /runs/{id}" (OpenAPI's parameter form), read from
 * the routing decorators' metadata: what a test compares a service's documented operations with.
 */
export function nestRoutes(controllers: readonly (new (...args: never[]) => unknown)[]): string[] {
  const join = (...parts: string[]) =>
    `/${parts
      .flatMap((p) => p.split('/'))
      .filter((p) => p.length > 0)
      .join('/')}`;
  return controllers.flatMap((controller) => {
    const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const proto = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(proto).flatMap((name) => {
      const handler = proto[name];
      if (typeof handler !== 'function' || name === 'constructor') return [];
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) return [];
      const path = join(prefix, String(Reflect.getMetadata(PATH_METADATA, handler) ?? '')).replace(/:(\w+)/g, '{$1}');
      return [`${RequestMethod[method]} ${path}`];
    });
  });
}
