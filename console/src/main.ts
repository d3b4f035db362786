/** The console's shell: sign-in, then the keys, usage and video task views (chosen by the URL's hash). */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSignedOut, person, resumeSession, signOnOffered, signOut, token } from './api';
import { SignIn } from './sign-in';
import { KeysView } from './keys';
import { TasksView } from './tasks';
import { UsageView } from './usage';

const VIEWS = {
  keys: { title: 'Keys', view: KeysView },
  usage: { title: 'Usage', view: UsageView },
  tasks: { title: 'Video tasks', view: TasksView },
} as const;
type View = keyof typeof VIEWS;
const viewOf = (): View => {
  const name = location.hash.slice(1);
  return Object.hasOwn(VIEWS, name) ? (name as View) : 'keys';
};

/** Signed in with the saved token, else with the single sign-on session the cookie holds, if offered. */
async function signInState(): Promise<{ signedIn: boolean; sso: boolean }> {
  const sso = await signOnOffered();
  if (token() !== null) return { signedIn: true, sso };
  return { signedIn: sso && (await resumeSession()), sso };
}

function App() {
  // Unknown until the gateway is asked; nothing is drawn meanwhile (a moment, on loopback).
  const [signedIn, setSignedIn] = useState<boolean | null>(token() !== null ? true : null);
  const [sso, setSso] = useState(false);
  const [view, setView] = useState<View>(viewOf());
  useEffect(() => {
    void signInState().then((state) => {
      setSso(state.sso);
      setSignedIn(state.signedIn);
    });
    return onSignedOut(() => setSignedIn(false));
  }, []);
  useEffect(() => {
    const onHash = () => setView(viewOf());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (signedIn === null) return null;
  if (!signedIn) return html`<${SignIn} sso=${sso} onSignedIn=${() => setSignedIn(true)} />`;
  const who = person();
  return html`<header class="top">
      <strong>Model gateway</strong>
      <nav>
        ${(Object.keys(VIEWS) as View[]).map(
          (name) =>
            html`<a href=${`#${name}`} aria-current=${view === name ? 'page' : undefined}
              >${VIEWS[name].title}</a
            >`,
        )}
      </nav>
      ${who && html`<span class="who" title=${who.id}>${who.name} (${who.role.replace('_', ' ')})</span>`}
      <button type="button" onClick=${() => void signOut()}>Sign out</button>
    </header>
    <main><${VIEWS[view].view} /></main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
