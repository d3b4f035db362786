/** The console's shell: sign-in, then the keys, usage and video task views (chosen by the URL's hash). */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSignedOut, signOut, token } from './api';
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

function App() {
  const [signedIn, setSignedIn] = useState(token() !== null);
  const [view, setView] = useState<View>(viewOf());
  useEffect(() => onSignedOut(() => setSignedIn(false)), []);
  useEffect(() => {
    const onHash = () => setView(viewOf());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  if (!signedIn) return html`<${SignIn} onSignedIn=${() => setSignedIn(true)} />`;
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
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <main><${VIEWS[view].view} /></main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
