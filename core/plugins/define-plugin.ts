/**
 * How a plugin is declared: one typed manifest (its kind, its name in gateway.yaml, the schema of its
 * options block and, for a pipeline stage, the stages it needs before it), applied to the plugin's class
 * as a decorator. The class receives the options its schema parses as its first constructor argument,
 * checked by the compiler against the schema's output type; its other arguments are injected by tsyringe
 * from the composition root's tokens. A name can be registered once per kind.
 *
 * @example
 * @definePlugin({ kind: 'middleware', name: 'stamp', options: stampOptions, after: { auth: 'it reads the key' } })
 * class Stamp implements Middleware { constructor(options: StampOptions, @inject(PricingToken) p: Pricing) {} }
 */
// tsyringe needs the polyfill loaded first; a plugin module importing only this file then works alone.
import 'reflect-metadata';
import { container, inject, injectable, type DependencyContainer } from 'tsyringe';
import type { constructor } from 'tsyringe/dist/typings/types';
import { z } from 'zod';
import { PluginOptionsToken, token, type Token } from './di';
import type { Middleware, UpstreamPlugin } from './plugin';
import type { ProtocolOptions, TaskProtocol } from '../tasks/protocol';
import type { UpstreamOptions } from '../upstream/upstream-options';

/** What each kind of plugin is, and what every plugin of that kind is given in its options. */
interface Kinds {
  middleware: { plugin: Middleware; options: unknown };
  upstream: { plugin: UpstreamPlugin; options: UpstreamOptions };
  'task-protocol': { plugin: TaskProtocol; options: ProtocolOptions };
}
export type PluginKind = keyof Kinds;
/** The instance a plugin of kind K is. */
export type PluginOf<K extends PluginKind> = Kinds[K]['plugin'];

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
  readonly order: StageOrder;
  readonly cls: constructor<Kinds[K]['plugin']>;
}

const NO_OPTIONS = z.object({}).strict();
type NoOptions = typeof NO_OPTIONS;

/** The class a manifest takes: its options first (unless it has none), then injected dependencies. */
type PluginClass<K extends PluginKind, S extends z.ZodType> = S extends NoOptions
  ? new (...deps: never[]) => Kinds[K]['plugin']
  : new (options: z.output<S>, ...deps: never[]) => Kinds[K]['plugin'];

const REGISTRIES: { readonly [K in PluginKind]: Token<PluginRegistration<K>> } = {
  middleware: token('MiddlewarePlugins'),
  upstream: token('UpstreamPlugins'),
  'task-protocol': token('TaskProtocolPlugins'),
};

/** Registers the decorated class as the plugin `manifest` describes, in tsyringe's root container. */
export function definePlugin<K extends PluginKind, S extends z.ZodType<Kinds[K]['options']> = NoOptions>(
  manifest: PluginManifest<K, S>,
) {
  return <C extends PluginClass<K, S>>(cls: C): void => {
    const { kind, name } = manifest;
    if (registeredPlugins(kind).has(name)) {
      throw new Error(`a ${kind} plugin named "${name}" is already registered; plugin names are unique`);
    }
    if (!manifest.options && kind !== 'middleware')
      throw new Error(`the ${kind} plugin "${name}" needs an options schema`);
    if (manifest.options) inject(PluginOptionsToken)(cls, undefined, 0);
    injectable()(cls);
    const registration: PluginRegistration<K> = {
      kind,
      name,
      // Only a pipeline stage goes without options (checked above), and its options are `unknown`.
      options: manifest.options ?? (NO_OPTIONS as z.ZodType<Kinds[K]['options']>),
      order: { after: manifest.after ?? {}, requires: manifest.requires ?? {} },
      cls: cls as constructor<Kinds[K]['plugin']>,
    };
    container.register(REGISTRIES[kind], { useValue: registration });
  };
}

/** The registered plugins of a kind, by name. */
export function registeredPlugins<K extends PluginKind>(
  kind: K,
  c: DependencyContainer = container,
): Map<string, PluginRegistration<K>> {
  const registry = REGISTRIES[kind];
  const all = c.isRegistered(registry, true) ? c.resolveAll<PluginRegistration<K>>(registry) : [];
  return new Map(all.map((r) => [r.name, r]));
}
