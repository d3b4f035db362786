import type { Endpoint } from '../plugins/plugin';

/** `POST /v1/chat/completions`: how messages name an endpoint to a client. */
export const describeEndpoint = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;
