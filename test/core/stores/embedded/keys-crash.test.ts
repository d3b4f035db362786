/**
 * Keys made through the admin API survive a SIGKILL of the gateway process mid-write: every key whose
 * creation was answered is known after a restart on the same data directory and works, whatever was
 * being appended when the process died.
 */
import t from 'tap';
import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startSimulator } from '../../../../simulator/server';
import { tempDir, testConfig } from '../../../helpers/gateway';
import { listeningOn, spawnGateway } from '../../../helpers/process';

/** Creations in flight at once, as an operator's script would send them. */
const IN_FLIGHT = 8;
/** Answered creations before the kill. */
const BEFORE_KILL = 300;

interface Made {
  readonly id: string;
  readonly key: string;
}

/** Makes keys `IN_FLIGHT` at a time until `stop` says so; each answered one is in `made`. */
async function makeKeys(adminUrl: string, token: string, made: Made[], stop: () => boolean): Promise<void> {
  const one = async (): Promise<void> => {
    while (!stop()) {
      const res = await fetch(`${adminUrl}/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `crash ${made.length}` }),
      }).catch(() => undefined); // the process died under it: not answered
      if (res?.status !== 201) return;
      const body = (await res.json()) as { key: string; record: { id: string } };
      made.push({ id: body.record.id, key: body.key });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, one));
}

t.test('a SIGKILL while keys are made: every key answered is known after a restart', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const dir = await tempDir(t);
  const doc = testConfig(sim.url, join(dir, 'data'));
  doc.logging = { level: 'info' }; // the start-up lines say where it listens
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, stringify(doc));
  const token = randomBytes(24).toString('base64url');
  const env = { GATEWAY_CONFIG: file, PORT: '0', ADMIN_PORT: '0', GATEWAY_ADMIN_TOKEN: token };

  const killed = spawnGateway(t, env);
  const { adminUrl } = await listeningOn(killed);
  const made: Made[] = [];
  let dead = false;
  await makeKeys(adminUrl, token, made, () => {
    if (made.length >= BEFORE_KILL && !dead) {
      killed.child.kill('SIGKILL'); // with creations still in flight, their lines being appended
      dead = true;
    }
    return dead;
  });
  t.equal(await killed.exited, null, 'killed, no clean exit');
  t.ok(made.length >= BEFORE_KILL, `${made.length} keys answered before the kill`);

  const restarted = spawnGateway(t, env);
  const { url, adminUrl: again } = await listeningOn(restarted);
  const missing: string[] = [];
  for (const { id } of made) {
    const res = await fetch(`${again}/admin/keys/${id}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) missing.push(`${id}: ${res.status}`);
  }
  t.strictSame(missing, [], 'every answered key is known');
  const last = made.at(-1)!;
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: last.key, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: 'modela-5.5',
    messages: [{ role: 'user', content: 'still here?' }],
  });
  t.ok(answer.choices[0]?.message, 'and the last one answered works');
});
