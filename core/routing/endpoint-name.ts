import type { Endpoint } from '../request/served-request';

/** `POST /v1/chat/completions`: how messages name an endpoint to a client. */
export const describeEndpoint = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`;
