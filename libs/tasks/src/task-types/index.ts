import type { TaskType } from '@fathom/contracts';
import { countingBuilder } from './counting';
import { extractiveBuilder } from './extractive';
import { multiHopBuilder } from './multi-hop';
import { multiNeedleBuilder } from './multi-needle';
import { niahBuilder } from './niah';
import { trackingBuilder } from './tracking';
import type { TaskTypeBuilder } from './types';

/** The builder of every task type (exhaustive over TaskType). */
export const BUILDERS: Readonly<Record<TaskType, TaskTypeBuilder>> = {
  niah: niahBuilder,
  extractive: extractiveBuilder,
  multi_needle: multiNeedleBuilder,
  counting: countingBuilder,
  tracking: trackingBuilder,
  multi_hop: multiHopBuilder,
};

export type { BuildContext, Insert, Invention, TaskDraft, TaskTypeBuilder, VariantRates } from './types';
