/**
 * Node's keep-alive agents, handed only the request options that are set. For each request the agent
 * merges the request's options with its own into a null-prototype object (`addRequest`), which V8 keeps
 * in dictionary mode and copies key by key in its runtime. http-proxy-3 gives every request ten TLS and
 * socket options (`pfx`, `ca`, `socketPath`, `localAddress`…) that are undefined unless its target sets
 * them, and that copy of about twenty keys took some 50k instructions a call (callgrind). An option left
 * undefined reads the same as one never given, so dropping those changes nothing the agent does.
 */
import { Agent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

type RequestOptions = Readonly<Record<string, unknown>>;

/** `options` without its undefined members, as an object V8 keeps in fast mode. */
function setOnly(options: RequestOptions): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const key in options) {
    const value = options[key];
    if (value !== undefined) set[key] = value;
  }
  return set;
}

/** Node's own method, which its typings leave out (it is how a request asks the agent for a socket). */
interface AddsRequests {
  addRequest(req: ClientRequest, options: RequestOptions): void;
}

/** Node's `addRequest` of `base` on `agent`, given only the options that are set. */
const addSetOnly = (base: object, agent: Agent, req: ClientRequest, options: RequestOptions): void =>
  (base as AddsRequests).addRequest.call(agent, req, setOnly(options));

export class LeanAgent extends Agent {
  addRequest(req: ClientRequest, options: RequestOptions): void {
    addSetOnly(Agent.prototype, this, req, options);
  }
}

export class LeanHttpsAgent extends HttpsAgent {
  addRequest(req: ClientRequest, options: RequestOptions): void {
    addSetOnly(HttpsAgent.prototype, this, req, options);
  }
}
