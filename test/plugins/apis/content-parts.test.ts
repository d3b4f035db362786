/**
 * Content parts are checked against the API's part types: a part of an unknown type, or a known type with
 * a malformed body, is refused with 400 naming its path, and never forwarded; valid parts pass unchanged.
 */
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway';
import { isError } from '../../helpers/errors';
import { postJson } from '../../helpers/http';
import { newId, upstreamBody } from '../chat-helpers';
import { VERSION } from '../messages-helpers';
import { submitVideo, VIDEOB_MODEL } from '../video-helpers';

const user = (content: unknown) => [{ role: 'user', content }];

void t.test('chat content parts', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/chat/completions`;
  const refused: [unknown, string][] = [
    [[{ type: 'txt', text: 'hi' }], "'messages[0].content[0].type'"],
    [[{ text: 'no type' }], "'messages[0].content[0].type'"],
    [['a bare string'], "'messages[0].content[0].type'"],
    [[{ type: 'text', text: 5 }], "'messages[0].content[0]'"],
    [
      [
        { type: 'text', text: 'ok' },
        { type: 'image_url', image_url: 'http://x/y.png' },
      ],
      "'messages[0].content[1]'",
    ],
    [[{ type: 'image_url', image_url: { url: '' } }], "'messages[0].content[0]'"],
    [[{ type: 'input_audio', input_audio: { data: 'AAAA' } }], "'messages[0].content[0]'"],
  ];
  for (const [content, path] of refused) {
    const id = newId('chat-part');
    const res = await postJson(url, { model: 'modela-5.5', messages: user(content) }, gw.key, {
      'x-request-id': id,
    });
    isError(t, res, 400, 'invalid_request', path);
    t.equal(gw.sim.log.list(id).length, 0, 'nothing sent upstream');
  }
  const parts = [
    { type: 'text', text: 'What is in this image?' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
  ];
  const id = newId('chat-parts-ok');
  const ok = await postJson(url, { model: 'modela-5.5', messages: user(parts) }, gw.key, {
    'x-request-id': id,
  });
  t.equal(ok.status, 200);
  t.strictSame(
    (upstreamBody(gw, id).messages as { content: unknown }[])[0]!.content,
    parts,
    'forwarded as sent',
  );
});

void t.test('messages content blocks and system blocks', async (t) => {
  const gw = await startTestGateway(t);
  const url = `${gw.url}/v1/messages`;
  const base = { model: 'modeld-sonnet-4-6', max_tokens: 64 };
  const refused: [Record<string, unknown>, string][] = [
    [{ messages: user([{ type: 'video', source: {} }]) }, "'messages[0].content[0].type'"],
    [{ messages: user([{ type: 'image', source: { type: 'ftp' } }]) }, "'messages[0].content[0]'"],
    [
      {
        messages: [
          ...user('hi'),
          { role: 'assistant', content: [{ type: 'tool_use', name: 'f', input: {} }] },
        ],
      },
      "'messages[1].content[0]'",
    ],
    [{ messages: user([{ type: 'tool_result', content: 'x' }]) }, "'messages[0].content[0]'"],
    [
      { messages: user('hi'), system: [{ type: 'image', source: { type: 'url', url: 'x' } }] },
      "'system[0].type'",
    ],
  ];
  for (const [body, path] of refused) {
    const id = newId('block');
    const res = await postJson(url, { ...base, ...body }, gw.key, { 'x-request-id': id, ...VERSION });
    isError(t, res, 400, 'invalid_request', path);
    t.equal(gw.sim.log.list(id).length, 0, 'nothing sent upstream');
  }
  const conversation = [
    { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '18°C' }] }],
    },
    // A server tool's turn, echoed back as the vendor sent it.
    {
      role: 'assistant',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'Paris' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [] },
        { type: 'text', text: 'It is mild.' },
      ],
    },
    { role: 'user', content: 'Thanks.' },
  ];
  const id = newId('blocks-ok');
  const ok = await postJson(url, { ...base, messages: conversation }, gw.key, {
    'x-request-id': id,
    ...VERSION,
  });
  t.equal(ok.status, 200);
  t.strictSame(upstreamBody(gw, id).messages, conversation, 'forwarded as sent');
});

void t.test('videob content items', async (t) => {
  const gw = await startTestGateway(t);
  const text = { type: 'text', text: 'a cat on a wall --duration 5' };
  const refused: [unknown[], string][] = [
    [[text, { type: 'gif_url', gif_url: { url: 'https://x/a.gif' } }], "'content[1].type'"],
    [[text, { type: 'image_url', image_url: {} }], "'content[1]'"],
    [[text, { type: 'image_url', image_url: { url: 'https://x/a.png' }, role: 7 }], "'content[1]'"],
  ];
  for (const [content, path] of refused) {
    const res = await submitVideo(gw, 'native-b', { model: VIDEOB_MODEL, content });
    isError(t, res, 400, 'invalid_request', path);
  }
  const ok = await submitVideo(gw, 'native-b', {
    model: VIDEOB_MODEL,
    content: [text, { type: 'image_url', image_url: { url: 'https://x/a.png' }, role: 'first_frame' }],
  });
  t.equal(ok.status, 200, 'a first-frame image passes');
});
