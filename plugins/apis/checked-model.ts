import type { ModelSpec } from '../../core/kit/upstream';

/**
 * The model a request asks for, as an API's checks read it: its id, which a 400 names, and its ceilings
 * (the catalogue's, gateway.yaml's `limits:` included).
 */
export type CheckedModel = Pick<ModelSpec, 'id' | 'limits'>;
