/**
 * Builds the console (console/src) into a folder: console.js and console.css bundled by esbuild
 * (Preact, htm and uPlot included, minified), and index.html copied. `npm run build` runs it after the
 * compile and writes the folder the admin listener serves (CONSOLE_BUILD_DIR, under dist/), so the page
 * is always the sources' own: nothing built is committed. A production install builds with the dev
 * dependencies first, then drops them; the bundle needs none of them at run time.
 */
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSOLE_BUILD_DIR } from '../core/admin/console-assets';

/** From dist/console/ (compiled) to the project's console/src/. */
export const SOURCE_DIR = join(__dirname, '..', '..', 'console', 'src');

/** Writes the bundle into `outDir` (emptied first); resolves to the names of the files written. */
export async function buildConsole(outDir: string = CONSOLE_BUILD_DIR): Promise<string[]> {
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
    (files) => console.log(`console: wrote ${files.join(', ')} to ${CONSOLE_BUILD_DIR}`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
