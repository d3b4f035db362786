/**
 * `npm run stores -- indexes [--check]`: the deploy step of a MongoDB-backed gateway. Builds the indexes
 * the stores need (and the TTL indexes of the configured retention) in the database gateway.yaml names,
 * or with `--check` only says what is missing. A gateway checks the same at start and refuses to start
 * without them. Exit status 1 when something is left to an operator (or missing, with `--check`).
 */
import { parseArgs } from 'node:util';
import { configPath, loadConfigFile } from '../config/load';
import { mongoRetention } from '../core/stores/mongodb/open-mongo-stores';
import { connectMongo } from '../core/stores/mongodb/connect';
import { buildStoreIndexes, planStoreIndexes, type IndexPlan } from '../core/stores/mongodb/store-indexes';

const USAGE = 'usage: npm run stores -- indexes [--check]';

const print = (line: string): boolean => process.stdout.write(`${line}\n`);

/** What the build did to each collection, and what it left. */
function report(plans: readonly IndexPlan[], checkOnly: boolean): boolean {
  let clean = true;
  for (const plan of plans) {
    const where = `${plan.collection} (${plan.store})`;
    if (checkOnly) {
      for (const problem of plan.problems) print(`missing  ${problem}`);
      clean &&= plan.problems.length === 0;
      continue;
    }
    for (const index of plan.create) print(`created  ${where}: ${index.name}`);
    for (const { name, seconds } of plan.retime)
      print(`changed  ${where}: ${name} now deletes after ${seconds} s`);
    for (const name of plan.drop) print(`dropped  ${where}: ${name} (retention off)`);
    for (const conflict of plan.conflicts) print(`LEFT     ${conflict}`);
    clean &&= plan.conflicts.length === 0;
  }
  return clean;
}

async function main(argv: string[]): Promise<boolean> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { check: { type: 'boolean', default: false } },
  });
  if (positionals[0] !== 'indexes' || positionals.length > 1) throw new Error(USAGE);
  const file = configPath();
  const { storage, audit } = loadConfigFile(file);
  if (storage.driver !== 'mongodb') {
    print(`${file}: storage.driver is ${storage.driver}; the embedded stores need no indexes built`);
    return true;
  }
  const client = await connectMongo(storage.uri, { appName: 'model-gateway deploy', setting: 'storage.uri' });
  try {
    const db = client.db(storage.database);
    const retention = mongoRetention(storage, audit);
    const plans = values.check
      ? await planStoreIndexes(db, retention)
      : await buildStoreIndexes(db, retention);
    const clean = report(plans, values.check);
    print(
      clean
        ? `${storage.database}: the indexes are as the gateway needs them`
        : `${storage.database}: not ready`,
    );
    return clean;
  } finally {
    await client.close();
  }
}

main(process.argv.slice(2)).then(
  (clean) => process.exit(clean ? 0 : 1),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
