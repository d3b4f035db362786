/**
 * The real-vendor recipe, taken from docs/configuration.md itself: with its variables and the shipped
 * gateway.yaml unedited, every upstream points at its vendor with the vendor's own header names, and no
 * upstream is left at the simulator.
 */
import 'reflect-metadata';
import '../helpers/load-plugins';
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfigFile } from '../../config/load';
import { simulatorLeftovers } from '../../core/upstream/simulator-leftovers';

const ROOT = join(__dirname, '../../..');

/** The `gateway.env` block of "Pointing at real vendors" (docs/configuration.md), as variables. */
function recipe(): Record<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const block = /```sh\n# gateway\.env[^\n]*\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/configuration.md: no gateway.env block');
  const env: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const match = /^([A-Z][A-Z0-9_]*)=(\S+)$/.exec(line);
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

t.test('the docs/configuration.md recipe points every upstream of the shipped file at its vendor', (t) => {
  const env = recipe();
  const config = loadConfigFile(join(ROOT, 'gateway.yaml'), env);
  t.equal(config.simulator.enabled, false);
  const missing = simulatorLeftovers(config).flatMap((leftover) => leftover.set);
  t.strictSame(
    missing,
    [],
    `no upstream left at the simulator: add ${missing.join(', ')} to the gateway.env block of ` +
      'docs/configuration.md (Pointing at real vendors)',
  );
  for (const [name, entry] of Object.entries(config.upstreams)) {
    t.match(entry.base_url, /^https:\/\//, `${name}: a vendor's https address`);
    t.notMatch(entry.api_key, /^sim-/, `${name}: not the simulator's key`);
  }
  const { upstreams } = config;
  t.strictSame(upstreams['modeld-main']!.version_header, { name: 'anthropic-version', value: '2023-06-01' });
  t.strictSame(upstreams['videoa-main']!.submit_headers, { 'X-DashScope-Async': 'enable' });
  t.equal(upstreams['videoa-main']!.base_url, 'https://dashscope-intl.aliyuncs.com');
  t.equal(upstreams['videob-main']!.base_url, 'https://ark.cn-beijing.volces.com/api/v3');
  t.end();
});

t.test('without the recipe, the shipped file keeps the simulator and its header names', (t) => {
  const config = loadConfigFile(join(ROOT, 'gateway.yaml'), {});
  const { upstreams } = config;
  t.strictSame(upstreams['modeld-main']!.version_header, { name: 'modeld-version', value: '2023-06-01' });
  t.strictSame(upstreams['videoa-main']!.submit_headers, { 'x-nativea-async': 'enable' });
  t.equal(upstreams['videoa-main']!.base_url, 'http://127.0.0.1:9100/videoa');
  t.end();
});
