import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { fakeClock } from '../helpers/clock';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import {
  MODELD,
  messages,
  onClock,
  readNamedSse,
  user,
  type MessageEvent,
  type MessageReply,
} from './helpers';

const LOREM_12 = 'Lorem ipsum dolor sit amet consectetur adipiscing elit sed do Lorem ipsum';
const TOOLS = [
  { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } },
  { name: 'get_time', input_schema: { type: 'object', properties: {} } },
];

/** A minimal valid Messages body, with `extra` fields merged in. */
const ask = (prompt: string, extra: object = {}): object => ({
  model: 'modeld-test',
  max_tokens: 1024,
  messages: user(prompt),
  ...extra,
});

/** The vendor's error body for `type`, with the request id the response header names. */
const errorBody = (type: string, message: unknown = String): object => ({
  type: 'error',
  error: { type, message },
  request_id: /^req_/,
});

/** What the deltas of block `index` add up to, by delta key. */
function deltaText(
  events: readonly MessageEvent[],
  index: number,
  key: 'text' | 'thinking' | 'partial_json',
): string {
  return events
    .filter((e) => e.type === 'content_block_delta' && e.index === index)
    .map((e) => e.delta?.[key] ?? '')
    .join('');
}

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

void t.test('auth, version header and front-door validation', async (t) => {
  await t.test('x-api-key or a bearer token', async (t) => {
    const byApiKey = await messages(sim, ask('hi'));
    t.equal(byApiKey.status, 200);
    await byApiKey.arrayBuffer();
    const byBearer = await messages(sim, ask('hi'), {
      'x-api-key': undefined,
      authorization: `Bearer ${MODELD.key}`,
    });
    t.equal(byBearer.status, 200);
    await byBearer.arrayBuffer();
  });

  await t.test('401 in the vendor shape, before the version header is looked at', async (t) => {
    for (const headers of [
      { 'x-api-key': 'wrong' },
      { 'x-api-key': undefined },
      { 'x-api-key': undefined, authorization: 'Bearer wrong' },
      { 'x-api-key': undefined, authorization: MODELD.key },
      { 'x-api-key': 'wrong', 'modeld-version': undefined },
    ]) {
      const res = await messages(sim, ask('hi'), headers);
      t.equal(res.status, 401, JSON.stringify(headers));
      const body = (await res.json()) as { request_id: string };
      t.strictSame(body, {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: res.headers.get('request-id'),
      });
    }
  });

  await t.test('custom keys replace the default', async (t) => {
    const custom = await startSimulator({ keys: { modeld: 'other' } });
    t.teardown(() => custom.close());
    t.equal((await messages(custom, ask('hi'))).status, 401);
    const ok = await messages(custom, ask('hi'), { 'x-api-key': 'other' });
    t.equal(ok.status, 200);
    await ok.arrayBuffer();
  });

  await t.test('modeld-version is required and must be 2023-06-01', async (t) => {
    const missing = await messages(sim, ask('hi'), { 'modeld-version': undefined });
    t.equal(missing.status, 400);
    t.strictSame(await missing.json(), {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'modeld-version: header is required' },
      request_id: missing.headers.get('request-id'),
    });
    const wrong = await messages(sim, ask('hi'), { 'modeld-version': '2024-01-01' });
    t.equal(wrong.status, 400);
    t.match(await wrong.json(), errorBody('invalid_request_error', /modeld-version: "2024-01-01"/));
    const vendorsName = await messages(sim, ask('hi'), {
      'modeld-version': undefined,
      'anthropic-version': MODELD.version,
    });
    t.equal(vendorsName.status, 400, "the vendor's own header name does not stand in for it");
    await vendorsName.arrayBuffer();
  });

  await t.test('400 naming the field at fault', async (t) => {
    const cases: [unknown, RegExp][] = [
      [[1, 2], /JSON object/],
      [{ max_tokens: 10, messages: user('hi') }, /^model: Field required$/],
      [{ model: '', max_tokens: 10, messages: user('hi') }, /^model: Input should be/],
      [{ model: 'm', messages: user('hi') }, /^max_tokens: Field required$/],
      [
        { model: 'm', max_tokens: 0, messages: user('hi') },
        /^max_tokens: Input should be a positive integer/,
      ],
      [{ model: 'm', max_tokens: 1.5, messages: user('hi') }, /^max_tokens: /],
      [{ model: 'm', max_tokens: '10', messages: user('hi') }, /^max_tokens: /],
      [{ model: 'm', max_tokens: 10 }, /^messages: Field required$/],
      [{ model: 'm', max_tokens: 10, messages: [] }, /^messages: Input should be a non-empty list/],
      [{ model: 'm', max_tokens: 10, messages: 'hi' }, /^messages: /],
      [{ model: 'm', max_tokens: 10, messages: ['hi'] }, /^messages\.0: /],
      [
        { model: 'm', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
        /^messages\.0\.role: Input should be 'user' or 'assistant'$/,
      ],
      [
        { model: 'm', max_tokens: 10, messages: [...user('a'), { content: 'b' }] },
        /^messages\.1\.role: Field required$/,
      ],
      [{ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 7 }] }, /^messages\.0\.content: /],
      [
        { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: ['x'] }] },
        /^messages\.0\.content: /,
      ],
      ['{"model": ', /JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await messages(sim, body);
      t.equal(res.status, 400, JSON.stringify(body));
      t.match(await res.json(), errorBody('invalid_request_error', message), JSON.stringify(body));
    }
  });

  await t.test('fields the vendor accepts are accepted', async (t) => {
    const res = await messages(
      sim,
      ask('hi', {
        system: 'Be brief.',
        temperature: 1,
        top_k: 5,
        stop_sequences: ['END'],
        metadata: { user_id: 'u' },
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }],
          },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'more' },
        ],
      }),
    );
    t.equal(res.status, 200);
    await res.arrayBuffer();
  });

  await t.test('router errors in the vendor shape: 404 and 413', async (t) => {
    const notFound = await fetch(`${sim.url}/modeld/v1/complete`, { method: 'POST', body: '{}' });
    t.equal(notFound.status, 404);
    t.match(await notFound.json(), errorBody('not_found_error'));
    const wrongMethod = await fetch(sim.url + MODELD.path);
    t.equal(wrongMethod.status, 404);
    t.match(await wrongMethod.json(), errorBody('not_found_error'));
    const tooLarge = await messages(sim, ask('x'.repeat(17 * 1024 * 1024)));
    t.equal(tooLarge.status, 413);
    t.match(await tooLarge.json(), errorBody('request_too_large'));
  });

  await t.test('x-sim-status answers with the vendor type for the status', async (t) => {
    const types: [number, string][] = [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [402, 'billing_error'],
      [403, 'permission_error'],
      [404, 'not_found_error'],
      [409, 'invalid_request_error'],
      [413, 'request_too_large'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [503, 'api_error'],
      [504, 'timeout_error'],
      [529, 'overloaded_error'],
    ];
    for (const [status, type] of types) {
      const res = await messages(sim, ask('hi', { stream: true }), { 'x-sim-status': String(status) });
      t.equal(res.status, status);
      t.match(res.headers.get('content-type'), 'application/json', 'an error before the stream is JSON');
      t.equal(res.headers.get('retry-after'), status === 429 ? '1' : null);
      t.match(await res.json(), errorBody(type), `${status}`);
    }
    const fromPrompt = await messages(sim, ask('hi #sim status=529'));
    t.strictSame(await fromPrompt.json(), {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: fromPrompt.headers.get('request-id'),
    });
  });
});

void t.test('JSON replies', async (t) => {
  await t.test('message shape and usage arithmetic', async (t) => {
    // 'Be brief.' (9) + 'hello there' (11) + 'ok' (2) = 22 characters → ceil(22 / 4) = 6 input tokens
    const res = await messages(sim, {
      model: 'modeld-test',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'hello there' },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'http://x' } }] },
      ],
    });
    t.equal(res.status, 200);
    t.match(res.headers.get('request-id'), /^req_/);
    t.equal(res.headers.get('x-request-id'), null, 'the vendor names its header request-id');
    const body = (await res.json()) as MessageReply;
    t.match(body.id, /^msg_/);
    t.strictSame(body, {
      id: body.id,
      type: 'message',
      role: 'assistant',
      model: 'modeld-test',
      content: [{ type: 'text', text: LOREM_12 }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 6,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 12,
        service_tier: 'standard',
      },
    });
    t.equal(sim.log.list().at(-1)?.id, res.headers.get('request-id'), 'header carries the log id');
  });

  await t.test('text in cache_control blocks counts as cache reads', async (t) => {
    const cached = { type: 'ephemeral' };
    const res = await messages(sim, {
      model: 'm',
      max_tokens: 100,
      system: [
        { type: 'text', text: 'x'.repeat(400), cache_control: cached }, // 100 cached
        { type: 'text', text: 'y'.repeat(8) }, // 2 plain
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'z'.repeat(40), cache_control: cached }, // 10 cached
            { type: 'text', text: 'w'.repeat(4) }, // 1 plain
          ],
        },
        { role: 'assistant', content: 'v'.repeat(4) }, // 1 plain
        {
          role: 'user',
          content: [
            // A tool result's nested text counts with its block: 12 cached
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'text', text: 'r'.repeat(48) }],
              cache_control: cached,
            },
          ],
        },
      ],
    });
    const body = (await res.json()) as MessageReply;
    t.match(body.usage, { input_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 122 });
  });

  await t.test('#sim directives are read from the text blocks of the last user message', async (t) => {
    const res = await messages(sim, {
      model: 'm',
      max_tokens: 100,
      messages: [
        ...user('first #sim tokens=9'),
        { role: 'assistant', content: 'ok' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'second' },
            { type: 'text', text: '#sim tokens=2' },
          ],
        },
      ],
    });
    const body = (await res.json()) as MessageReply;
    t.strictSame(body.content, [{ type: 'text', text: 'Lorem ipsum' }]);
    t.equal(body.usage.output_tokens, 2);
  });

  await t.test('thinking comes first, with a signature, and counts as output', async (t) => {
    for (const thinking of [{ type: 'enabled', budget_tokens: 2048 }, { type: 'adaptive' }]) {
      const res = await messages(sim, ask('hi #sim tokens=3', { thinking }));
      const body = (await res.json()) as MessageReply;
      t.match(
        body.content,
        [
          { type: 'thinking', thinking: 'Let me think', signature: /^[A-Za-z0-9+/=]{20,}$/ },
          { type: 'text', text: 'Lorem ipsum dolor' },
        ],
        thinking.type,
      );
      t.equal(body.content.length, 2);
      t.equal(body.stop_reason, 'end_turn');
      t.equal(body.usage.output_tokens, 6);
    }
    const budget = await messages(
      sim,
      ask('hi #sim tokens=3', { thinking: { type: 'enabled', budget_tokens: 1 } }),
    );
    const capped = (await budget.json()) as MessageReply;
    t.match(
      capped.content,
      [{ thinking: 'Let' }, { text: 'Lorem ipsum dolor' }],
      'budget_tokens caps thinking',
    );
    t.equal(capped.usage.output_tokens, 4);
    const off = await messages(sim, ask('hi', { thinking: { type: 'disabled' } }));
    t.strictSame(((await off.json()) as MessageReply).content, [{ type: 'text', text: LOREM_12 }]);
  });

  await t.test('tools give a tool_use block and stop_reason tool_use', async (t) => {
    const res = await messages(sim, ask('weather?', { tools: TOOLS }));
    const body = (await res.json()) as MessageReply;
    t.match(body.content, [{ type: 'tool_use', id: /^toolu_/, name: 'get_weather' }]);
    t.strictSame(body.content[0]?.input, { city: 'Paris' });
    t.equal(body.content.length, 1);
    t.equal(body.stop_reason, 'tool_use');
    t.equal(body.usage.output_tokens, 5, 'one token per streamed JSON fragment');

    const chosen = await messages(
      sim,
      ask('time?', { tools: TOOLS, tool_choice: { type: 'tool', name: 'get_time' } }),
    );
    t.match(((await chosen.json()) as MessageReply).content, [{ type: 'tool_use', name: 'get_time' }]);
    const any = await messages(sim, ask('x', { tools: TOOLS, tool_choice: { type: 'any' } }));
    t.match(((await any.json()) as MessageReply).content, [{ type: 'tool_use', name: 'get_weather' }]);
    const none = await messages(sim, ask('x', { tools: TOOLS, tool_choice: { type: 'none' } }));
    const text = (await none.json()) as MessageReply;
    t.match(text, { content: [{ type: 'text' }], stop_reason: 'end_turn' });

    const thinking = await messages(
      sim,
      ask('x #sim tokens=2', { tools: TOOLS, thinking: { type: 'adaptive' } }),
    );
    const both = (await thinking.json()) as MessageReply;
    t.match(both.content, [{ type: 'thinking' }, { type: 'tool_use' }]);
    t.equal(both.usage.output_tokens, 7);
  });

  await t.test("a tool's result is answered in words unless a tool is forced", async (t) => {
    const turns = {
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '18C' }] },
      ],
    };
    const answered = await messages(sim, ask('x', turns));
    t.match(await answered.json(), { content: [{ type: 'text' }], stop_reason: 'end_turn' });
    const forced = await messages(
      sim,
      ask('x', { ...turns, tool_choice: { type: 'tool', name: 'get_time' } }),
    );
    t.match(await forced.json(), { content: [{ type: 'tool_use', name: 'get_time' }] });
  });

  await t.test('max_tokens truncates the reply', async (t) => {
    const res = await messages(sim, ask('hi', { max_tokens: 5 }));
    const body = (await res.json()) as MessageReply;
    t.strictSame(body.content, [{ type: 'text', text: 'Lorem ipsum dolor sit amet' }]);
    t.equal(body.stop_reason, 'max_tokens');
    t.equal(body.usage.output_tokens, 5);

    const exact = await messages(sim, ask('hi #sim tokens=5', { max_tokens: 5 }));
    t.equal(
      ((await exact.json()) as MessageReply).stop_reason,
      'end_turn',
      'reaching max_tokens exactly is no cut',
    );

    const thinking = await messages(
      sim,
      ask('hi #sim tokens=4', { max_tokens: 6, thinking: { type: 'adaptive' } }),
    );
    const shared = (await thinking.json()) as MessageReply;
    t.match(
      shared.content,
      [{ thinking: 'Let me think this' }, { text: 'Lorem ipsum' }],
      'thinking counts first',
    );
    t.equal(shared.stop_reason, 'max_tokens');
    t.equal(shared.usage.output_tokens, 6);

    const noRoom = await messages(
      sim,
      ask('hi #sim tokens=4', { max_tokens: 3, thinking: { type: 'adaptive' } }),
    );
    const onlyThinking = (await noRoom.json()) as MessageReply;
    t.match(onlyThinking, {
      content: [{ type: 'thinking', thinking: 'Let me think' }],
      stop_reason: 'max_tokens',
    });
    t.equal(onlyThinking.content.length, 1, 'no empty text block when thinking used every token');
  });

  await t.test('echo replies with the headers and body received', async (t) => {
    const sent = ask('hi', { tools: TOOLS, max_tokens: 1 });
    const res = await messages(sim, sent, { 'x-sim-echo': '1', 'x-trace': 'abc' });
    const body = (await res.json()) as MessageReply;
    t.equal(body.stop_reason, 'end_turn', 'an echo is neither capped nor a tool call');
    const echoed = JSON.parse(body.content[0]?.text ?? '') as {
      headers: Record<string, string>;
      body: unknown;
    };
    t.strictSame(echoed.body, sent);
    t.match(echoed.headers, { 'x-api-key': MODELD.key, 'modeld-version': MODELD.version, 'x-trace': 'abc' });
  });

  await t.test('the request log records the request', async (t) => {
    const sent = ask('logged');
    const res = await messages(sim, sent, { 'x-request-id': 'modeld-rid-1' });
    await res.arrayBuffer();
    const logged = (await (await fetch(`${sim.url}/_sim/requests?request_id=modeld-rid-1`)).json()) as {
      requests: unknown[];
    };
    t.equal(logged.requests.length, 1);
    t.match(logged.requests[0], {
      id: res.headers.get('request-id'),
      method: 'POST',
      path: MODELD.path,
      headers: { 'x-api-key': MODELD.key, 'modeld-version': MODELD.version },
      body: sent,
      finished: true,
      aborted: false,
      status: 200,
    });
  });
});

void t.test('streaming', async (t) => {
  await t.test('event order, names equal to types, and totals', async (t) => {
    const res = await messages(sim, ask('hi #sim tokens=3', { stream: true }));
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/event-stream');
    t.match(res.headers.get('request-id'), /^req_/);
    const { names, events, error } = await readNamedSse(res);
    t.equal(error, null);
    t.strictSame(names, [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    t.strictSame(
      events.map((e) => e.type),
      names,
      'each SSE event name equals its JSON type',
    );
    t.match(events[0], {
      message: {
        id: /^msg_/,
        type: 'message',
        role: 'assistant',
        model: 'modeld-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 4,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 1,
        },
      },
    });
    t.strictSame(events[1], {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    t.match(
      events.slice(3, 6).map((e) => e.delta),
      [{ type: 'text_delta', text: 'Lorem' }, { text: ' ipsum' }, { text: ' dolor' }],
    );
    t.strictSame(events[6], { type: 'content_block_stop', index: 0 });
    t.strictSame(events[7], {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    });
    t.strictSame(events[8], { type: 'message_stop' });
  });

  await t.test(
    'thinking and tool_use blocks stream as their deltas; the totals match the JSON reply',
    async (t) => {
      const body = ask('weather? #sim tokens=2', {
        tools: TOOLS,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      });
      const whole = (await (await messages(sim, body)).json()) as MessageReply;
      const { events, error } = await readNamedSse(await messages(sim, { ...body, stream: true }));
      t.equal(error, null);
      const shape = events.map((e) => (e.type === 'content_block_delta' ? (e.delta?.type ?? '?') : e.type));
      t.strictSame(shape, [
        'message_start',
        'content_block_start',
        'ping',
        'thinking_delta',
        'thinking_delta',
        'signature_delta',
        'content_block_stop',
        'content_block_start',
        'input_json_delta',
        'input_json_delta',
        'input_json_delta',
        'input_json_delta',
        'input_json_delta',
        'input_json_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      t.strictSame(events[1]?.content_block, { type: 'thinking', thinking: '', signature: '' });
      t.equal(deltaText(events, 0, 'thinking'), whole.content[0]?.thinking);
      t.equal(events[5]?.delta?.signature, whole.content[0]?.signature, 'same thinking, same signature');
      t.match(events[7], {
        index: 1,
        content_block: { type: 'tool_use', id: /^toolu_/, name: 'get_weather', input: {} },
      });
      const fragments = events
        .filter((e) => e.delta?.type === 'input_json_delta')
        .map((e) => e.delta?.partial_json);
      t.equal(fragments[0], '', 'the first fragment is empty, as the vendor sends it');
      t.strictSame(JSON.parse(fragments.join('')), whole.content[1]?.input);
      t.match(events.at(-2), {
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: whole.usage.output_tokens },
      });
      t.equal(whole.usage.output_tokens, 7);
    },
  );

  await t.test('max_tokens in a stream', async (t) => {
    const { events } = await readNamedSse(await messages(sim, ask('hi', { stream: true, max_tokens: 4 })));
    t.equal(deltaText(events, 0, 'text'), 'Lorem ipsum dolor sit');
    t.match(events.at(-2), { delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 4 } });
  });

  await t.test('cut_after cuts the connection before message_stop', async (t) => {
    const { names, events, error } = await readNamedSse(
      await messages(sim, ask('hi #sim tokens=5 cut_after=2', { stream: true })),
    );
    t.ok(error, 'the body ends in an error');
    t.equal(deltaText(events, 0, 'text'), 'Lorem ipsum');
    t.notOk(names.includes('message_stop'));
    t.notOk(names.includes('message_delta'));
    t.match(sim.log.list().at(-1), { finished: false, aborted: false });
  });

  await t.test('error_after ends cleanly with an overloaded error event', async (t) => {
    const { names, events, error } = await readNamedSse(
      await messages(sim, ask('hi #sim tokens=5 error_after=2', { stream: true })),
    );
    t.equal(error, null);
    t.equal(names.at(-1), 'error');
    t.strictSame(events.at(-1), {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    t.equal(events.filter((e) => e.type === 'content_block_delta').length, 2);
    t.notOk(names.includes('message_stop'));
  });

  await t.test('tps paces the content deltas and silence_ms pauses after the first', async (t) => {
    const started = Date.now();
    const paced = await readNamedSse(await messages(sim, ask('hi #sim tokens=5 tps=50', { stream: true })));
    t.equal(deltaText(paced.events, 0, 'text'), 'Lorem ipsum dolor sit amet');
    const elapsed = Date.now() - started;
    t.ok(elapsed >= 75, `stream took ${elapsed}ms`);

    // Time is the subject: the pause runs on a fake clock (see onClock), so no stall of the reader
    // after the first delta can shorten the gap it sees.
    const clock = fakeClock(t);
    const { events, times } = await onClock(
      clock,
      messages(sim, ask('hi #sim tokens=3 silence_ms=150', { stream: true })).then(readNamedSse),
    );
    const first = events.findIndex((e) => e.type === 'content_block_delta');
    const gap = (times[first + 1] ?? 0) - (times[first] ?? 0);
    t.ok(gap >= 130, `gap of ${gap}ms after the first content delta`);
  });

  await t.test('echo streams as text deltas', async (t) => {
    const { events } = await readNamedSse(await messages(sim, ask('hi #sim echo', { stream: true })));
    t.match(JSON.parse(deltaText(events, 0, 'text')), { body: { messages: user('hi #sim echo') } });
  });
});

void t.test('the official Anthropic SDK reads the family', async (t) => {
  const client = new Anthropic({
    baseURL: `${sim.url}/modeld`,
    apiKey: MODELD.key,
    defaultHeaders: { 'modeld-version': MODELD.version },
    maxRetries: 0,
  });

  await t.test('messages.create', async (t) => {
    const message = await client.messages.create({
      model: 'modeld-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi #sim tokens=4' }],
    });
    t.equal(message.stop_reason, 'end_turn');
    t.strictSame(message.content, [{ type: 'text', text: 'Lorem ipsum dolor sit' }]);
    t.equal(message.usage.output_tokens, 4);
  });

  await t.test('messages.stream assembles thinking and a tool call', async (t) => {
    const stream = client.messages.stream({
      model: 'modeld-test',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }],
      messages: [{ role: 'user', content: 'weather? #sim tokens=3' }],
    });
    const final = await stream.finalMessage();
    t.match(final.content, [
      { type: 'thinking', thinking: 'Let me think', signature: String },
      { type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    t.equal(final.stop_reason, 'tool_use');
    t.equal(final.usage.output_tokens, 8);
  });

  await t.test('errors surface as the SDK error classes', async (t) => {
    const overloaded = await client.messages
      .create(
        { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-sim-status': '529' } },
      )
      .catch((e: unknown) => e);
    t.ok(overloaded instanceof Anthropic.APIError);
    t.equal((overloaded as InstanceType<typeof Anthropic.APIError>).status, 529);
    t.match((overloaded as InstanceType<typeof Anthropic.APIError>).error, {
      error: { type: 'overloaded_error' },
    });

    const midStream = await client.messages
      .stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi #sim error_after=1' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    t.ok(midStream instanceof Anthropic.APIError, 'an in-stream error event is an API error');
    t.match(String(midStream), /Overloaded/);
  });
});
