#!/usr/bin/env node
/**
 * `npm start`, `npm run keys|stores|simulator`: runs a compiled entry point (`core/main` is
 * dist/core/main.js) in this process, so signals reach it directly and no compiler runs per call: the
 * build is a step of its own (`npm run build`, in the install step or the image build), and a production
 * install has no TypeScript. Plain JavaScript, because it must speak when dist/ is not there.
 */
'use strict';
const { existsSync } = require('node:fs');
const { join, relative } = require('node:path');

const entry = process.argv[2] ?? '';
const file = join(__dirname, '..', 'dist', `${entry}.js`);
if (!/^[a-z]+\/[a-z-]+$/.test(entry) || !existsSync(file)) {
  process.stderr.write(
    `${relative(process.cwd(), file) || file} is missing: the gateway runs its compiled code. ` +
      'Run `npm run build` first (it needs the dev dependencies: `npm ci`, then `npm run build`).\n',
  );
  process.exit(1);
}
// The entry point sees the arguments it would under `node dist/<entry>.js`.
process.argv.splice(1, 2, file);
require(file);
