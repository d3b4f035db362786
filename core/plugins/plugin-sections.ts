/**
 * Every plugin-owned block of gateway.yaml checked against its plugin's schema in one pass: each
 * upstream's settings, each pipeline stage's options, each video protocol's options, each service's
 * top-level section (and a top-level section no one reads is refused, as a typo). The builders
 * (core/plugins/build-upstreams.ts, core/plugins/pipeline.ts, core/plugins/build-video.ts) parse them again for
 * their values, but each stops at its first bad block and they run one after another; this pass lets
 * one start-up (or reload) name every bad field of every section (docs/conventions.md#convention-3).
 */
import type { DependencyContainer } from 'tsyringe';
import { gatewayConfigSchema, type GatewayConfig } from '../../config/schema';
import { ConfigError, type ConfigProblem } from '../../config/errors';
import { checkEach, parseSection } from '../../config/validate';
import { isJsonObject } from '../base/json';
import { type PluginKind } from './define-plugin';
import { registeredPlugins } from './plugin-container';
import { entryParts } from './pipeline';
import { pluginRegistration } from './plugin-instances';

/** One plugin block: which kind and name of plugin reads it, what it holds, and where it is. */
interface PluginBlock {
  readonly kind: PluginKind;
  readonly plugin: string;
  /** Where the plugin's name is written, for an unknown one. */
  readonly namePath: string;
  readonly raw: unknown;
  readonly path: string;
  readonly what: string;
}

/** The plugin-owned sections, as validated config or as the raw document holds them. */
interface Sections {
  readonly upstreams: Readonly<Record<string, unknown>>;
  readonly pipeline: readonly unknown[];
  readonly protocols: Readonly<Record<string, unknown>>;
  /** Top-level sections core's schema does not know: each must be a service plugin's. */
  readonly services: Readonly<Record<string, unknown>>;
}

/** Throws one ConfigError listing every problem of every plugin block. */
export function checkPluginSections(config: GatewayConfig, scope: DependencyContainer): void {
  const problems = sectionProblems(
    {
      upstreams: config.upstreams,
      pipeline: config.pipeline,
      protocols: config.video.protocols,
      services: config.sections ?? {},
    },
    scope,
  );
  if (problems.length > 0) throw ConfigError.of(problems);
}

/**
 * The same checks on a document core's schema refused (config/load.ts `AlsoCheck`), so that its errors
 * and the plugins' come in one report. A section too malformed to read is left to core's own errors.
 */
export function rawPluginSectionProblems(
  doc: Readonly<Record<string, unknown>>,
  scope: DependencyContainer,
): ConfigProblem[] {
  const video = isJsonObject(doc.video) ? doc.video : {};
  return sectionProblems(
    {
      upstreams: isJsonObject(doc.upstreams) ? doc.upstreams : {},
      pipeline: Array.isArray(doc.pipeline) ? doc.pipeline : [],
      protocols: isJsonObject(video.protocols) ? video.protocols : {},
      services: Object.fromEntries(
        Object.entries(doc).filter(([name]) => !Object.hasOwn(gatewayConfigSchema.shape, name)),
      ),
    },
    scope,
  );
}

function sectionProblems(sections: Sections, scope: DependencyContainer): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const all = [
    upstreamBlocks(sections),
    pipelineBlocks(sections),
    protocolBlocks(sections),
    serviceBlocks(sections),
  ];
  for (const blocks of all) {
    try {
      checkEach(blocks, (block) => checkBlock(block, scope));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems);
    }
  }
  return problems;
}

function checkBlock(block: PluginBlock, scope: DependencyContainer): void {
  const known = registeredPlugins(block.kind, scope);
  if (block.kind === 'service' && !known.has(block.plugin)) throw unknownSection(block, known.keys());
  const registration = pluginRegistration(known, block.plugin, block.namePath, block.what);
  parseSection(registration.options, block.raw, block.path);
}

/** A top-level section neither core nor a service plugin reads: a typo, as core's schema would say. */
function unknownSection(block: PluginBlock, services: Iterable<string>): ConfigError {
  const core = Object.keys(gatewayConfigSchema.shape).join(', ');
  const served = [...services].join(', ') || 'none';
  return new ConfigError(
    block.path,
    `unknown section (core's sections: ${core}; service plugins' sections: ${served})`,
  );
}

/** An upstream without a plugin name is core's error (`upstreams.<name>.plugin`). */
const upstreamBlocks = ({ upstreams }: Sections): PluginBlock[] =>
  Object.entries(upstreams).flatMap(([name, raw]) =>
    isJsonObject(raw) && typeof raw.plugin === 'string'
      ? [
          {
            kind: 'upstream' as const,
            plugin: raw.plugin,
            namePath: `upstreams.${name}.plugin`,
            raw,
            path: `upstreams.${name}`,
            what: 'upstream plugin',
          },
        ]
      : [],
  );

/** A malformed entry (two names in one) is left to the pipeline's builder, which says so. */
const pipelineBlocks = ({ pipeline }: Sections): PluginBlock[] =>
  pipeline.flatMap((entry, i) => {
    if (typeof entry !== 'string' && !isJsonObject(entry)) return [];
    let parts: [string, unknown];
    try {
      parts = entryParts(entry, `pipeline[${i}]`);
    } catch {
      return [];
    }
    const [name, raw] = parts;
    const path = `pipeline[${i}]`;
    return [
      {
        kind: 'middleware' as const,
        plugin: name,
        namePath: path,
        raw,
        path: `${path}.${name}`,
        what: 'middleware',
      },
    ];
  });

const serviceBlocks = ({ services }: Sections): PluginBlock[] =>
  Object.entries(services).map(([name, raw]) => ({
    kind: 'service',
    plugin: name,
    namePath: name,
    raw: raw ?? {},
    path: name,
    what: 'section',
  }));

const protocolBlocks = ({ protocols }: Sections): PluginBlock[] =>
  Object.entries(protocols).map(([name, raw]) => ({
    kind: 'task-protocol',
    plugin: name,
    namePath: `video.protocols.${name}`,
    raw: raw ?? {},
    path: `video.protocols.${name}`,
    what: 'video protocol',
  }));
