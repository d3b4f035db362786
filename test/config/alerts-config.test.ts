/**
 * `alerts:` in gateway.yaml: its defaults, the secret from the environment, and what start-up refuses
 * (each with the field's path, never the secret in the message).
 */
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../config/errors';
import { buildConfig } from '../../config/load';
import { effectiveConfig } from '../../core/reload/effective-config';
import { testConfig } from '../helpers/gateway';

const SECRET = 'whsec-config-0123456789';
const HOOK = { url: 'https://alerts.example.com/budget', secret: '${ALERTS_SECRET}' };

const withAlerts = (alerts: unknown) => ({ ...testConfig('http://127.0.0.1:1', '/tmp/unused'), alerts });

/** The problems start-up reports for this section, as `path: reason` lines. */
function problems(t: Test, alerts: unknown): string[] {
  try {
    buildConfig(withAlerts(alerts), { ALERTS_SECRET: SECRET });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    t.notMatch(e.message, SECRET, 'the secret is not in the message');
    return e.problems.map((p) => `${p.path}: ${p.reason}`);
  }
  return [];
}

t.test('absent: off, with the documented defaults', (t) => {
  const { alerts } = buildConfig(testConfig('http://127.0.0.1:1', '/tmp/unused'), {});
  t.strictSame(alerts, {
    thresholds: [50, 80, 100],
    webhooks: [],
    retry: { attempts: 6, first: 1_000, max: 300_000 },
    timeout: 5_000,
  });
  t.end();
});

t.test('a webhook: the secret from the environment, both subjects, thresholds sorted once each', (t) => {
  const { alerts } = buildConfig(
    withAlerts({
      thresholds: [100, 75, 75],
      webhooks: [HOOK, { ...HOOK, subjects: ['team'], thresholds: [120, 90] }],
      retry: { attempts: 3, first: '500ms', max: '1m' },
      timeout: '2s',
    }),
    { ALERTS_SECRET: SECRET },
  );
  t.strictSame(alerts.thresholds, [75, 100]);
  t.strictSame(alerts.webhooks[0], { url: HOOK.url, secret: SECRET, subjects: ['key', 'team'] });
  t.strictSame(alerts.webhooks[1]?.thresholds, [90, 120]);
  t.strictSame(alerts.retry, { attempts: 3, first: 500, max: 60_000 });
  t.equal(alerts.timeout, 2_000);
  t.end();
});

t.test('start-up refuses bad alerts, naming the field', (t) => {
  const cases: [unknown, RegExp][] = [
    [{ thresholds: [0] }, /^alerts\.thresholds\[0\]: Too small/],
    [{ thresholds: [1001] }, /^alerts\.thresholds\[0\]: Too big/],
    [{ thresholds: [] }, /^alerts\.thresholds: Too small/],
    [{ webhooks: [{ ...HOOK, url: 'ftp://alerts.example.com' }] }, /^alerts\.webhooks\[0\]\.url: /],
    [{ webhooks: [{ ...HOOK, secret: 'short' }] }, /^alerts\.webhooks\[0\]\.secret: must be at least 16/],
    [{ webhooks: [{ ...HOOK, subjects: ['user'] }] }, /^alerts\.webhooks\[0\]\.subjects\[0\]: /],
    [{ webhooks: [{ ...HOOK, subjects: [] }] }, /^alerts\.webhooks\[0\]\.subjects: Too small/],
    [{ webhooks: [{ ...HOOK, extra: 1 }] }, /^alerts\.webhooks\[0\]: Unrecognized key/],
    [{ retry: { attempts: 0 } }, /^alerts\.retry\.attempts: Too small/],
    [{ retry: { first: '10s', max: '1s' } }, /^alerts\.retry\.max: must be at least retry\.first/],
    [{ timeout: 0 }, /^alerts\.timeout: Too small/],
    [{ webhook: [] }, /^alerts: Unrecognized key/],
  ];
  for (const [alerts, reason] of cases)
    t.match(problems(t, alerts).join('\n'), reason, JSON.stringify(alerts));
  t.end();
});

const ROOT = join(__dirname, '../../..');

t.test("the documented alerts blocks load: docs/configuration.md's and gateway.yaml's, uncommented", (t) => {
  const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const documented = /```yaml\n(alerts:[\s\S]*?)```/.exec(page)?.[1];
  const shipped = /^(# alerts:\n(?:# {3}.*\n)+)/m
    .exec(readFileSync(join(ROOT, 'gateway.yaml'), 'utf8'))?.[1]
    ?.replace(/^# /gm, '');
  for (const [where, text] of [
    ['docs/configuration.md', documented],
    ['gateway.yaml', shipped],
  ] as const) {
    t.ok(text, `${where} has an alerts block`);
    const { alerts } = parseYaml(text ?? '') as { alerts: unknown };
    const config = buildConfig(withAlerts(alerts), { ALERTS_WEBHOOK_SECRET: SECRET });
    t.equal(config.alerts.webhooks[0]?.secret, SECRET, `${where}: loads, its secret from the environment`);
  }
  t.end();
});

t.test('a reload that changes alerts applies at the next restart', (t) => {
  const running = buildConfig(withAlerts({ webhooks: [HOOK] }), { ALERTS_SECRET: SECRET });
  const file = buildConfig(withAlerts({ webhooks: [HOOK], thresholds: [90] }), { ALERTS_SECRET: SECRET });
  const { config, restartRequired } = effectiveConfig(running, file);
  t.same(restartRequired, ['alerts.thresholds']);
  t.same(config.alerts.thresholds, [50, 80, 100], 'the running thresholds stay');
  t.end();
});
