/**
 * Every name a family goes by, derived once from `<name>`: its identifiers in code, its environment
 * variables, its upstream, models and prices entry. The templates and the YAML edits read them from
 * here, so they cannot disagree.
 */
import type { FamilyArgs, Protocol } from './args';

export interface FamilyNames {
  /** `model-z`: the plugin, the simulator mount, the folders. */
  readonly name: string;
  readonly protocol: Protocol;
  /** The vendor API's path under its host (`/v1`), also under the simulator's mount. */
  readonly basePath: string;
  /** `ModelZ`: class and constant prefix. */
  readonly pascal: string;
  /** `modelZ`: value prefix. */
  readonly camel: string;
  /** `MODEL_Z`: the prefix of its environment variables. */
  readonly env: string;
  /** `model-z-main`: its upstream in gateway.yaml. */
  readonly upstream: string;
  /** `model-z-1` and `model-z-1-mini`: the placeholder models. */
  readonly models: readonly [string, string];
  /** `model-z-*`: its prices entry. */
  readonly pricePattern: string;
  /** `sim-model-z-key`: the simulator's credential, as every family's is named. */
  readonly simKey: string;
}

const capitalised = (part: string): string => part.charAt(0).toUpperCase() + part.slice(1);

export function familyNames({ name, protocol, basePath }: FamilyArgs): FamilyNames {
  const parts = name.split('-').filter(Boolean);
  const pascal = parts.map(capitalised).join('');
  return {
    name,
    protocol,
    basePath,
    pascal,
    camel: pascal.charAt(0).toLowerCase() + pascal.slice(1),
    env: name.toUpperCase().replaceAll('-', '_'),
    upstream: `${name}-main`,
    models: [`${name}-1`, `${name}-1-mini`],
    pricePattern: `${name}-*`,
    simKey: `sim-${name}-key`,
  };
}

/** The upstream's default address: the bundled simulator, as every shipped upstream's. */
export const simulatorBaseUrl = (n: FamilyNames): string =>
  `\${${n.env}_BASE_URL:-http://127.0.0.1:\${SIMULATOR_PORT:-9100}/${n.name}${n.basePath}}`;

/** The placeholder vendor address of the docs' real-vendor recipe (`.example` is reserved: never a host). */
export const vendorBaseUrl = (n: FamilyNames): string => `https://api.${n.name}.example${n.basePath}`;
