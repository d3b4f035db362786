#!/usr/bin/env node
/**
 * `npm run build`'s step after the compiler: writes the serializers of the gateway's fixed-shape lines
 * into dist/, as fast-json-stringify's standalone code compiled from their schemas. The running gateway
 * then loads only the library's small runtime. Compiling at startup would load its schema compiler and
 * ajv, about 2 MB of heap kept for the process's life, and each major collection marks it again.
 * Plain JavaScript: it runs on the compiled schemas, beside the compiled modules that load its output.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const build = require('fast-json-stringify');

const dist = join(__dirname, '..', 'dist');

/** Each serializer: the compiled module holding its schema, the schema's export, and the file written. */
const SERIALIZERS = [
  [
    'core/observability/access-line-shape.js',
    'accessLineSchema',
    'core/observability/access-line-serializer.js',
  ],
  [
    'core/stores/embedded/usage-line-shape.js',
    'usageLineSchema',
    'core/stores/embedded/usage-line-serializer.js',
  ],
];

/** Each serializer's schema, read from the compiled shape, and the file it is written to. */
function serializers() {
  return SERIALIZERS.map(([shape, name, out]) => {
    const schema = require(join(dist, shape))[name];
    if (schema === undefined) throw new Error(`${shape} has no export ${name}`);
    return { schema, file: join(dist, out) };
  });
}

if (require.main === module) {
  for (const { schema, file } of serializers()) writeFileSync(file, build(schema, { mode: 'standalone' }));
}

module.exports = { serializers };
