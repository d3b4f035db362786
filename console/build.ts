/**
 * Builds the console (console/src) into a folder: console.js and console.css bundled by esbuild
 * (Preact, htm and uPlot included, minified), and index.html copied. The output is committed in
 * console/build/, so a production install (no dev dependencies) serves the page; a test rebuilds it
 * and compares, so the committed bundle cannot go stale.
 *   npm run build:console      writes console/build/
 */
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** From dist/console/ (compiled) to the project's console/ folder. */
const CONSOLE_DIR = join(__dirname, '..', '..', 'console');
export const SOURCE_DIR = join(CONSOLE_DIR, 'src');
export const BUILD_DIR = join(CONSOLE_DIR, 'build');

/** Writes the bundle into `outDir` (emptied first); resolves to the names of the files written. */
export async function buildConsole(outDir: string = BUILD_DIR): Promise<string[]> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: { console: join(SOURCE_DIR, 'main.ts') },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  });
  await copyFile(join(SOURCE_DIR, 'index.html'), join(outDir, 'index.html'));
  return (await readdir(outDir)).sort();
}

if (require.main === module) {
  buildConsole().then(
    (files) => console.log(`console: wrote ${files.join(', ')} to ${BUILD_DIR}`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
