// Prints the closing line "N passed, N failed" from Vitest's JSON report.
import { readFileSync, existsSync } from 'node:fs';

const file = process.argv[2];
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  console.error(`test-summary: no report at ${file} (the test runner did not finish)`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const failedSuites = report.testResults.filter(
  (suite) => suite.status === 'failed' && suite.assertionResults.length === 0,
);
const failed = report.numFailedTests + failedSuites.length;
console.log(`${report.numPassedTests} passed, ${failed} failed`);
