import { z } from 'zod';

/** A seed of a run, an SFT or GRPO config or an eval: a non-negative int32. Each config adds its own `.default(...)`. */
export const SeedSchema = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

/** dtype of a trained model's exported `final/` folder (step checkpoints stay F32 so a resume is exact). */
export const ExportDtypeSchema = z.enum(['F32', 'F16', 'BF16']);
