// The test environment of every jest run: jest's own node environment (from the challenge's
// dependencies) plus the runner's half of the result channel. Jest calls `handleTestEvent`
// synchronously as each test starts and ends, in this process: the start goes to the
// supervisor's watchdog at once (a test stuck in a loop is killed at the per-test timeout), the
// end becomes the test's record, with the fingerprint of the machinery a forger would replace
// and the test's bouts_expect digests. See docs/javascript.md.
import { createRequire } from 'node:module';
import { firstLine, take, takeObserver } from './channel.mjs';
import { installObserver } from './observe.mjs';
import { expectations, install } from './canonical.mjs';
import { baseline, builtins, ownFunctions, processMachinery } from './watch.mjs';

const MATCHERS = Symbol.for('$$jest-matchers-object');

function nodeEnvironment(deps) {
  const require = createRequire(`${deps}/`);
  try {
    return require('jest-environment-node').TestEnvironment;
  } catch {
    return createRequire(require.resolve('jest-config'))('jest-environment-node').TestEnvironment;
  }
}

function fullName(test) {
  const parts = [];
  for (let block = test; block && block.parent; block = block.parent) parts.unshift(block.name);
  return parts.join(' > ');
}

function firstError(errors) {
  const e = errors[0];
  const err = Array.isArray(e) ? (e[0] ?? e[1]) : e;
  return [firstLine(err?.message ?? err), String(err?.name ?? 'Error').slice(0, 100)];
}

function allTests(block, out = []) {
  for (const child of block.children ?? []) {
    if (child.type === 'test') out.push(fullName(child));
    else allTests(child, out);
  }
  return out;
}

// The entry put the dependency directory in the environment before jest loaded this module.
const Base = nodeEnvironment(process.env.BOUTS_DEPS ?? '');
const send = take();

export default class BoutsEnvironment extends Base {
  constructor(config, context) {
    super(config, context);
    // Builtins of both realms: the tests' vm context and this one (node's modules, the process).
    this.recorder = expectations([globalThis, this.global]);
    install(this.global, this.recorder.bouts_expect);
    // The rewritten test file's observations (observe.mjs), on this process's channel: the test
    // realm gets only the observation functions; which test they belong to is said from here.
    this.begin = () => {};
    const observing = process.env.BOUTS_JS_OBSERVE;
    if (observing === '0' || observing === '1') {
      const obs = takeObserver(observing === '1', this.global);
      installObserver(this.global, obs.api);
      this.begin = obs.begin;
    }
    this.watched = () => [
      ...builtins(globalThis), ...builtins(this.global, 'test realm: '), ...processMachinery(process),
      ...ownFunctions(this.global[MATCHERS]?.matchers, 'expect matchers'),
      ['expect', this.global.expect], ['expect.extend', this.global.expect?.extend],
    ];
    this.check = null;
    this.current = null;
  }

  async handleTestEvent(event, state) {
    if (super.handleTestEvent) await super.handleTestEvent(event, state);
    switch (event.name) {
      case 'setup':
        // jest's expect and its matchers exist now; the test file (and so the submission) not yet.
        this.check = baseline(this.watched());
        break;
      case 'run_start':
        send({ type: 'collected', names: allTests(state.rootDescribeBlock) });
        break;
      case 'test_start':
        this.recorder.take();
        this.current = Date.now();
        send({ type: 'start', id: fullName(event.test) });
        this.begin(fullName(event.test));
        break;
      case 'test_done': {
        const errors = event.test.errors ?? [];
        const [detail, errorName] = errors.length ? firstError(errors) : ['', ''];
        const outcome = errors.length === 0 ? 'passed' : /^Exceeded timeout of \d+ ms/.test(detail) ? 'timeout' : 'failed';
        send({
          type: 'result', id: fullName(event.test), outcome, detail, error_name: errorName,
          duration_s: (event.test.duration ?? Date.now() - (this.current ?? Date.now())) / 1000,
          changed: this.check === null ? ['no baseline'] : this.check(this.watched()),
          observations: this.recorder.take(),
        });
        break;
      }
      case 'test_skip':
      case 'test_todo':
        send({ type: 'result', id: fullName(event.test), outcome: 'failed', detail: event.name === 'test_todo' ? 'todo' : 'skipped',
               changed: [], observations: [] });
        break;
      case 'run_finish':
        for (const err of state.unhandledErrors ?? []) send({ type: 'uncaught', text: firstLine(err?.message ?? err) });
        break;
      default:
        break;
    }
  }
}
