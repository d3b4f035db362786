/**
 * A real OpenID provider (oidc-provider) on a free loopback port, for single sign-on tests: one static
 * client for the gateway's redirect_uri, the accounts a test names (their `groups` claim goes with the
 * `profile` scope, and, as oidc-provider does by default, only in userinfo, not the ID token), and the
 * provider's own development login and consent pages. oidc-provider is an ES module: `import()`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Teardown } from './gateway';

export interface TestAccount {
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
}

export interface TestIdentityProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export async function startIdentityProvider(
  t: Teardown,
  redirectUri: string,
  accounts: Readonly<Record<string, TestAccount>>,
): Promise<TestIdentityProvider> {
  const { default: Provider } = await import('oidc-provider');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  );
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { clientId: 'gateway-console', clientSecret: 'test-client-secret-0123456789' };
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { methods: ['S256'], required: () => true },
    claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email'] },
    cookies: { keys: ['test-provider-cookie-key'] },
    jwks: { keys: [{ ...signing, kid: 'test', use: 'sig', alg: 'RS256' }] },
    findAccount: (_ctx, id) => {
      const account = accounts[id];
      return (
        account && { accountId: id, claims: () => ({ sub: id, ...account, groups: [...account.groups] }) }
      );
    },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  return { issuer, ...client };
}
