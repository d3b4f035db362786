/**
 * The floor: the least any metering proxy on http-proxy-3 must do beyond the bare passthrough, and the
 * gateway's lower bound before its own duties (bound-proxy.ts adds them). It reads the request body to
 * find `model` (as the router must), and reads `usage` from the response (as metering must): a JSON body
 * is read whole and parsed, a stream's chunks are passed on as they come and searched for usage
 * (metered-proxy.ts). No auth, limits, validation, records or logs.
 * Usage: `node dist/bench/floor-proxy.js --sim http://127.0.0.1:PORT [--port N]`; paths as the bare proxy's.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { forward, meteredProxy, relayMetered, withModel } from './metered-proxy';
import { runProxy } from './proxy-main';

/** Usage found in a response, kept on the request only so that the work is not optimised away. */
const USAGE = Symbol('usage');
type Metered = IncomingMessage & { [USAGE]?: unknown };

function handler(sim: string): RequestListener {
  const proxy = meteredProxy(sim, (upstreamRes, req, res) =>
    relayMetered(upstreamRes, res, {}, (_status, usage) => ((req as Metered)[USAGE] = usage)),
  );
  return (req, res) => withModel(req, res, (body) => forward(proxy, req, res, body));
}

runProxy('floor proxy', handler);
