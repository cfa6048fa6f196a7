// Prints the closing line "N passed, N failed" from Vitest's JSON report. Before it, when tests were skipped
// because a system dependency is missing (their titles start with "SKIPPED (missing dependency):"), a loud
// block names each of them and counts them, so a skip is never silent.
import { readFileSync, existsSync } from 'node:fs';

const MISSING_DEPENDENCY = 'SKIPPED (missing dependency):';

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
const skippedForDependencies = report.testResults.flatMap((suite) =>
  suite.assertionResults
    .filter((test) => ['skipped', 'pending'].includes(test.status) && test.title.startsWith(MISSING_DEPENDENCY))
    .map((test) => test.title.slice(MISSING_DEPENDENCY.length).trim()),
);
if (skippedForDependencies.length > 0) {
  console.log(`\n!!! ${skippedForDependencies.length} test group(s) SKIPPED for a missing system dependency:`);
  for (const reason of skippedForDependencies) console.log(`!!!   - ${reason}`);
  console.log(`!!! ${report.numPendingTests} test(s) skipped in all\n`);
}
const failed = report.numFailedTests + failedSuites.length;
console.log(`${report.numPassedTests} passed, ${failed} failed`);
