// ESLint 9 flat config. `npm run lint` runs it and `npm test` runs lint, so CI enforces every rule here.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// The simulation (src/sim) is pure and deterministic: the same scenario and seed give the same run in the worker,
// the CLI and the tests. So it reads no clock, sets no timer, draws no chance, and imports nothing of the UI or of Node.
const SIM_CLOCKS_AND_CHANCE = [
  ['setTimeout', 'timers'],
  ['setInterval', 'timers'],
  ['setImmediate', 'timers'],
  ['queueMicrotask', 'timers'],
  ['requestAnimationFrame', 'timers'],
  ['requestIdleCallback', 'timers'],
  ['performance', 'wall clock'],
  ['crypto', 'randomness'],
];
const simGlobals = SIM_CLOCKS_AND_CHANCE.map(([name, what]) => ({
  name,
  message: `src/sim is deterministic: no ${what} (${name}); the simulation's own clock and seeded random are in src/sim/core.`,
}));
// The same names reached through a global object (globalThis.setTimeout, self.crypto, window.performance).
const simGlobalProperties = ['globalThis', 'self', 'window', 'global'].flatMap((object) =>
  [...SIM_CLOCKS_AND_CHANCE.map(([name]) => name), 'Date', 'Math'].map((property) => ({
    object,
    property,
    message: `src/sim is deterministic: no ${property} through ${object}.`,
  })),
);
const simImportPatterns = [
  {
    regex: '^(react|d3)',
    message: 'src/sim runs in the worker, the CLI and tests: it imports no UI library (react*, d3*).',
  },
  {
    regex: '^(zustand|comlink)(/|$)',
    message: 'src/sim runs in the worker, the CLI and tests: it imports no store or worker plumbing.',
  },
  { regex: '^node:', message: 'src/sim runs in the browser too: it imports no Node builtin.' },
  {
    regex: '^(\\.\\./)+(ui|state|worker|cli)(/|$)',
    message: 'src/sim imports nothing from src/ui, src/state, src/worker or src/cli: they import it, not the other way round.',
  },
];
const nodeBuiltins = builtinModules.map((name) => ({ name, message: 'src/sim runs in the browser too: it imports no Node builtin.' }));

// The simulation's one way in: src/sim/index.ts, imported as the directory ('../sim', '../../sim') or '.../sim/index'.
const SIM_DEEP_IMPORT = '^(\\.{1,2}/)+sim/(?!index$)';
const simDeepImport = {
  regex: SIM_DEEP_IMPORT,
  message: "Import the simulation only through its public module src/sim/index.ts: '../sim', not a file under it.",
};
const noDynamicDeepSimImport = {
  selector: `ImportExpression[source.value=/${SIM_DEEP_IMPORT.replaceAll('/', '\\/')}/]`,
  message: "Import the simulation only through its public module src/sim/index.ts: '../sim', not a file under it.",
};
const layer = (dir) => ({
  regex: `^(\\.\\./)+${dir}(/|$)`,
  message: `This layer does not import src/${dir}.`,
});

export default defineConfig([
  { ignores: ['dist/', 'node_modules/', 'public/', 'test-results/', 'tmp/', 'test/e2e/__screenshots__/'] },

  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The code indexes typed arrays and tuples under noUncheckedIndexedAccess and asserts with `!` where the index is
      // known to be in range; that is the deliberate style, not a smell.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // A parameter that an interface's callback must take but this implementation does not use is named _token, _cause.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },

  // src/sim: deterministic and self-contained.
  {
    files: ['src/sim/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', ...simGlobals],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'src/sim is deterministic: use the seeded random in src/sim/core, not Math.random.' },
        { object: 'Date', property: 'now', message: "src/sim is deterministic: use the simulation's clock, not Date.now." },
        { object: 'performance', property: 'now', message: "src/sim is deterministic: use the simulation's clock, not performance.now." },
        ...simGlobalProperties,
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date']", message: "src/sim is deterministic: use the simulation's clock, not new Date." },
        { selector: "CallExpression[callee.name='Date']", message: "src/sim is deterministic: use the simulation's clock, not Date()." },
        { selector: 'ImportExpression', message: 'src/sim loads no module at run time.' },
      ],
      'no-restricted-imports': ['error', { paths: nodeBuiltins, patterns: simImportPatterns }],
    },
  },

  // The layers around the simulation: ui → state → worker, each importing only inward.
  {
    files: ['src/state/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('ui')] }] },
  },
  {
    files: ['src/worker/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('ui'), layer('state')] }] },
  },
  {
    files: ['src/*.{ts,tsx}', 'src/{ui,state,worker,cli}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': ['error', noDynamicDeepSimImport],
      // The simulation's one way in is src/sim/index.ts. typescript-eslint's copy of no-restricted-imports, so that
      // it adds to the layer rule above instead of replacing it for the files both match.
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [simDeepImport] }],
    },
  },

  // React's rules of hooks for the UI (and the stores' hooks), with the plugin's React Compiler checks that fit.
  {
    files: ['src/**/*.tsx', 'src/ui/**/*.ts', 'src/state/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
      'react-hooks/incompatible-library': 'error',
      'react-hooks/unsupported-syntax': 'error',
      // The UI keeps the latest callback in a ref assigned during render (menu, topology search) and resets a ref
      // lazily in render (seek progress): valid React 19 without the React Compiler, which this app does not use.
      'react-hooks/refs': 'off',
      'react-hooks/immutability': 'off', // the same latest-callback refs, seen as a value modified after render
      'react-hooks/preserve-manual-memoization': 'off', // matters only to the React Compiler, which this app does not use
      // Two effects clear local state when their trigger changes (layout's shown tab, compare summary); rewriting them
      // as derived state would change when the UI updates, for no bug.
      'react-hooks/set-state-in-effect': 'off',
    },
  },
]);
