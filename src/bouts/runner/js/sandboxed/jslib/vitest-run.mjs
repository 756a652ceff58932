// Entry of one vitest process (one test file): `node vitest-run.mjs '<json>'`, started by the
// trusted supervisor with no config file at all (`config: false`): what vitest does is decided
// here, never by a file in the workspace. Tests run in vitest's forked worker; the verdicts reach
// the supervisor from this main process, which runs no submission code, stamped with the nonce
// it read before loading vitest. See docs/javascript.md.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { firstLine, open, workerNonce } from './channel.mjs';

const send = open();
const exit = process.exit.bind(process);
const cfg = JSON.parse(process.argv[2]);
const here = new URL('.', import.meta.url).pathname;

function verdict(testCase) {
  const r = testCase.result();
  if (r.state === 'passed') return ['passed', '', ''];
  if (r.state === 'skipped') return ['failed', `skipped${r.note ? `: ${r.note}` : ''}`, ''];
  if (r.state === 'pending') return ['failed', 'not run', ''];
  const err = r.errors?.[0] ?? {};
  const detail = firstLine(err.message ?? err);
  const name = String(err.name ?? 'Error').slice(0, 100);
  return [/^Test timed out in \d+ms/.test(detail) ? 'timeout' : 'failed', detail, name];
}

class BoutsReporter {
  onTestModuleCollected(mod) {
    send({ type: 'collected', names: Array.from(mod.children.allTests(), (t) => t.fullName) });
  }

  onTestCaseResult(testCase) {
    const [outcome, detail, errorName] = verdict(testCase);
    const bouts = testCase.meta()?.bouts;
    send({
      type: 'result', id: testCase.fullName, outcome, detail, error_name: errorName,
      duration_s: (testCase.diagnostic()?.duration ?? 0) / 1000,
      // The worker's fingerprint (vitest-setup.mjs); none on a passed test is itself a finding.
      changed: Array.isArray(bouts?.changed) ? bouts.changed.map(String) : ['no fingerprint'],
      observations: Array.isArray(bouts?.digests) ? bouts.digests.map(String) : [],
    });
  }

  onTestModuleEnd(mod) {
    const errors = mod.errors();
    if (errors.length > 0) {
      send({ type: 'file_error', detail: firstLine(errors[0].message), error_name: String(errors[0].name ?? 'Error') });
    }
  }

  onTestRunEnd(_modules, unhandled) {
    for (const e of unhandled) {
      const text = `${e.name ?? 'Error'}: ${firstLine(e.message)}`;
      if (/rejection/i.test(String(e.type ?? ''))) send({ type: 'warning', text: `UnhandledPromiseRejection: ${text}` });
      else send({ type: 'uncaught', text });
    }
  }
}

const require = createRequire(`${cfg.deps}/`);
const { startVitest } = await import(pathToFileURL(require.resolve('vitest/node')).href);
const options = {
  config: false, root: cfg.workspace, dir: cfg.workspace, include: [cfg.file.replace(/[*?[\]{}()!+@]/g, '\\$&')], watch: false,
  reporters: [new BoutsReporter()], setupFiles: [`${here}vitest-setup.mjs`], globals: true,
  testTimeout: cfg.test_timeout_ms, hookTimeout: cfg.test_timeout_ms, teardownTimeout: 1000,
  testNamePattern: cfg.pattern ?? undefined, pool: 'forks', maxWorkers: 1, fileParallelism: false,
  isolate: true, passWithNoTests: true, allowOnly: true, cache: false, css: false, update: false,
  execArgv: [`--max-old-space-size=${cfg.heap_mb}`, '--v8-pool-size=2', '--disable-wasm-trap-handler'], environment: 'node',
  sequence: { hooks: 'stack', shuffle: false }, coverage: { enabled: false }, typecheck: { enabled: false },
  // The worker's observations (vitest-setup.mjs) are stamped with this process's nonce.
  provide: { boutsNonce: workerNonce() },
};
const vite = {
  configFile: false, envDir: here, cacheDir: '/tmp/bouts-vite-cache', logLevel: 'silent', clearScreen: false,
  // No name lookups (the sandbox has no resolver) and nothing served: vitest only transforms.
  server: { host: '127.0.0.1', watch: null, ws: false, fs: { strict: false } },
};
let failure = null;
try {
  const vitest = await startVitest('test', [], options, vite);
  await vitest?.close();
} catch (err) {
  failure = err;
  send({ type: 'file_error', detail: firstLine(err?.message ?? err), error_name: String(err?.name ?? 'Error') });
}
send({ type: 'end' });
exit(failure === null ? 0 : 3);
