// Prints Jest's totals as one plain line, "<suite>: N passed, N failed", which CI counts.
class SummaryReporter {
  constructor(globalConfig, options) {
    this.label = (options && options.label) || 'tests';
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${this.label}: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`\n${line}\n`);
  }
}

module.exports = SummaryReporter;
