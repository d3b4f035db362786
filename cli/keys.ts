/**
 * `npm run keys -- <command>`: manage API keys through the running gateway's admin API.
 *   create [--description TEXT] [--models m1,m2] [--rpm N] [--tpm N] [--concurrent N]
 *                                                            prints the full key, alone, on its last line
 *   list
 *   disable <id> | enable <id> | delete <id>                 <id> is the key's visible prefix (sk-XXXXXXXX)
 */
import { parseArgs } from 'node:util';
import type { PublicKey } from '../core/keys/public-key';
import { AdminError, connectAdmin, type AdminClient } from './admin-client';

const USAGE = `usage: npm run keys -- create [--description TEXT] [--models m1,m2] [--rpm N] [--tpm N] [--concurrent N]
       npm run keys -- list
       npm run keys -- disable|enable|delete <key id>`;

type Command = (admin: AdminClient, args: string[]) => Promise<void>;

const describe = (k: PublicKey): string =>
  [
    k.id.padEnd(12),
    k.status.padEnd(9),
    (k.allowed_models.length ? k.allowed_models.join(',') : 'all models').padEnd(24),
    k.rate_limit_rpm ? `${k.rate_limit_rpm}/min`.padEnd(10) : 'default'.padEnd(10),
    k.created_at,
    k.description,
  ].join('  ');

const commands: Record<string, Command> = {
  async create(admin, args) {
    const { values } = parseArgs({
      args,
      options: {
        description: { type: 'string' },
        models: { type: 'string' },
        rpm: { type: 'string' },
        tpm: { type: 'string' },
        concurrent: { type: 'string' },
      },
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
      ...(values.tpm ? { rate_limit_tpm: Number(values.tpm) } : {}),
      ...(values.concurrent ? { max_concurrent: Number(values.concurrent) } : {}),
    };
    const created = await admin.call<{ key: string; record: PublicKey }>('POST', '/admin/keys', body);
    process.stdout.write(
      `created ${describe(created.record)}\nthe key is shown once; keep it:\n${created.key}\n`,
    );
  },
  async list(admin) {
    let cursor: string | null = null;
    let shown = 0;
    do {
      const page: { data: PublicKey[]; next_cursor: string | null } = await admin.call(
        'GET',
        `/admin/keys?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const k of page.data) process.stdout.write(`${describe(k)}\n`);
      shown += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    if (shown === 0) process.stdout.write('no keys\n');
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
