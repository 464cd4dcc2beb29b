// What the tests need beyond node_modules: a Chrome or Chromium for the browser tests and Wireshark's tshark for the
// pcap test, found exactly as the tests find them (test/e2e/browser.ts, test/fixtures/tshark.ts). `npm test` runs this
// first (`npm run setup:test`), and so does .ci/run through npm test.
//
// When one is missing on Debian or Ubuntu and this runs as root or with passwordless sudo, it installs Debian's
// `chromium` and `tshark` with apt-get, non-interactively. Otherwise it stops at once, before anything is built, and
// names the one command to run.
//
//   npx tsx scripts/test-env.ts [--dry-run]
//
// --dry-run finds and decides as usual but runs no command: it prints the ones it would run, and exits as a real run
// would (0 when it would install, 1 when it would stop).
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { findChrome } from '../test/e2e/browser';
import { tsharkPath } from '../test/fixtures/tshark';

const dryRun = process.argv.includes('--dry-run');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--dry-run');
if (unknown.length > 0) {
  console.error(`test-env: unknown argument ${unknown.join(' ')}; the only option is --dry-run`);
  process.exit(2);
}

/** tshark's debconf question (may non-superusers capture packets?) answered no, as the non-interactive default is. */
const TSHARK_DEBCONF = 'wireshark-common wireshark-common/install-setuid boolean false\n';

function say(line: string): void {
  console.log(`test-env: ${line}`);
}

/** Prints the reason and the one command that fixes it, and stops `npm test` before it builds anything. */
function stop(lines: string[]): never {
  console.error(['', ...lines.map((line) => (line === '' ? '' : `test-env: ${line}`)), ''].join('\n'));
  process.exit(1);
}

function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

function found(): { chrome: string | null; tshark: string | null } {
  let chrome: string | null = null;
  let tshark: string | null = null;
  try {
    chrome = findChrome();
  } catch {
    chrome = null;
  }
  try {
    tshark = tsharkPath();
  } catch {
    tshark = null;
  }
  return { chrome, tshark };
}

/** Where a bare command name such as `tshark` is on the PATH, for the log. */
function where(command: string): string {
  if (isAbsolute(command)) return command;
  const dir = (process.env['PATH'] ?? '').split(delimiter).find((d) => d !== '' && existsSync(join(d, command)));
  return dir === undefined ? command : join(dir, command);
}

function version(path: string): string {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 20_000 })
      .split('\n')[0]!
      .trim();
  } catch {
    return 'version unknown';
  }
}

const chromePath = process.env['CHROME_PATH'];
const tsharkOverride = process.env['TSHARK_PATH'];
const before = found();

// A path set by hand that points nowhere is not fixed by installing a package: the tests would still use it.
if (before.chrome === null && chromePath !== undefined && chromePath !== '') {
  stop([
    `CHROME_PATH is set to ${JSON.stringify(chromePath)}, but no file exists there, so the browser tests cannot start.`,
    "Point it at a Chrome or Chromium binary, or unset it so that Debian's chromium is found (or installed):",
    '',
    '    unset CHROME_PATH',
  ]);
}
if (before.tshark === null && tsharkOverride !== undefined) {
  stop([
    `TSHARK_PATH is set to ${JSON.stringify(tsharkOverride)}, but that does not run, so the pcap test cannot read its file.`,
    "Point it at Wireshark's tshark, or unset it so that tshark on the PATH is found (or installed):",
    '',
    '    unset TSHARK_PATH',
  ]);
}

const missing = [...(before.chrome === null ? ['chromium'] : []), ...(before.tshark === null ? ['tshark'] : [])];
if (before.chrome !== null) say(`browser for the e2e tests: ${before.chrome} (${version(before.chrome)})`);
if (before.tshark !== null) say(`pcap reader for the export test: ${where(before.tshark)}`);
if (missing.length === 0) process.exit(0);

const what = missing.map((name) => (name === 'chromium' ? 'Chromium (for the browser tests)' : 'tshark (for the pcap test)')).join(' and ');
const debian = existsSync('/etc/debian_version') && runs('apt-get', ['--version']);
const root = process.getuid?.() === 0;
const sudo = root ? [] : runs('sudo', ['-n', 'true']) ? ['sudo'] : null;

if (!debian) {
  const vars = missing.map((name) => (name === 'chromium' ? 'CHROME_PATH=/path/to/chrome' : 'TSHARK_PATH=/path/to/tshark'));
  stop([
    `This machine lacks ${what}, and it is not Debian or Ubuntu, where they would be installed with apt-get.`,
    'Install Chrome or Chromium, and Wireshark (it brings tshark), then tell the tests where they are:',
    '',
    `    ${vars.join(' ')} npm test`,
  ]);
}
if (sudo === null) {
  stop([
    `This machine lacks ${what}; installing them needs root, and this is not root nor has passwordless sudo.`,
    'Install them once with:',
    '',
    `    sudo apt-get update && sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing.join(' ')}`,
  ]);
}

const steps: { command: string[]; input?: string }[] = [
  ...(missing.includes('tshark') ? [{ command: [...sudo, 'debconf-set-selections'], input: TSHARK_DEBCONF }] : []),
  { command: [...sudo, 'apt-get', 'update'] },
  { command: [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', ...missing] },
];
say(`${what} missing: installing Debian's ${missing.join(' and ')}${dryRun ? ' (dry run: the commands are only printed)' : ''}`);
for (const { command, input } of steps) {
  const shown = `${input === undefined ? '' : `echo '${input.trim()}' | `}${command.join(' ')}`;
  say(`${dryRun ? 'would run' : 'running'}: ${shown}`);
  if (dryRun) continue;
  const options: SpawnSyncOptions = input === undefined ? { stdio: 'inherit' } : { input, stdio: ['pipe', 'inherit', 'inherit'] };
  const result = spawnSync(command[0]!, command.slice(1), options);
  if (result.status !== 0) stop([`${shown} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}).`]);
}
if (dryRun) process.exit(0);

const after = found();
if (after.chrome === null || after.tshark === null) {
  stop([`installed ${missing.join(' and ')}, yet the tests still do not find ${after.chrome === null ? 'a browser' : 'tshark'}.`]);
}
say(`browser for the e2e tests: ${after.chrome} (${version(after.chrome)})`);
say(`pcap reader for the export test: ${where(after.tshark)}`);
