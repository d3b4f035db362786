/**
 * A reader's skim changes what is parsed, never what it counts: a recorded stream read event by event
 * and the same stream read with the events its skim passes handed over unread give the same usage
 * (estimates of cut streams included) and the same end, for the chat and messages readers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RelayingReader } from '../../../core/contracts/reader';
import { SseFrames } from '../../../core/proxy/sse-frames';
import { ChatResponseReader } from '../../../plugins/upstreams/openai-compatible/chat-reader';
import { MessagesResponseReader } from '../../../plugins/upstreams/modeld/messages-reader';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'kit', 'fixtures');

/** What a reader made of `stream`, fed in reads of `piece` bytes. */
function readAll(reader: RelayingReader, stream: Buffer, piece: number, skimming: boolean) {
  const { skim } = reader;
  const frames = new SseFrames(
    (_buf, _start, _end, ev) => void (ev && reader.event(ev)),
    skimming && skim
      ? {
          reads: (frame) => skim.reads(frame),
          onRun: (buf, start, end) => skim.passed(buf.subarray(start, end)),
        }
      : undefined,
  );
  for (let at = 0; at < stream.length; at += piece) frames.push(stream.subarray(at, at + piece));
  frames.end();
  return { usage: reader.usage(), complete: reader.complete, failed: reader.failed };
}

/** Whole streams as the vendors end them, beside the recorded cut ones. */
const WHOLE_CHAT = Buffer.from(
  [
    'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}],"usage":null}',
    'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}',
    'data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}',
    'data: [DONE]',
  ].join('\n\n') + '\n\n',
);
const WHOLE_MESSAGES = Buffer.from(
  [
    'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
    'event: message_stop\ndata: {"type":"message_stop"}',
  ].join('\n\n') + '\n\n',
);

const READERS: Readonly<Record<string, { files: readonly string[]; make: () => RelayingReader }>> = {
  'chat, usage asked by the gateway': {
    files: ['modela/stream-cut.sse', 'modelc/stream-cut.sse', 'modelc/stream-no-usage.sse'],
    make: () => new ChatResponseReader(true, false, () => 17),
  },
  'chat, usage asked by the gateway of a vendor that sends `"usage":null` unasked': {
    files: ['modela/stream-cut.sse', 'modelc/stream-cut.sse', 'modelc/stream-no-usage.sse'],
    make: () => new ChatResponseReader(true, true, () => 17),
  },
  'chat, usage asked by the client': {
    files: ['modela/stream-cut.sse', 'modelc/stream-cut.sse', 'modelc/stream-no-usage.sse'],
    make: () => new ChatResponseReader(false, false, () => 17),
  },
  messages: {
    files: [
      'modeld/stream-cut-before-usage.sse',
      'modeld/stream-cut-after-usage.sse',
      'modeld/stream-error-overloaded.sse',
    ],
    make: () => new MessagesResponseReader(() => 17),
  },
};

void t.test('the same usage and end with a skim as without', (t) => {
  for (const [name, { files, make }] of Object.entries(READERS)) {
    t.ok(make().skim, `${name}: the reader skims`);
    const whole = name === 'messages' ? WHOLE_MESSAGES : WHOLE_CHAT;
    t.ok(readAll(make(), whole, whole.length, true).complete, `${name}: a whole stream is complete`);
    for (const file of [...files, 'whole']) {
      const stream = file === 'whole' ? whole : readFileSync(join(FIXTURES, file));
      const everyEvent = readAll(make(), stream, stream.length, false);
      for (const piece of [stream.length, 97, 7]) {
        t.strictSame(
          readAll(make(), stream, piece, true),
          everyEvent,
          `${name}, ${file}, reads of ${piece} bytes`,
        );
      }
    }
  }
  t.end();
});
