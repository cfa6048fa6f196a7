import { GrpoConfigSchema, type GrpoConfig } from '@fathom/contracts';

export { GrpoConfigSchema, type GrpoConfig };

/** Parses a partial config into a full one, with defaults; throws a ZodError naming the bad field. */
export function grpoConfig(input: Partial<GrpoConfig> = {}): GrpoConfig {
  return GrpoConfigSchema.parse(input);
}
