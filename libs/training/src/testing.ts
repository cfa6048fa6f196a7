/**
 * @fathom/training/testing — fixtures for tests of code built on the training loop (the services' end-to-end
 * tests): a tiny SFT warm start that trains in about a second, its GRPO config, and the test prompt style. Never
 * imported by production code.
 */
export { TEST_STYLE, TINY_HF_CONFIG, tinyTasks } from './testing/fixtures';
export { sftWarmStart, tinyGrpoConfig, type GrpoFixture } from './grpo/testing/grpo-fixture';
