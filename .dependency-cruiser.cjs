/**
 * The layers the folders show (docs/conventions.md, Layers), checked by `npm run lint` beside madge's
 * module cycles. Type-only imports count: a layer is not skipped by importing only its types.
 */

/** Core's layers from the bottom up, as docs/conventions.md lists them: a folder imports only from its own layer or below. */
const LAYERS = [
  ['base'],
  ['stores', 'redis'],
  ['contracts'],
  ['request'],
  ['billing', 'observability'],
  ['upstream', 'routing', 'proxy'],
  ['keys', 'teams', 'health', 'http', 'tasks'],
  ['alerts'],
  ['plugins'],
  ['reload', 'server', 'admin'],
  ['boot'],
  ['kit'],
];

const folders = (layers) => `^core/(${layers.flat().join('|')})/`;

/** One rule per layer: nothing in it imports a layer above it, even where that makes no cycle. */
const layerOrder = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-order-${layer.join('-')}`,
  comment: `core/${layer.join(', core/')} sit below the layers above them (docs/conventions.md, Layers): move the piece down, or the import up.`,
  severity: 'error',
  from: { path: folders([layer]) },
  to: { path: folders(LAYERS.slice(i + 1)) },
}));

module.exports = {
  forbidden: [
    ...layerOrder,
    {
      name: 'no-folder-cycle',
      comment: 'A folder imports a folder that imports it back: move the shared piece to the layer below.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'plugins-through-kit',
      comment: 'A plugin imports core only through core/kit, so core can change behind it.',
      severity: 'error',
      from: { path: '^plugins/' },
      to: { path: '^core/', pathNot: '^core/kit/' },
    },
    {
      name: 'lib-knows-no-product',
      comment:
        'lib/ holds small libraries that know nothing of the product, so core and the simulator can both use them.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(core|plugins|simulator|config|cli)/' },
    },
    {
      name: 'core-names-no-plugin',
      comment: 'Core never imports a plugin: the entry point finds them on disk.',
      severity: 'error',
      from: { path: '^core/' },
      to: { path: '^plugins/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
