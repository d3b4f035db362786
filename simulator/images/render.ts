import type { Sharp, SharpOptions } from 'sharp';
import { SimError } from '../sim-error';
import type { ImageFormat, ImageRequest } from './request';

/**
 * sharp is an optional dependency (a 19 MB native package a gateway in front of real vendors never
 * needs), loaded on the first image request: without it the simulator serves everything else and
 * answers image requests with an error that says what to install.
 */
type SharpFactory = (input: Buffer, options: SharpOptions) => Sharp;
let sharpLoaded: Promise<SharpFactory | undefined> | undefined;

const loadSharp = (): Promise<SharpFactory | undefined> =>
  (sharpLoaded ??= import('sharp').then(
    (m) => m.default,
    (e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
      throw e;
    },
  ));

const SHARP_MISSING =
  'The simulator draws images with the optional package sharp, which is not installed here ' +
  '(a production install without optional dependencies leaves it out): run `npm install sharp`. ' +
  'Chat, messages and video need no sharp.';

// The image is a 2×2 grid of corner colours stretched to the requested size: one small raw input
// and a resize, so libvips does the pixel work and a 1024×1024 png takes tens of milliseconds.
const GRID = 2;
// Corner alphas of a transparent image: opaque at the top, fully transparent at the bottom.
const ALPHAS = [255, 255, 0, 0] as const;

/** Sets the encoder; `quality` is 1–100. Effort is minimal: a simulator wants speed, not small files. */
const ENCODERS: Readonly<Record<ImageFormat, (img: Sharp, quality: number) => Sharp>> = {
  png: (img) => img.png(),
  jpeg: (img, quality) => img.jpeg({ quality }),
  webp: (img, quality) => img.webp({ quality, effort: 0 }),
};

/** FNV-1a over the text: a stable 32-bit seed, so the same prompt always draws the same picture. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** murmur3's finaliser: spreads each step of the seed over all 32 bits. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The raw corner pixels (RGB, or RGBA with 4 channels), derived from the prompt and the index. */
function corners(prompt: string, index: number, channels: 3 | 4): Buffer {
  const px = Buffer.alloc(GRID * GRID * channels);
  let h = fnv1a(`${index}:${prompt}`);
  for (let corner = 0; corner < GRID * GRID; corner++) {
    h = mix(h + corner);
    const at = corner * channels;
    px.writeUIntBE(h >>> 8, at, 3);
    if (channels === 4) px[at + 3] = ALPHAS[corner] ?? 255;
  }
  return px;
}

/** Image `index` of the request, encoded: exactly `width` × `height` in the requested format. */
function renderImage(sharp: SharpFactory, req: ImageRequest, index: number): Promise<Buffer> {
  const channels = req.transparent ? 4 : 3;
  const grid = sharp(corners(req.prompt, index, channels), { raw: { width: GRID, height: GRID, channels } });
  const stretched = grid.resize(req.width, req.height, { fit: 'fill', kernel: 'linear' });
  // output_compression starts at 0, sharp's quality at 1.
  return ENCODERS[req.format](stretched, Math.max(1, req.compression)).toBuffer();
}

/**
 * Every image of the request, rendered concurrently on libvips' thread pool. Without sharp: 501 with
 * the vendor's error body, saying what to install.
 */
export async function renderImages(req: ImageRequest): Promise<Buffer[]> {
  const sharp = await loadSharp();
  if (!sharp) throw new SimError(501, { message: SHARP_MISSING, code: 'sharp_not_installed' });
  return Promise.all(Array.from({ length: req.n }, (_, i) => renderImage(sharp, req, i)));
}
