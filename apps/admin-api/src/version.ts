/** The admin API's version, reported in the OpenAPI document. */
export const ADMIN_API_VERSION = '0.1.0';
