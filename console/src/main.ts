/** The console's shell: sign-in, then the keys and usage views (chosen by the URL's hash). */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSignedOut, signOut, token } from './api';
import { SignIn } from './sign-in';
import { KeysView } from './keys';
import { UsageView } from './usage';

type View = 'keys' | 'usage';
const viewOf = (): View => (location.hash === '#usage' ? 'usage' : 'keys');

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
        <a href="#keys" aria-current=${view === 'keys' ? 'page' : undefined}>Keys</a>
        <a href="#usage" aria-current=${view === 'usage' ? 'page' : undefined}>Usage</a>
      </nav>
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <main>${view === 'keys' ? html`<${KeysView} />` : html`<${UsageView} />`}</main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
