/**
 * How a plugin is declared: one typed manifest (its kind, its name in gateway.yaml, the schema of its
 * options block and, for a pipeline stage, the stages it needs before it), applied to the plugin's class
 * as a decorator. The class receives the options its schema parses as its first constructor argument,
 * checked by the compiler against the schema's output type; its other arguments are injected by tsyringe
 * from the composition root's tokens. Defining a plugin only describes it, as loading a module defines
 * its class: each gateway registers the plugins it is given into its own container (plugin-container.ts),
 * so nothing of a plugin lives in tsyringe's process-wide root. A name can be defined once per kind.
 *
 * @example
 * @definePlugin({ kind: 'middleware', name: 'stamp', options: stampOptions, after: { auth: 'it reads the key' } })
 * class Stamp implements Middleware { constructor(options: StampOptions, @inject(PricingToken) p: Pricing) {} }
 */
// tsyringe needs the polyfill loaded first; a plugin module importing only this file then works alone.
import 'reflect-metadata';
import { inject, injectable } from 'tsyringe';
import type { constructor } from 'tsyringe/dist/typings/types';
import { z } from 'zod';
import { token, type Token } from '../base/token';
import type { ApiTranslator } from '../contracts/translator';
import type { Middleware } from '../contracts/stage';
import type { ServicePlugin } from '../contracts/service';
import type { UpstreamPlugin } from '../contracts/upstream';
import type { ProtocolOptions, TaskProtocol } from '../tasks/protocol';
import type { UpstreamOptions } from '../upstream/upstream-options';

/** What each kind of plugin is, and what every plugin of that kind is given in its options. */
interface Kinds {
  middleware: { plugin: Middleware; options: unknown };
  upstream: { plugin: UpstreamPlugin; options: UpstreamOptions };
  'task-protocol': { plugin: TaskProtocol; options: ProtocolOptions };
  'api-translator': { plugin: ApiTranslator; options: unknown };
  /** Options: gateway.yaml's top-level section of the plugin's name. */
  service: { plugin: ServicePlugin; options: unknown };
}

/** Kinds whose plugins gateway.yaml does not configure, so that take no options schema. */
const WITHOUT_OPTIONS: ReadonlySet<PluginKind> = new Set(['middleware', 'api-translator']);
export type PluginKind = keyof Kinds;
/** The instance a plugin of kind K is. */
export type PluginOf<K extends PluginKind> = Kinds[K]['plugin'];
/** The validated options a plugin of kind `K` is built with. */
export type OptionsOf<K extends PluginKind> = Kinds[K]['options'];

/** Stage names, each with the reason it must come first (for the start-up error). */
export type StageRule = Readonly<Record<string, string>>;

/** Where a pipeline stage may stand (core/plugins/pipeline-order.ts checks it at start and on reload). */
export interface StageOrder {
  /** Stages that must come before this one when they are listed. */
  readonly after: StageRule;
  /** Stages that must be listed, before this one. */
  readonly requires: StageRule;
}

export interface PluginManifest<K extends PluginKind, S extends z.ZodType<Kinds[K]['options']>> {
  readonly kind: K;
  /** The plugin's name in gateway.yaml. */
  readonly name: string;
  /** Validates the plugin's options block; what it outputs is what the plugin's constructor receives. */
  readonly options?: S;
  /** Pipeline stages only. */
  readonly after?: StageRule;
  readonly requires?: StageRule;
}

/** A plugin as registered: its manifest, with the class that implements it. */
export interface PluginRegistration<K extends PluginKind> {
  readonly kind: K;
  readonly name: string;
  readonly options: z.ZodType<Kinds[K]['options']>;
  /** The token its constructor's first parameter is injected with: its validated options, typed as its schema says. */
  readonly optionsToken: Token<Kinds[K]['options']>;
  readonly order: StageOrder;
  readonly cls: constructor<Kinds[K]['plugin']>;
}

const NO_OPTIONS = z.object({}).strict();
type NoOptions = typeof NO_OPTIONS;

/** The class a manifest takes: its options first (unless it has none), then injected dependencies. */
type PluginClass<K extends PluginKind, S extends z.ZodType> = S extends NoOptions
  ? new (...deps: never[]) => Kinds[K]['plugin']
  : new (options: z.output<S>, ...deps: never[]) => Kinds[K]['plugin'];

/** A plugin of any kind, as defined. */
export type AnyPluginRegistration = { readonly [K in PluginKind]: PluginRegistration<K> }[PluginKind];

/** Every plugin defined in this process, in definition order: descriptions only, never instances. */
const defined: AnyPluginRegistration[] = [];

/** Describes the decorated class as the plugin `manifest` declares; a gateway given it registers it. */
export function definePlugin<K extends PluginKind, S extends z.ZodType<Kinds[K]['options']> = NoOptions>(
  manifest: PluginManifest<K, S>,
) {
  return <C extends PluginClass<K, S>>(cls: C): void => {
    const { kind, name } = manifest;
    if (defined.some((d) => d.kind === kind && d.name === name)) {
      throw new Error(`a ${kind} plugin named "${name}" is already registered; plugin names are unique`);
    }
    if (!manifest.options && !WITHOUT_OPTIONS.has(kind))
      throw new Error(`the ${kind} plugin "${name}" needs an options schema`);
    const optionsToken = token<Kinds[K]['options']>(`${kind} ${name} options`);
    if (manifest.options) inject(optionsToken)(cls, undefined, 0);
    injectable()(cls);
    const registration: PluginRegistration<K> = {
      kind,
      name,
      // Only kinds whose options are `unknown` go without a schema (checked above).
      options: manifest.options ?? (NO_OPTIONS as z.ZodType<Kinds[K]['options']>),
      optionsToken,
      order: { after: manifest.after ?? {}, requires: manifest.requires ?? {} },
      cls: cls as constructor<Kinds[K]['plugin']>,
    };
    defined.push(registration as AnyPluginRegistration);
  };
}

/** The plugins defined so far (by the modules loaded): what a gateway is given unless told otherwise. */
export const definedPlugins = (): readonly AnyPluginRegistration[] => [...defined];

/** The plugins of one kind defined so far, by name. */
export function definedPluginsOf<K extends PluginKind>(kind: K): Map<string, PluginRegistration<K>> {
  const ofKind = defined.filter((d): d is AnyPluginRegistration & PluginRegistration<K> => d.kind === kind);
  return new Map(ofKind.map((d) => [d.name, d]));
}
