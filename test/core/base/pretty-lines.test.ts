import t from 'tap';
import { prettyLines } from '../../../core/base/pretty-lines';

/** A time's local HH:MM:ss.l, as a person's clock shows it. */
const localTime = (ms: number): string => {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

const TIME = Date.UTC(2026, 10, 29, 13, 4, 5, 67);

t.test('a log line: local time, level, request id, message, the other fields on the same line', (t) => {
  const render = prettyLines(false);
  const access = JSON.stringify({
    level: 30,
    time: TIME,
    pid: 7,
    hostname: 'box',
    request_id: 'req_1',
    method: 'POST',
    status: 200,
    msg: 'request',
  });
  t.equal(
    render(`${access}\n`),
    `[${localTime(TIME)}] INFO: [req_1] request {"method":"POST","status":200}\n`,
    'pid and hostname left out, the request id before the message',
  );
  const warning = JSON.stringify({ level: 40, time: TIME, msg: 'listening on every interface' });
  t.equal(
    render(`${warning}\n`),
    `[${localTime(TIME)}] WARN: listening on every interface\n`,
    'no id, none shown',
  );
  t.end();
});

t.test('text that is not a log line passes through as it is, in its place', (t) => {
  const render = prettyLines(false);
  const line = JSON.stringify({ level: 30, time: TIME, msg: 'started' });
  const key = '\nFirst start: created API key k (shown once, keep it):\nsk-abc\n\n';
  const out = render(`${line}\n${key}`);
  t.equal(
    out,
    `[${localTime(TIME)}] INFO: started\n${key}`,
    'the key, its heading and blank lines unchanged',
  );
  t.end();
});

t.test('an error keeps its stack on lines of its own', (t) => {
  const line = JSON.stringify({
    level: 50,
    time: TIME,
    err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at here (x.js:1:1)' },
    msg: 'boom',
  });
  const out = prettyLines(false)(`${line}\n`);
  t.match(out, /^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: boom *\n/);
  t.match(out, /\n\s+Error: boom\n\s+at here \(x\.js:1:1\)/);
  t.end();
});

t.test('colour only when asked for', (t) => {
  const line = `${JSON.stringify({ level: 40, time: TIME, msg: 'careful' })}\n`;
  t.notMatch(prettyLines(false)(line), '\x1b[', 'none without');
  t.match(prettyLines(true)(line), '\x1b[33mWARN\x1b[39m', 'the level in its colour with');
  t.end();
});
