import pkg from '../package.json' with { type: 'json' };

/** The env-service's version, from its package.json. */
export const SERVICE_VERSION: string = pkg.version;
