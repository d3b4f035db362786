/**
 * The gateway's log as a deployment sees it: a real process whose stdout is a file, logging an access
 * line per request under load, then going quiet.
 */
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../helpers/gateway';

const LOGGER = join(__dirname, '..', '..', '..', 'core', 'base', 'logger.js');

/**
 * Logs in bursts for as many ms as its argument says (the destination kept writing, as under steady load),
 * then one `quiet` line, shorter than the 4 KB the logger buffers before writing; a second later it says
 * `checkpoint` on stderr and waits for the parent before exiting. That second is the subject (a quiet line
 * is written within it, nothing else logged to push it out), so it stays a timer; it runs on the child's
 * own event loop, where the logger's flush, due sooner, always fires first however the machine stalls.
 */
const CHILD = `
const { createLogger } = require(${JSON.stringify(LOGGER)});
const logger = createLogger('info');
// An access line's fields, as core/observability/access-log.ts writes them.
const line = { method: 'POST', path: '/v1/chat/completions', status: 200, outcome: 'ok', model: 'modela-5.5',
  upstream: 'modela-main', key_id: 'key_0123456789', duration_ms: 12.3, gateway_ms: 0.4, upstream_ms: 11.9,
  bytes_in: 90, bytes_out: 812, prompt_tokens: 3, completion_tokens: 12 };
const until = Date.now() + Number(process.argv[1]);
let n = 0;
const burst = () => {
  for (let i = 0; i < 20; i++) logger.info({ ...line, request_id: 'req_' + n++ }, 'request');
  if (Date.now() < until) return setImmediate(burst);
  logger.info({ lines: n }, 'quiet');
  setTimeout(() => { process.stderr.write('checkpoint\\n'); process.stdin.once('data', () => process.exit(0)); }, 1000);
};
burst();
`;

t.test('under steady load, then quiet: every line written, the quiet one within a second', async (t) => {
  const file = join(await tempDir(t), 'stdout.log');
  const out = openSync(file, 'w');
  const child = spawn(process.execPath, ['-e', CHILD, '2600'], { stdio: ['pipe', out, 'pipe'] });
  closeSync(out);
  t.teardown(() => child.kill('SIGKILL'));
  // stdout is a file descriptor, so the typings cannot tell that the other two are pipes.
  const [stdin, stderrPipe] = [child.stdin!, child.stderr!];
  let stderr = '';
  stderrPipe.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    stderrPipe.on('data', (d: string) => {
      stderr += d;
      if (stderr.includes('checkpoint')) resolve();
    });
    child.once('exit', () => reject(new Error(`the child exited early: ${stderr}`)));
  });
  // Still running: what is in the file now was written by the logger's own flushing, not at exit.
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const quiet = JSON.parse(lines[lines.length - 1]!) as { msg: string; lines: number };
  t.equal(quiet.msg, 'quiet', 'the last line logged is in the file a second later');
  t.equal(lines.length, quiet.lines + 1, `all ${quiet.lines} access lines are in the file, in one piece`);
  t.notMatch(stderr, /MaxListenersExceededWarning/, 'no listener piles up on the destination');
  stdin.end('exit\n');
});

/** Logs `n` lines, then ends as `how` says: an exit at once, or an uncaught exception. */
const ENDING = `
const { createLogger } = require(${JSON.stringify(LOGGER)});
const logger = createLogger('info');
for (let i = 0; i < 50; i++) logger.info({ request_id: 'req_' + i }, 'request');
if (process.argv[1] === 'throw') setImmediate(() => { throw new Error('boom'); });
else process.exit(0);
`;

t.test(
  'lines still gathered when the process ends are written: an exit, an uncaught exception',
  async (t) => {
    for (const how of ['exit', 'throw']) {
      const file = join(await tempDir(t), 'stdout.log');
      const out = openSync(file, 'w');
      const child = spawn(process.execPath, ['-e', ENDING, how], { stdio: ['ignore', out, 'ignore'] });
      closeSync(out);
      await new Promise((resolve) => child.once('exit', resolve));
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      t.equal(lines.length, 50, `${how}: all 50 lines, none left behind`);
      t.equal((JSON.parse(lines[49]!) as { request_id: string }).request_id, 'req_49', `${how}: in order`);
    }
  },
);

/**
 * Logs more than the 4 KB the logger gathers before handing a chunk on (so the chunk is being written
 * asynchronously), then prints a key as the first start does.
 */
const FIRST_KEY = `
const { createLogger, printAfterLogs } = require(${JSON.stringify(LOGGER)});
const logger = createLogger('info');
for (let i = 0; i < 100; i++) logger.warn({ request_id: 'req_' + i }, 'logged before the key');
printAfterLogs(logger, '\\nFirst start: created API key\\nsk-printed-after-the-log\\n\\n');
`;

t.test('text printed beside the log comes after every line logged before it', async (t) => {
  // A write of its own to stdout overtook a chunk still being written about one start in twenty: ten
  // processes at once give that ordering ten chances to show.
  const outputs = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const child = spawn(process.execPath, ['-e', FIRST_KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      await new Promise((resolve) => child.once('close', resolve));
      return out;
    }),
  );
  for (const out of outputs) {
    const lines = out.trimEnd().split('\n');
    t.equal(lines[lines.length - 1], 'sk-printed-after-the-log', 'the key is the last line');
    t.equal(lines.filter((l) => l.startsWith('{')).length, 100, 'after all 100 log lines');
    t.equal(
      lines.findIndex((l) => l.startsWith('First start')),
      101,
      'with nothing logged after its heading',
    );
  }
});

/** A pretty line as pino-pretty writes it here: local time to the millisecond, then the level. */
const PRETTY = /^\[\d\d:\d\d:\d\d\.\d{3}\] [A-Z]+: /;

/** The output of `code` run as a child process with `args`, its stdout a pipe. */
async function piped(code: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['-e', code, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise((resolve) => child.once('close', resolve));
  return out;
}

/** FIRST_KEY with the format its argument names. */
const FIRST_KEY_AS = FIRST_KEY.replace("createLogger('info')", "createLogger('info', process.argv[1])");

t.test('logging.format pretty in a pipe: pretty lines, no colour, the printed key still last', async (t) => {
  const outputs = await Promise.all(Array.from({ length: 10 }, () => piped(FIRST_KEY_AS, ['pretty'])));
  for (const out of outputs) {
    t.notMatch(out, '\x1b[', 'no colour outside a terminal');
    const lines = out.trimEnd().split('\n');
    const logged = lines.slice(0, 100);
    t.ok(
      logged.every((l, i) => PRETTY.test(l) && l.endsWith(`WARN: [req_${i}] logged before the key`)),
      'all 100 lines pretty, in order, each with its request id',
    );
    t.strictSame(
      lines.slice(100),
      ['', 'First start: created API key', 'sk-printed-after-the-log'],
      'then the key, with nothing logged after its heading',
    );
  }
});

t.test('logging.format pretty: lines still gathered at the end are written, pretty', async (t) => {
  const ending = ENDING.replace("createLogger('info')", "createLogger('info', process.argv[2])");
  for (const how of ['exit', 'throw']) {
    const lines = (await piped(ending, [how, 'pretty'])).trimEnd().split('\n');
    t.equal(lines.length, 50, `${how}: all 50 lines`);
    t.match(lines[49], /INFO: \[req_49\] request$/, `${how}: in order`);
  }
});

/** `script` (util-linux) runs a command on a pseudo-terminal: its stdout is a terminal, as at a shell. */
const hasScript = spawnSync('script', ['--version']).status === 0;
const quoted = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Logs one line, then prints a key, with the format its argument names (`default`: none given). */
const AT_TERMINAL = `
const { createLogger, printAfterLogs } = require(${JSON.stringify(LOGGER)});
const format = process.argv[2];
const logger = format === 'default' ? createLogger('info') : createLogger('info', format);
logger.warn({ request_id: 'req_1' }, 'at a terminal');
printAfterLogs(logger, 'sk-after\\n');
`;

/** What AT_TERMINAL prints when run with `format` on a terminal, its line ends as a file would hold them. */
async function atTerminal(dir: string, format: string): Promise<string> {
  const file = join(dir, 'child.js');
  await writeFile(file, AT_TERMINAL);
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
  delete env.NO_COLOR;
  const command = `${quoted(process.execPath)} ${quoted(file)} ${format}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise((resolve) => child.once('close', resolve));
  return out.replaceAll('\r\n', '\n');
}

t.test(
  'at a terminal: pretty, coloured lines by default; JSON when logging.format says json',
  { skip: !hasScript && 'no `script` (util-linux) to give the child a terminal' },
  async (t) => {
    const dir = await tempDir(t);
    const pretty = (await atTerminal(dir, 'default')).split('\n');
    t.match(pretty[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] /, 'the time first');
    t.match(pretty[0], '\x1b[33mWARN\x1b[39m', 'the level in colour');
    t.match(pretty[0], '[req_1] at a terminal', 'the request id and the message');
    t.strictSame(pretty.slice(1), ['sk-after', ''], 'the key after it, as it was printed');

    const json = (await atTerminal(dir, 'json')).split('\n');
    t.match(JSON.parse(json[0]!), { level: 40, request_id: 'req_1', msg: 'at a terminal' }, 'a JSON line');
    t.strictSame(json.slice(1), ['sk-after', ''], 'then the key');
  },
);
