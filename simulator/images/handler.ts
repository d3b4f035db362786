import { readControls } from '../controls';
import type { Exchange } from '../exchange';
import { unixSeconds } from '../ids';
import { SimErrors } from '../sim-error';
import { renderImages } from './render';
import { parseImageRequest } from './request';
import { imagesBody } from './response';

/**
 * One `images/generations` exchange: validate, apply the controls (latency, then a forced status),
 * render the images and answer with them in base64. Of the controls only `latency_ms`, `status`
 * and `usage` mean anything here. Errors are thrown and rendered by the family.
 */
export async function handleImageGeneration(ex: Exchange): Promise<void> {
  const req = parseImageRequest(ex.body);
  const controls = readControls(ex.req.headers, req.prompt);
  if (controls.latencyMs && !(await ex.delay(controls.latencyMs))) return;
  if (controls.status !== undefined) throw SimErrors.status(controls.status);
  const images = await renderImages(req);
  if (ex.closed) return; // the client gave up while the images rendered
  ex.sendJson(200, imagesBody(req, images, unixSeconds(), controls.usage !== false));
}
