import type { Endpoint } from '../contracts/plugin';

/** `POST /v1/chat/completions`: how messages name an endpoint to a client. */
export const describeEndpoint = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;
