/**
 * The catalogue of the test configuration (testConfig), built by the gateway's own code from the upstream
 * plugins' model tables, so a test takes the models a family serves from the family's plugin instead of
 * writing the list again. Synchronous, for what is built when a test file loads (the fuzz cases).
 */
import { buildConfig } from '../../config/load';
import { Catalogue } from '../../core/routing/catalogue';
import { buildUpstreams } from '../../core/plugins/build-upstreams';
import { pluginContainer } from '../../core/plugins/plugin-container';
import { testConfig } from './gateway';
import { shippedPlugins } from './load-plugins';

export interface TestCatalogue {
  /** Every model served, in the catalogue's order (what GET /v1/models lists). */
  readonly models: readonly string[];
  /**
   * The models served through the upstreams of the plugin named `plugin` (`modeld`, `modela`…); with
   * `api`, only those served on that API (`chat-completions`, `embeddings`), for a plugin that serves several.
   */
  of(plugin: string, api?: string): readonly string[];
}

let built: TestCatalogue | undefined;

export function testCatalogue(): TestCatalogue {
  return (built ??= build());
}

function build(): TestCatalogue {
  // Addresses only: nothing is contacted or written.
  const config = buildConfig(testConfig('http://127.0.0.1:9', '/nonexistent'), {});
  const upstreams = buildUpstreams(config, pluginContainer(shippedPlugins));
  try {
    const catalogue = new Catalogue(upstreams, config.routes, config.limits);
    const specs = catalogue.models();
    const byPlugin = new Map<string, typeof specs>();
    for (const [name, { plugin }] of Object.entries(config.upstreams)) {
      const served = specs.filter((m) => catalogue.targetOn(m.id, name));
      byPlugin.set(plugin, [...(byPlugin.get(plugin) ?? []), ...served]);
    }
    return {
      models: specs.map((m) => m.id),
      of: (plugin, api) => {
        const served = (byPlugin.get(plugin) ?? []).filter((m) => api === undefined || m.api.id === api);
        if (!served.length) throw new Error(`the test configuration serves no model of plugin ${plugin}`);
        return served.map((m) => m.id);
      },
    };
  } finally {
    for (const upstream of upstreams) upstream.close();
  }
}
