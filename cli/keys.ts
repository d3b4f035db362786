/**
 * `npm run keys -- <command>`: manage API keys through the running gateway's admin API.
 *   create [--description TEXT] [--models m1,m2] [--allowed-tools t1,s__*] [--guardrails g1,g2]
 *          [--rpm N] [--tpm N] [--concurrent N]              prints the full key, alone, on its last line
 *   update <id> [the same options]                           changes only the settings given; an empty
 *                                                            --models allows every model, an empty
 *                                                            --allowed-tools every MCP tool, an empty
 *                                                            --guardrails opts out of every guardrail
 *   list                                                     stored keys, then those declared in gateway.yaml
 *   disable <id> | enable <id> | delete <id>                 <id> is the key's visible prefix (sk-XXXXXXXX)
 *   hash [<secret>]   the hash of a key to declare in gateway.yaml (`keys.declared[].hash`), computed with
 *                     this gateway's key secret; the secret is read from stdin when not given
 */
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { configPath, loadConfigFile } from '../config/load';
import { KeyHasher, looksLikeKey } from '../core/keys/api-key';
import type { CreatedKey, KeyWithActivity, List, Page, PublicKey } from '../core/admin/wire';
import { KEY_SECRET_FILE, readSecret } from '../core/keys/secrets';
import { AdminError, connectAdmin, type AdminClient } from './admin-client';

const USAGE = `usage: npm run keys -- create [--description TEXT] [--models m1,m2]
                                 [--allowed-tools demo__add,search__*] [--guardrails g1,g2]
                                 [--rpm N] [--tpm N] [--concurrent N]
       npm run keys -- update <key id> [the same options]
       npm run keys -- list
       npm run keys -- disable|enable|delete <key id>
       npm run keys -- hash [<secret>]`;

type Command = (admin: AdminClient, args: string[]) => Promise<void>;

const describe = (k: PublicKey): string =>
  [
    k.id.padEnd(12),
    k.status.padEnd(9),
    (k.allowed_models.length ? k.allowed_models.join(',') : 'all models').padEnd(24),
    (k.allowed_tools?.join(',') ?? 'all tools').padEnd(16),
    (k.guardrails?.join(',') ?? 'no guardrails').padEnd(16),
    k.rate_limit_rpm ? `${k.rate_limit_rpm}/min`.padEnd(10) : 'default'.padEnd(10),
    k.created_at,
    k.description,
  ].join('  ');

/** The settings `create` and `update` take, as options. */
const SETTINGS = {
  description: { type: 'string' },
  models: { type: 'string' },
  'allowed-tools': { type: 'string' },
  guardrails: { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  concurrent: { type: 'string' },
} as const;

const names = (list: string): string[] =>
  list
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);

/** The admin API body for the options given (an option left out changes nothing). */
function settingsBody(args: string[]): { body: Record<string, unknown>; positionals: string[] } {
  const { values, positionals } = parseArgs({ args, options: SETTINGS, allowPositionals: true });
  const body = {
    ...(values.description !== undefined ? { description: values.description } : {}),
    ...(values.models !== undefined ? { allowed_models: names(values.models) } : {}),
    ...(values['allowed-tools'] !== undefined ? { allowed_tools: names(values['allowed-tools']) } : {}),
    ...(values.guardrails !== undefined ? { guardrails: names(values.guardrails) } : {}),
    ...(values.rpm ? { rate_limit_rpm: Number(values.rpm) } : {}),
    ...(values.tpm ? { rate_limit_tpm: Number(values.tpm) } : {}),
    ...(values.concurrent ? { max_concurrent: Number(values.concurrent) } : {}),
  };
  return { body, positionals };
}

const commands: Record<string, Command> = {
  async create(admin, args) {
    const { body, positionals } = settingsBody(args);
    if (positionals.length > 0) throw new AdminError(USAGE);
    const created = await admin.call<CreatedKey>('POST', '/admin/keys', body);
    process.stdout.write(
      `created ${describe(created.record)}\nthe key is shown once; keep it:\n${created.key}\n`,
    );
  },
  async update(admin, args) {
    const { body, positionals } = settingsBody(args);
    if (positionals.length !== 1) throw new AdminError(USAGE);
    const id = encodeURIComponent(positionals[0]!);
    const record = await admin.call<PublicKey>('PATCH', `/admin/keys/${id}`, body);
    process.stdout.write(`updated ${describe(record)}\n`);
  },
  async list(admin) {
    let cursor: string | null = null;
    let shown = 0;
    do {
      const page: Page<KeyWithActivity> = await admin.call(
        'GET',
        `/admin/keys?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const k of page.data) process.stdout.write(`${describe(k)}\n`);
      shown += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    const declared = await admin.call<List<KeyWithActivity>>('GET', '/admin/keys/declared');
    for (const k of declared.data) process.stdout.write(`${describe(k)}  (declared in gateway.yaml)\n`);
    if (shown + declared.data.length === 0) process.stdout.write('no keys\n');
  },
  disable: (admin, args) => change(admin, 'POST', args, 'disable'),
  enable: (admin, args) => change(admin, 'POST', args, 'enable'),
  delete: (admin, args) => change(admin, 'DELETE', args, ''),
};

async function change(admin: AdminClient, method: string, args: string[], action: string): Promise<void> {
  const id = args[0];
  if (!id) throw new AdminError(USAGE);
  const record = await admin.call<PublicKey>(
    method,
    `/admin/keys/${encodeURIComponent(id)}${action ? `/${action}` : ''}`,
  );
  process.stdout.write(`${action || 'deleted'}${action ? 'd' : ''} ${describe(record)}\n`);
}

/** Needs no running gateway: only its key secret (GATEWAY_KEY_SECRET, else `<data_dir>/key-secret`). */
async function hash(args: string[]): Promise<void> {
  const key = (args[0] ?? (await text(process.stdin))).trim();
  if (!looksLikeKey(key)) throw new AdminError("a key is 'sk-' + 32 to 128 letters, digits, '-' or '_'");
  const fromEnv = process.env.GATEWAY_KEY_SECRET;
  // The configuration only says where the data directory is, so it is not read when the secret is set.
  const dataDir = fromEnv ? '' : loadConfigFile(configPath()).storage.data_dir;
  const secret = await readSecret(dataDir, KEY_SECRET_FILE, fromEnv);
  if (!secret) {
    throw new AdminError(
      `no key secret: set GATEWAY_KEY_SECRET or start the gateway once (it writes ${dataDir}/${KEY_SECRET_FILE})`,
    );
  }
  process.stdout.write(`${new KeyHasher(Buffer.from(secret)).hash(key)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === 'hash') return hash(args);
  const command = name ? commands[name] : undefined;
  if (!command) throw new AdminError(USAGE);
  await command(await connectAdmin(), args);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof AdminError ? e.message : String(e)}\n`);
  process.exit(1);
});
