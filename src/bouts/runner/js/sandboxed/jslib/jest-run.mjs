// Entry of one jest process (one test file): `node jest-run.mjs '<json>'`, started by the trusted
// supervisor. Jest runs in band (tests in this very process, in a vm context) with a config
// built here, never read from the workspace; the verdicts come from the test environment
// (jest-env.mjs), which takes this process's channel once. See docs/javascript.md.
import { createRequire } from 'node:module';
import { firstLine, open } from './channel.mjs';

const send = open();
const exit = process.exit.bind(process);
const cfg = JSON.parse(process.argv[2]);
const here = new URL('.', import.meta.url).pathname;

process.on('unhandledRejection', (reason) => {
  const what = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  send({ type: 'warning', text: `UnhandledPromiseRejection: ${firstLine(what)}` });
});

process.env.BOUTS_DEPS = cfg.deps; // read by jest-env.mjs when jest loads it
const require = createRequire(`${cfg.deps}/`);
const { runCLI } = require('jest');
const config = {
  rootDir: cfg.workspace,
  // Only the pristine tests are scanned: a `__mocks__/` of the submission's is never picked up.
  roots: ['<rootDir>/tests'],
  testPathIgnorePatterns: [],
  testEnvironment: `${here}jest-env.mjs`,
  moduleFileExtensions: ['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'json', 'node'],
  transform: { '\\.[cm]?[jt]sx?$': 'babel-jest' },
  reporters: [], cache: false, watchman: false, injectGlobals: true, setupFiles: [], setupFilesAfterEnv: [],
  testTimeout: cfg.test_timeout_ms, ci: true, snapshotSerializers: [], resetMocks: false, restoreMocks: false,
  automock: false,
};
const argv = {
  _: [cfg.path], $0: 'bouts', config: JSON.stringify(config), runInBand: true, runTestsByPath: true,
  ci: true, cache: false, watchman: false, silent: true, testNamePattern: cfg.pattern ?? undefined,
  passWithNoTests: true, detectOpenHandles: false, forceExit: false, color: false,
};
let code = 0;
try {
  const { results } = await runCLI(argv, [cfg.workspace]);
  for (const file of results.testResults) {
    if (file.testExecError) {
      const err = file.testExecError;
      send({ type: 'file_error', detail: firstLine(err.message ?? err), error_name: 'Error' });
    }
  }
} catch (err) {
  code = 3;
  send({ type: 'file_error', detail: firstLine(err?.message ?? err), error_name: String(err?.name ?? 'Error') });
}
send({ type: 'end' });
exit(code);
