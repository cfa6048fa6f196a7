export * from './task';
export * from './trajectory';
export * from './reward';
export * from './grpo';
