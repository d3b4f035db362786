/**
 * The official `@anthropic-ai/sdk` client pointed at a gateway as the README tells users to: the gateway's
 * root (the SDK adds `/v1/messages`), the key as its Bearer token, the contract's `modeld-version`.
 */
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';

export const gatewayAnthropic = (
  gw: { readonly url: string; readonly key: string },
  options: ClientOptions = {},
): Anthropic =>
  new Anthropic({
    baseURL: gw.url,
    apiKey: null,
    authToken: gw.key,
    defaultHeaders: { 'modeld-version': '2023-06-01' },
    maxRetries: 0,
    ...options,
  });
