/**
 * The kit's checks of what the upstream receives can fail: the kit's run over a family with a wiring
 * mistake (test/fixtures/plugins/miswired) fails, and its output names the mistake, with what the
 * upstream got, while the checks the mistake does not touch still pass. Each run is a child process, as
 * a family's own kit test runs, so its failures are read as its author would read them.
 */
import t from 'tap';
import { join } from 'node:path';
import { copyEnv, run } from '../cli/repo-copy';

const RUN = join(__dirname, 'miswired-run.js');

/** The names of the assertions and subtests that failed in a TAP output. */
const failed = (output: string): string[] =>
  [...output.matchAll(/^\s*not ok \d+ - (.+?)(?: # time=\S+)?$/gm)].map((m) => m[1]!);

const PATH = "the upstream's path and query string";
const KEY = "the client's own API key never reaches the upstream";
const BODY = "the upstream's body";

const MISTAKES = [
  {
    plugin: 'miswired-path',
    fails: [PATH],
    passes: [KEY, BODY, "the upstream's authorization header"],
    shows: /-\/kit-miswired-path\/chat\/completions\n\s*\+\/kit-miswired-path\/chat\n/,
  },
  {
    plugin: 'miswired-key',
    fails: [KEY, "the upstream's authorization header"],
    passes: [PATH, BODY],
    shows: /\+\s+"authorization",/,
  },
  {
    plugin: 'miswired-body',
    fails: [BODY],
    passes: [PATH, KEY, "the upstream's authorization header"],
    shows: /-\s+"model": "kit-upstream-model",\n\s*\+\s+"model": "miswired-body-1",/,
  },
];

for (const mistake of MISTAKES) {
  void t.test(`the kit fails ${mistake.plugin}, naming its mistake`, async (t) => {
    const ran = await run(
      join(__dirname, '..', '..', '..'),
      process.execPath,
      [RUN, mistake.plugin],
      copyEnv(),
    );
    const failures = failed(ran.output);
    t.not(ran.code, 0, 'the run fails', { output: ran.output });
    for (const name of mistake.fails) t.ok(failures.includes(name), `it says: ${name}`, { failures });
    for (const name of mistake.passes) t.notOk(failures.includes(name), `and not: ${name}`, { failures });
    t.match(ran.output, mistake.shows, 'with what the upstream got');
  });
}
