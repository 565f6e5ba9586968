// The cluster suites share one cluster: they run in name order, so that service.cluster-spec.ts,
// whose last test fails the primary over (no replica is left after it), runs last.
const Sequencer = require('@jest/test-sequencer').default;

class ByName extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }
}

module.exports = ByName;
