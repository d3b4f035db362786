// Endpoints are shared types (core/plugin.ts); exported here too, where the http layer looks.
import type { Endpoint } from '../plugin';
export type { Endpoint, Handler } from '../plugin';

/** `POST /v1/chat/completions`: how messages name an endpoint to a client. */
export const describeEndpoint = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;
