/**
 * `npm run keys -- <command>`: manage API keys through the running gateway's admin API.
 *   create [--description TEXT] [--models m1,m2] [--rpm N]   prints the full key, alone, on its last line
 *   list
 *   disable <id> | enable <id> | delete <id>                 <id> is the key's visible prefix (sk-XXXXXXXX)
 */
import { parseArgs } from 'node:util';
import type { KeyRecord } from '../core/stores/key-store';
import type { CreatedKey } from '../core/keys/key-service';
import { AdminError, connectAdmin, type AdminClient } from './admin-client';

const USAGE = `usage: npm run keys -- create [--description TEXT] [--models m1,m2] [--rpm N]
       npm run keys -- list
       npm run keys -- disable|enable|delete <key id>`;

type Command = (admin: AdminClient, args: string[]) => Promise<void>;

const describe = (k: KeyRecord): string =>
  [
    k.id.padEnd(12),
    (k.enabled ? 'enabled' : 'disabled').padEnd(9),
    (k.allowed_models.length ? k.allowed_models.join(',') : 'all models').padEnd(24),
    k.rate_limit_rpm ? `${k.rate_limit_rpm}/min`.padEnd(10) : 'default'.padEnd(10),
    k.created_at,
    k.description,
  ].join('  ');

const commands: Record<string, Command> = {
  async create(admin, args) {
    const { values } = parseArgs({
      args,
      options: { description: { type: 'string' }, models: { type: 'string' }, rpm: { type: 'string' } },
    });
    const body = {
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.models
        ? {
            allowed_models: values.models
              .split(',')
              .map((m) => m.trim())
              .filter(Boolean),
          }
        : {}),
      ...(values.rpm ? { rate_limit_rpm: Number(values.rpm) } : {}),
    };
    const created = await admin.call<CreatedKey>('POST', '/admin/keys', body);
    process.stdout.write(
      `created ${describe(created.record)}\nthe key is shown once; keep it:\n${created.key}\n`,
    );
  },
  async list(admin) {
    const { data } = await admin.call<{ data: KeyRecord[] }>('GET', '/admin/keys');
    if (data.length === 0) process.stdout.write('no keys\n');
    for (const k of data) process.stdout.write(`${describe(k)}\n`);
  },
  disable: (admin, args) => change(admin, 'POST', args, 'disable'),
  enable: (admin, args) => change(admin, 'POST', args, 'enable'),
  delete: (admin, args) => change(admin, 'DELETE', args, ''),
};

async function change(admin: AdminClient, method: string, args: string[], action: string): Promise<void> {
  const id = args[0];
  if (!id) throw new AdminError(USAGE);
  const record = await admin.call<KeyRecord>(
    method,
    `/admin/keys/${encodeURIComponent(id)}${action ? `/${action}` : ''}`,
  );
  process.stdout.write(`${action || 'deleted'}${action ? 'd' : ''} ${describe(record)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) throw new AdminError(USAGE);
  await command(await connectAdmin(), args);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof AdminError ? e.message : String(e)}\n`);
  process.exit(1);
});
