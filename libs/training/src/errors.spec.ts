import { FathomError } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { TrainingError } from './errors';

describe('TrainingError', () => {
  it('names the trainer whose config or data failed', () => {
    expect(new TrainingError('INVALID_CONFIG', 'lr: too big', { trainer: 'SFT' }).message).toBe(
      'invalid SFT config: lr: too big',
    );
    expect(new TrainingError('INVALID_CONFIG', 'beta: negative', { trainer: 'GRPO' }).message).toBe(
      'invalid GRPO config: beta: negative',
    );
    expect(new TrainingError('NO_DATA', 'tasks.jsonl has no tasks', { trainer: 'GRPO' }).message).toBe(
      'no usable GRPO data: tasks.jsonl has no tasks',
    );
    expect(new TrainingError('NO_DATA', 'a sampler over 0 items').message).toBe(
      'no usable training data: a sampler over 0 items',
    );
  });

  it('is a FathomError with the trainer and the unit of work kept apart from the message', () => {
    const error = new TrainingError('DIVERGED', 'step 7: loss NaN', { trainer: 'GRPO', step: 7 });
    expect(error).toBeInstanceOf(FathomError);
    expect(error).toMatchObject({ name: 'TrainingError', code: 'DIVERGED', trainer: 'GRPO' });
    expect(error.context).toEqual({ step: 7 });
    expect(error.message).toBe('training diverged: step 7: loss NaN');
  });
});
