/**
 * The console's shell: sign-in, then the views the caller's role may see (chosen by the URL's hash):
 * keys, teams, usage, video tasks, the audit log and the admin tokens.
 */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import type { Caller } from '../../core/admin/wire';
import { caller, identify, onSignedOut, resumeSession, signOnOffered, signOut, token } from './api';
import { can, roleName, type Ability } from './abilities';
import { SignIn } from './sign-in';
import { AuditView } from './audit';
import { KeysView } from './keys';
import { TasksView } from './tasks';
import { TeamsView } from './teams';
import { TokensView } from './tokens';
import { UsageView } from './usage';

const VIEWS: Readonly<Record<string, { title: string; view: ComponentType; needs?: Ability }>> = {
  keys: { title: 'Keys', view: KeysView },
  teams: { title: 'Teams', view: TeamsView },
  usage: { title: 'Usage', view: UsageView },
  tasks: { title: 'Video tasks', view: TasksView },
  audit: { title: 'Audit log', view: AuditView, needs: 'see-audit' },
  tokens: { title: 'Admin tokens', view: TokensView, needs: 'see-tokens' },
};

/** The views `who` may see, in the menu's order. */
const viewsFor = (who: Caller | null): string[] =>
  Object.keys(VIEWS).filter((name) => {
    const needs = VIEWS[name]!.needs;
    return needs === undefined || can(who, needs);
  });

/** The view the URL's hash names, if the caller may see it; else the keys. */
const viewOf = (): string => {
  const name = location.hash.slice(1);
  return viewsFor(caller()).includes(name) ? name : 'keys';
};

/** Signed in with the saved token (asking the gateway whose it is), else with the single sign-on session. */
async function signInState(): Promise<{ signedIn: boolean; sso: boolean }> {
  const sso = await signOnOffered();
  if (token() !== null) {
    const known = await identify().then(
      () => true,
      () => false,
    );
    if (known) return { signedIn: true, sso };
  }
  return { signedIn: sso && (await resumeSession()), sso };
}

function App() {
  // Unknown until the gateway is asked; nothing is drawn meanwhile (a moment, on loopback).
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  const [sso, setSso] = useState(false);
  const [view, setView] = useState(viewOf());
  useEffect(() => {
    void signInState().then((state) => {
      setSso(state.sso);
      setSignedIn(state.signedIn);
      setView(viewOf());
    });
    return onSignedOut(() => setSignedIn(false));
  }, []);
  useEffect(() => {
    const onHash = () => setView(viewOf());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (signedIn === null) return null;
  const onSignedIn = () => {
    setSignedIn(true);
    setView(viewOf());
  };
  if (!signedIn) return html`<${SignIn} sso=${sso} onSignedIn=${onSignedIn} />`;
  const who = caller();
  const Shown = VIEWS[view]!.view;
  return html`<header class="top">
      <strong>Model gateway</strong>
      <nav>
        ${viewsFor(who).map(
          (name) =>
            html`<a href=${`#${name}`} aria-current=${view === name ? 'page' : undefined}
              >${VIEWS[name]!.title}</a
            >`,
        )}
      </nav>
      ${who && html`<span class="who" title=${who.id}>${who.name} (${roleName(who.role)})</span>`}
      <button type="button" onClick=${() => void signOut()}>Sign out</button>
    </header>
    <main key=${view}><${Shown} /></main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
