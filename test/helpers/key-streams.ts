/** For key revocation tests: a long stream held open, and how and when it ended. */
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { openStream, sseJson, untilData } from './http';

export { keyId } from '../../core/keys/api-key';

/** 5 tokens/s × 100 tokens: twenty seconds of stream unless something ends it. */
const LONG_STREAM = { 'x-sim-tps': '5', 'x-sim-tokens': '100' };
const CHAT = { model: 'modela-5.5', messages: [{ role: 'user', content: 'hi' }], stream: true };

export interface StreamEnd {
  /** performance.now() when the response ended. */
  readonly at: number;
  readonly text: string;
  /** The last event's error, if it was an error frame. */
  readonly error: { code?: string; type?: string } | undefined;
}

export interface OpenStream {
  readonly res: IncomingMessage;
  /** Resolves when the response ends. */
  readonly ended: Promise<StreamEnd>;
  /** Whether it has ended yet. */
  isOpen(): boolean;
}

/** Opens a long chat stream with `key` and resolves once its first content has arrived. */
export async function openLongStream(gatewayUrl: string, key: string): Promise<OpenStream> {
  const res = await openStream(`${gatewayUrl}/v1/chat/completions`, CHAT, key, LONG_STREAM);
  res.setEncoding('utf8');
  let text = '';
  let open = true;
  res.on('data', (chunk: string) => (text += chunk));
  const ended = new Promise<StreamEnd>((resolve) => {
    const done = (): void => {
      open = false;
      const events = sseJson<{ error?: { code?: string; type?: string } }>(text);
      resolve({ at: performance.now(), text, error: events[events.length - 1]?.error });
    };
    res.on('end', done).on('close', done);
  });
  await untilData(res, '"content":"Lorem"');
  return { res, ended, isOpen: () => open };
}
