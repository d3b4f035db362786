/**
 * The OpenID Connect authorization code flow with PKCE (S256), `state` and `nonce`, through
 * openid-client: it reads the provider's metadata, exchanges the code and checks the ID token
 * (signature, issuer, audience, expiry, nonce). openid-client is an ES module: this CommonJS build loads
 * it with `import()`, which tsc turns into `require()`, and Node 20.19 and later require ES modules.
 * Loaded on the first sign-in, so a gateway without single sign-on never loads it.
 */
import type * as OpenIdClientModule from 'openid-client';
import type { Configuration } from 'openid-client';
import type { OidcConfig } from '../../../config/schema';
import { Errors, type GatewayError } from '../../base/errors';

type OpenIdClient = typeof OpenIdClientModule;

/** What the callback must match, kept in the sign-in cookie between login and callback. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

/** The person the provider vouches for: the ID token's claims, with userinfo's when the role claim is not among them. */
export type Claims = Readonly<Record<string, unknown>> & { readonly sub: string };

interface Provider {
  readonly lib: OpenIdClient;
  readonly config: Configuration;
}

export class OidcFlow {
  private provider: Promise<Provider> | undefined;

  constructor(private readonly settings: OidcConfig) {}

  /** Where to send the browser to sign in, and what its return must match. */
  async begin(): Promise<{ url: string; pending: PendingSignIn }> {
    const { lib, config } = await this.discovered();
    const pending = {
      state: lib.randomState(),
      nonce: lib.randomNonce(),
      verifier: lib.randomPKCECodeVerifier(),
    };
    const url = lib.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirect_uri,
      scope: this.settings.scopes,
      code_challenge: await lib.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** The callback's code exchanged and its ID token checked against `pending`: the person's claims. */
  async finish(search: URLSearchParams, pending: PendingSignIn): Promise<Claims> {
    const { lib, config } = await this.discovered();
    // The address the provider sent the browser to, whatever proxy stands in front of this listener.
    const callback = new URL(this.settings.redirect_uri);
    callback.search = search.toString();
    try {
      const tokens = await lib.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!; // an ID token was required just above
      // Some providers put only the protocol's claims in the ID token and the rest in userinfo.
      if (this.settings.role_claim in claims || !config.serverMetadata().userinfo_endpoint) return claims;
      return { ...(await lib.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
    } catch (e) {
      throw callbackFailure(lib, e);
    }
  }

  /** The provider's metadata, read once; a failed read is tried again on the next sign-in. */
  private discovered(): Promise<Provider> {
    this.provider ??= this.discover().catch((e: unknown) => {
      this.provider = undefined;
      throw Errors.identityProviderUnavailable(e);
    });
    return this.provider;
  }

  private async discover(): Promise<Provider> {
    const lib = await import('openid-client');
    const { issuer, client_id, client_secret } = this.settings;
    // The schema allows http only for a provider on this machine.
    const execute = issuer.startsWith('http:') ? [lib.allowInsecureRequests] : [];
    const config = await lib.discovery(
      new URL(issuer),
      client_id,
      undefined,
      lib.ClientSecretBasic(client_secret),
      { execute },
    );
    return { lib, config };
  }
}

/** What the person is told when the callback fails: the provider's refusal, a failed check, or no provider. */
function callbackFailure(lib: OpenIdClient, e: unknown): GatewayError {
  if (e instanceof lib.AuthorizationResponseError || e instanceof lib.ResponseBodyError) {
    const said = e.error_description ? `${e.error}: ${e.error_description}` : e.error;
    return Errors.signInFailed(`the identity provider answered ${said}`);
  }
  if (e instanceof lib.ClientError) {
    const detail = e.cause instanceof Error ? `: ${e.cause.message}` : '';
    return Errors.signInFailed(`${e.message}${detail}`);
  }
  return Errors.identityProviderUnavailable(e);
}
