/**
 * The console's single sign-on in headless Chromium against a real gateway and a real OpenID provider
 * (oidc-provider and its own login and consent pages): the sign-in page offers SSO, the provider's
 * login brings the person back into the console with an HttpOnly cookie the page cannot read, a key is
 * created (a changing call with the session's CSRF token), and signing out ends the session. A
 * screenshot of each step goes to test-output/screenshots/.
 */
import t from 'tap';
import { needsChromium, openConsolePage, shot } from '../helpers/chromium';
import { startSsoGateway } from '../helpers/sso';

t.test(
  'the console in Chromium: sign in through the identity provider, work, sign out',
  needsChromium,
  async (t) => {
    const gw = await startSsoGateway(t);
    const { page, problems } = await openConsolePage(t, gw.admin);

    await page.goto(`${gw.admin}/`);
    const sso = page.getByRole('link', { name: 'Sign in with SSO' });
    await sso.waitFor();
    t.ok(await page.getByLabel('Admin token').isVisible(), 'the token stays on offer beside SSO');
    await shot(page, 'sso-01-sign-in');

    await sso.click();
    await page.locator('input[name="login"]').waitFor();
    t.ok(page.url().startsWith(gw.idp.issuer), "the browser is at the identity provider's login page");
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any password');
    await shot(page, 'sso-02-provider-login');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click(); // the provider's consent page

    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    t.equal(page.url(), `${gw.admin}/`, 'back in the console');
    t.equal(await page.locator('.top .who').innerText(), 'Alice Admin (admin)', 'named, with the role');
    const held = await page.evaluate('({ session: sessionStorage.length, cookie: document.cookie })');
    t.same(
      held,
      { session: 0, cookie: '' },
      'no token in the tab, and the session cookie is out of scripts’ reach',
    );
    await shot(page, 'sso-03-signed-in');

    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Description').fill('made through SSO');
    await page.locator('dialog').getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('textbox', { name: 'New key', exact: true });
    await shown.waitFor();
    t.match(await shown.inputValue(), /^sk-/, 'a changing call on the session goes through');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText('made through SSO').waitFor();
    await shot(page, 'sso-04-key-made');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await sso.waitFor();
    await page.reload();
    await sso.waitFor();
    t.notOk(
      await page.getByRole('heading', { name: 'Keys' }).isVisible(),
      'after a reload, still signed out',
    );
    const session = await page.evaluate(async () => (await fetch('/admin/session')).status);
    t.equal(session, 401, 'the session is over on the gateway');
    await shot(page, 'sso-05-signed-out');
    t.strictSame(problems, [], 'no script errors or CSP violations in the page');
  },
);
