/**
 * The command line of `npm run new-family -- <name> [--protocol openai|custom] [--base-path /v1]`, read
 * and checked before anything is looked at on disk, so a mistyped call changes nothing.
 */
import { parseArgs } from 'node:util';

/** `openai`: the vendor speaks OpenAI's chat completions. `custom`: a protocol of its own, translated. */
export type Protocol = 'openai' | 'custom';

export interface FamilyArgs {
  readonly name: string;
  readonly protocol: Protocol;
  /** The path of the vendor's API under its host, e.g. `/v1`; empty for the host's root. */
  readonly basePath: string;
}

export const USAGE = 'usage: npm run new-family -- <name> [--protocol openai|custom] [--base-path /v1]';

/** A call the scaffold refuses: it writes nothing, says why, and exits 1. */
export class Refusal extends Error {
  override readonly name = 'Refusal';
}

/** A plugin name, a gateway.yaml key, a simulator mount and a file name at once, so the plainest form. */
const NAME = /^[a-z][a-z0-9-]*$/;
/** Path segments as a URL and a simulator route take them: no spaces, queries, `:params` or wildcards. */
const BASE_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;
const PROTOCOLS: readonly Protocol[] = ['openai', 'custom'];

const isProtocol = (value: string): value is Protocol => (PROTOCOLS as readonly string[]).includes(value);

function checkedName(positionals: readonly string[]): string {
  if (positionals.length !== 1) throw new Refusal(`give one family name\n${USAGE}`);
  const name = positionals[0]!;
  if (!NAME.test(name)) {
    throw new Refusal(
      `'${name}' is not a family name: use lowercase letters, digits and hyphens, starting with a letter (e.g. modelz)`,
    );
  }
  return name;
}

/** `/v1` as given; a trailing slash dropped, so `/` is the host's root. */
function checkedBasePath(raw: string): string {
  const path = raw.replace(/\/+$/, '');
  if (!raw.startsWith('/') || !BASE_PATH.test(path)) {
    throw new Refusal(`--base-path '${raw}' must be a path such as /v1 or /api/v2 (or / for none)`);
  }
  return path;
}

export function parseFamilyArgs(argv: readonly string[]): FamilyArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        protocol: { type: 'string', default: 'openai' },
        'base-path': { type: 'string', default: '/v1' },
      },
    });
  } catch (error) {
    throw new Refusal(`${(error as Error).message}\n${USAGE}`);
  }
  const { positionals, values } = parsed;
  const protocol = values.protocol;
  if (!isProtocol(protocol)) throw new Refusal(`--protocol must be openai or custom, not '${protocol}'`);
  return { name: checkedName(positionals), protocol, basePath: checkedBasePath(values['base-path']) };
}
