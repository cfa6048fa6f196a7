import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the dashboard's files are served from; they hold no run data, so they need no token. */
export const DASHBOARD_PREFIX = '/dashboard';

/** The dashboard's plain ES modules, HTML and CSS (no build step: the browser loads them as they are). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard', import.meta.url));

/** uPlot's dist folder in node_modules, served as-is under /dashboard/vendor/. */
const UPLOT_DIST = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.esm.js'));

/** True for the paths that serve the dashboard's static files (and `/`, which redirects to them). */
export function isDashboardAssetPath(path: string): boolean {
  return path === '/' || path === DASHBOARD_PREFIX || path.startsWith(`${DASHBOARD_PREFIX}/`);
}

/**
 * Serves the dashboard at /dashboard/ and uPlot at /dashboard/vendor/, and redirects `/` there. The pages fetch
 * the same REST routes as any client, with the bearer token the user typed in.
 */
export function mountDashboard(app: NestExpressApplication): void {
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD'))
      return res.redirect(302, `${DASHBOARD_PREFIX}/`);
    next();
  });
  app.useStaticAssets(UPLOT_DIST, { prefix: `${DASHBOARD_PREFIX}/vendor/`, fallthrough: true, maxAge: '1h' });
  app.useStaticAssets(DASHBOARD_DIR, { prefix: `${DASHBOARD_PREFIX}/`, index: 'index.html', fallthrough: true });
}
