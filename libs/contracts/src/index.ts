export * from './task';
export * from './env';
export * from './trajectory';
export * from './reward';
export * from './grpo';
export * from './sft';
