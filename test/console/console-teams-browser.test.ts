/**
 * Teams, admin tokens and the audit log in the console, in headless Chromium against a real gateway and
 * a real OpenID provider: an admin signs in through the provider, makes a team with a budget and a key
 * in it, spends from it with the openai client, sees the spend against the team's budget, is refused
 * deleting a team that has keys, makes admin tokens (each shown once), and finds all of it in the audit
 * log, filtered and exported as CSV with no secret in it. Then a team admin and a viewer sign in with
 * their tokens and are offered only what their roles allow. A screenshot of each step goes to
 * test-output/screenshots/.
 */
import t, { type Test } from 'tap';
import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import type { KeyWithActivity, List, PublicKey, TeamWithActivity } from '../../core/admin/wire';
import { adminCall } from '../helpers/admin';
import { needsChromium, openConsolePage, shot } from '../helpers/chromium';
import { startSsoGateway, type SsoGateway } from '../helpers/sso';

const menu = async (page: Page): Promise<string[]> =>
  (await page.locator('.top nav a').allInnerTexts()).map((s) => s.trim());

async function signInThroughProvider(page: Page, gw: SsoGateway, login: string): Promise<void> {
  await page.goto(`${gw.admin}/`);
  await page.getByRole('link', { name: 'Sign in with SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click(); // the provider's consent page
  await page.getByRole('heading', { name: 'Keys' }).waitFor();
}

async function signInWithToken(page: Page, gw: SsoGateway, token: string): Promise<void> {
  await page.goto(`${gw.admin}/`);
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Keys' }).waitFor();
}

/** Creates an admin token in the dialog; returns it as shown that once. */
async function createToken(t: Test, page: Page, role: string, team?: string): Promise<string> {
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByLabel('Description').fill(`console ${role}`);
  await page.getByLabel('Role').selectOption(role);
  if (team) await page.locator('dialog select[name="team"]').selectOption({ label: team });
  await page.locator('dialog').getByRole('button', { name: 'Create token' }).click();
  const shown = page.getByRole('textbox', { name: 'New admin token', exact: true });
  await shown.waitFor();
  const token = await shown.inputValue();
  t.match(token, /^gat-[A-Za-z0-9_-]{43}$/, `the ${role} token is shown`);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.locator(`tr[data-token="${token.slice(0, 12)}"]`).waitFor();
  t.notOk((await page.content()).includes(token), 'and leaves the page when the dialog closes');
  return token;
}

t.test(
  'teams, tokens and the audit log in Chromium: an admin through SSO, then a team admin and a viewer',
  needsChromium,
  async (t) => {
    const gw = await startSsoGateway(t, (doc) => {
      doc.prices = { 'modela-*': { input_per_mtok: 1.25, output_per_mtok: 10 } };
    });
    // 401 and 403 are the refusals the test provokes; 409 the team that still has keys.
    const { page, problems } = await openConsolePage(t, gw.admin, /40[139] \(/, { width: 1400, height: 860 });

    await signInThroughProvider(page, gw, 'alice');
    t.strictSame(
      await menu(page),
      ['Keys', 'Teams', 'Usage', 'Video tasks', 'Audit log', 'Admin tokens'],
      'an admin is offered every view',
    );

    // A team with a monthly budget, limits and metadata.
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByLabel('Name').fill('Research');
    await page.getByLabel('Rate limit (requests/min)').fill('100');
    await page.getByLabel('Budget').fill('0.001');
    await page.getByLabel('Metadata').fill('cost_centre=4711');
    await page.getByLabel('Guardrails').fill('team-rule');
    await page.getByLabel('Allowed tools').fill('search__*, demo__add');
    await shot(page, 'teams-00-team-dialog');
    await page.locator('dialog').getByRole('button', { name: 'Create team' }).click();
    const teamRow = page.locator('table.teams tbody tr', { hasText: 'Research' });
    await teamRow.waitFor();
    const team = (await adminCall<List<TeamWithActivity>>(gw, gw.gateway.adminToken, 'GET', '/admin/teams'))
      .body.data[0]!;
    t.match(team, { name: 'Research', rate_limit_rpm: 100, metadata: { cost_centre: '4711' } });
    t.strictSame(team.guardrails, ['team-rule'], 'the guardrails as entered');
    t.strictSame(team.allowed_tools, ['search__*', 'demo__add'], 'the tools as entered');
    t.strictSame(team.budget, { amount_micros: 1000, period: 'month' }, 'the budget as entered');

    // A key in the team, made in the key dialog, and a call on it.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Description').fill('research bot');
    await page.locator('dialog').getByLabel('Team').selectOption({ label: 'Research' });
    await page.locator('dialog').getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('textbox', { name: 'New key', exact: true });
    await shown.waitFor();
    const key = await shown.inputValue();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const keyRow = page.locator(`tr[data-key="${key.slice(0, 11)}"]`);
    await keyRow.waitFor();
    t.match(await keyRow.innerText(), /research bot[\s\S]*Research/, 'the key row names its team');
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'modela-5.5',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Say hello' }],
    });

    await page.getByRole('link', { name: 'Teams' }).click();
    await teamRow.waitFor();
    const spent = (
      await adminCall<TeamWithActivity>(gw, gw.gateway.adminToken, 'GET', `/admin/teams/${team.id}`)
    ).body;
    t.ok(spent.spent_micros > 0, `the call counts against the team (${spent.spent_micros} micro-units)`);
    const cells = await teamRow.locator('td').allInnerTexts();
    t.equal(cells[2], '1', 'one key in the team');
    t.equal(cells[4], 'search__*, demo__add', 'its tools');
    t.equal(cells[5], 'team-rule', 'its guardrails');
    t.match(cells[6], /100\/min/, "the team's limit");
    t.equal(cells[7], '0.001 / month', 'its budget');
    t.match(cells[9], new RegExp(`${Math.round((spent.spent_micros / 1000) * 100)}%`), 'the share spent');
    await shot(page, 'teams-01-teams');

    // The team's guardrails and tools, cleared in the edit dialog.
    await teamRow.getByRole('button', { name: 'Edit' }).click();
    t.equal(await page.getByLabel('Guardrails').inputValue(), 'team-rule', 'the edit shows them');
    t.equal(await page.getByLabel('Allowed tools').inputValue(), 'search__*, demo__add', 'and the tools');
    await page.getByLabel('Guardrails').fill('');
    await page.getByLabel('Allowed tools').fill('');
    await page.locator('dialog').getByRole('button', { name: 'Save' }).click();
    await teamRow.locator('td:nth-child(6)', { hasText: '—' }).waitFor();
    t.equal(await teamRow.locator('td:nth-child(5)').innerText(), 'all', 'every tool again');
    const edited = await adminCall<TeamWithActivity>(
      gw,
      gw.gateway.adminToken,
      'GET',
      `/admin/teams/${team.id}`,
    );
    t.notOk('guardrails' in edited.body, 'an emptied field clears them');
    t.notOk('allowed_tools' in edited.body, 'and the tools');

    await teamRow.getByRole('button', { name: 'Delete' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: /key/ }).waitFor();
    t.match(
      await page.getByRole('alert').innerText(),
      /1 key/,
      'a team with keys is not deleted: the console says why',
    );
    t.equal(await teamRow.count(), 1, 'and the team is still there');

    // Admin tokens, each shown once.
    await page.getByRole('link', { name: 'Admin tokens' }).click();
    await page.locator('tr[data-token="bootstrap"]').waitFor();
    t.equal(
      await page.locator('tr[data-token="bootstrap"]').getByRole('button', { name: 'Revoke' }).count(),
      0,
      'the bootstrap token is not revoked from the console',
    );
    const teamAdmin = await createToken(t, page, 'team_admin', 'Research');
    const viewer = await createToken(t, page, 'viewer');
    const teamAdminRow = page.locator(`tr[data-token="${teamAdmin.slice(0, 12)}"]`);
    t.match(await teamAdminRow.innerText(), /console team_admin[\s\S]*team admin[\s\S]*Research/);
    await shot(page, 'teams-02-admin-tokens');

    // The audit log: each change above, by the person signed in.
    await page.getByRole('link', { name: 'Audit log' }).click();
    const entries = page.locator('table.audit tbody tr');
    await entries.filter({ hasText: 'token.create' }).first().waitFor();
    const actions = await page.locator('table.audit tbody tr td:nth-child(3)').allInnerTexts();
    for (const action of ['team.create', 'key.create', 'team.delete', 'token.create']) {
      t.ok(actions.includes(action), `${action} is in the log`);
    }
    t.match(
      await entries.filter({ hasText: 'team.delete' }).innerText(),
      /Alice Admin[\s\S]*409 team_has_keys/,
      'the refused delete, by whom and why',
    );
    await shot(page, 'teams-03-audit');

    await page.getByPlaceholder('Action, e.g. key.update').fill('team.create');
    await page.getByPlaceholder('Action, e.g. key.update').press('Enter');
    await entries.filter({ hasText: 'token.create' }).first().waitFor({ state: 'detached' });
    t.equal(await entries.count(), 1, 'filtered by action: the one team made');
    t.match(await entries.innerText(), /name: null → "Research"/, 'with its fields before and after');
    await shot(page, 'teams-04-audit-filtered');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const exported = await readFile(await download.path(), 'utf8');
    const lines = exported.trim().split('\r\n');
    t.match(lines[0], /^at,actor_kind,actor_id,actor_name,actor_role,action,target_kind,target_id,status/);
    t.equal(lines.length, 2, 'the export holds the entries matching the filters');
    t.match(lines[1], /,person,.*,Alice Admin,admin,team\.create,team,/);

    await page.getByPlaceholder('Action, e.g. key.update').fill('');
    await page.getByPlaceholder('Action, e.g. key.update').press('Enter');
    await entries.filter({ hasText: 'token.create' }).first().waitFor();
    const [all] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const whole = await readFile(await all.path(), 'utf8');
    for (const secret of [key, teamAdmin, viewer, gw.gateway.adminToken]) {
      t.notOk(whole.includes(secret) || whole.includes(secret.slice(-20)), 'no key or token in the log');
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();

    // A key outside the team, which the team admin must not see.
    const outside = await adminCall<{ record: PublicKey }>(gw, gw.gateway.adminToken, 'POST', '/admin/keys', {
      description: 'outside the team',
    });

    await signInWithToken(page, gw, teamAdmin);
    t.strictSame(
      await menu(page),
      ['Keys', 'Teams', 'Usage', 'Video tasks'],
      'a team admin: no audit log or tokens',
    );
    t.equal(await page.locator('.top .who').innerText(), 'console team_admin (team admin)');
    await page.locator(`tr[data-key="${key.slice(0, 11)}"]`).waitFor();
    t.equal(
      await page.locator(`tr[data-key="${outside.body.record.id}"]`).count(),
      0,
      "another team's keys are not listed",
    );
    await page.getByRole('button', { name: 'Create key' }).click();
    const teamChoice = page.locator('dialog').getByLabel('Team');
    t.ok(await teamChoice.isDisabled(), 'the team is not a choice');
    t.equal(await teamChoice.locator('option:checked').innerText(), 'Research', 'it is the own team');
    await page.getByLabel('Description').fill('made by the team admin');
    await page.locator('dialog').getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText('made by the team admin').waitFor();
    const listed = await adminCall<List<KeyWithActivity>>(gw, gw.gateway.adminToken, 'GET', '/admin/keys');
    t.equal(
      listed.body.data.find((k) => k.description === 'made by the team admin')?.team_id,
      team.id,
      'the key is made in the team',
    );
    await shot(page, 'teams-05-team-admin-keys');
    await page.getByRole('link', { name: 'Teams' }).click();
    await teamRow.waitFor();
    t.equal(await page.locator('table.teams tbody tr').count(), 1, 'its own team only');
    t.equal(await page.getByRole('button', { name: 'Create team' }).count(), 0, 'and no team changes');
    t.equal(await teamRow.getByRole('button').count(), 0);
    await shot(page, 'teams-06-team-admin-team');
    await page.goto(`${gw.admin}/#audit`);
    await page.getByRole('heading', { name: 'Keys' }).waitFor();
    t.pass('the audit log, asked for by URL, is not shown: the keys are');
    await page.getByRole('button', { name: 'Sign out' }).click();

    await signInWithToken(page, gw, viewer);
    t.strictSame(await menu(page), ['Keys', 'Teams', 'Usage', 'Video tasks', 'Audit log', 'Admin tokens']);
    await page.locator(`tr[data-key="${outside.body.record.id}"]`).waitFor();
    t.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0, 'a viewer makes no keys');
    t.equal(await page.locator('table.keys th', { hasText: 'Actions' }).count(), 0, 'and has no actions');
    await page.getByRole('link', { name: 'Admin tokens' }).click();
    await teamAdminRow.waitFor();
    t.equal(await page.getByRole('button', { name: /Create token|Revoke/ }).count(), 0, 'nor token changes');
    await page.getByRole('link', { name: 'Audit log' }).click();
    await entries.first().waitFor();
    await shot(page, 'teams-07-viewer-audit');
    t.strictSame(problems, [], 'no script errors in the page');
  },
);
