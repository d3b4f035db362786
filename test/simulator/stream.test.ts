import t from 'tap';
import { startSimulator } from '../../simulator/server';
import { chat, readSse, streamedText, user, type Completion } from './helpers';

const usageKeys = (events: readonly Completion[]): string[] =>
  events.map((e) => ('usage' in e ? String(e.usage === null ? 'null' : 'set') : 'absent'));

void t.test('streaming', async (t) => {
  const sim = await startSimulator();
  t.teardown(() => sim.close());
  const body = (extra: object = {}): object => ({
    model: 'm',
    stream: true,
    messages: user('hi #sim tokens=3'),
    ...extra,
  });

  await t.test('modela without include_usage: role, content, finish, [DONE], no usage key', async (t) => {
    const res = await chat(sim, 'modela', body());
    t.equal(res.headers.get('content-type'), 'text/event-stream');
    t.equal(res.headers.get('cache-control'), 'no-cache');
    t.match(res.headers.get('x-request-id'), /^req_/);
    const { events, done, error } = await readSse(res);
    t.equal(error, null);
    t.ok(done, 'ends with [DONE]');
    t.equal(events.length, 5);
    t.match(events, [
      {
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      },
      { choices: [{ delta: { content: 'Lorem' }, logprobs: null }] },
      { choices: [{ delta: { content: ' ipsum' } }] },
      { choices: [{ delta: { content: ' dolor' } }] },
      { choices: [{ delta: {}, finish_reason: 'stop' }] },
    ]);
    t.strictSame(usageKeys(events), ['absent', 'absent', 'absent', 'absent', 'absent']);
    t.equal(new Set(events.map((e) => `${e.id}/${e.created}`)).size, 1, 'same id and created throughout');
  });

  await t.test(
    'modela with include_usage: usage null on chunks, then a choices:[] usage chunk',
    async (t) => {
      const { events, done } = await readSse(
        await chat(sim, 'modela', body({ stream_options: { include_usage: true } })),
      );
      t.ok(done);
      t.equal(events.length, 6);
      t.strictSame(usageKeys(events), ['null', 'null', 'null', 'null', 'null', 'set']);
      t.match(events.at(-1), {
        choices: [],
        usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
      });
    },
  );

  await t.test('modelb: usage rides on the finish chunk, only with include_usage', async (t) => {
    const { events, done } = await readSse(
      await chat(sim, 'modelb', body({ stream_options: { include_usage: true } })),
    );
    t.ok(done);
    t.equal(events.length, 5);
    t.strictSame(usageKeys(events), ['absent', 'absent', 'absent', 'absent', 'set']);
    t.match(events.at(-1), {
      choices: [{ finish_reason: 'stop' }],
      // Thinking (48 tokens) shows in the total only.
      usage: { completion_tokens: 3, total_tokens: 55 },
    });
    for (const extra of [{}, { stream_options: { include_usage: false } }]) {
      const without = await readSse(await chat(sim, 'modelb', body(extra)));
      t.ok(without.done);
      t.strictSame(
        usageKeys(without.events),
        ['absent', 'absent', 'absent', 'absent', 'absent'],
        JSON.stringify(extra),
      );
    }
  });

  await t.test('modelc: usage null everywhere; usage chunk only with include_usage', async (t) => {
    const without = await readSse(await chat(sim, 'modelc', body()));
    t.strictSame(usageKeys(without.events), ['null', 'null', 'null', 'null', 'null']);
    const withUsage = await readSse(
      await chat(sim, 'modelc', body({ stream_options: { include_usage: true } })),
    );
    t.strictSame(usageKeys(withUsage.events), ['null', 'null', 'null', 'null', 'null', 'set']);
    t.match(withUsage.events.at(-1), { choices: [], usage: { completion_tokens: 3 } });
    t.ok(withUsage.done);
  });

  await t.test(
    'n=2: one choice per chunk, interleaved, own role and finish chunks, one summed usage',
    async (t) => {
      const { events } = await readSse(
        await chat(sim, 'modela', body({ n: 2, stream_options: { include_usage: true } })),
      );
      const shape = events.map((e) => {
        const c = e.choices[0];
        if (!c) return 'usage';
        if (c.delta?.role) return `role${c.index}`;
        return c.finish_reason ? `finish${c.index}` : `text${c.index}`;
      });
      t.strictSame(shape, [
        'role0',
        'role1',
        'text0',
        'text1',
        'text0',
        'text1',
        'text0',
        'text1',
        'finish0',
        'finish1',
        'usage',
      ]);
      t.ok(events.every((e) => e.choices.length <= 1));
      t.strictSame(streamedText(events), ['Lorem ipsum dolor', 'ipsum dolor sit']);
      t.match(events.at(-1), { usage: { completion_tokens: 6 } });
    },
  );

  await t.test('tool calls stream as tool-call deltas', async (t) => {
    const tools = [{ type: 'function', function: { name: 'get_weather' } }];
    const { events, done } = await readSse(await chat(sim, 'modela', body({ tools })));
    t.ok(done);
    t.match(events[0], {
      choices: [
        {
          delta: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { index: 0, id: /^call_/, type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
        },
      ],
    });
    const fragments = events.slice(1, -1).map((e) => e.choices[0]?.delta?.tool_calls?.[0]);
    t.ok(
      fragments.every((f) => f?.index === 0 && f.id === undefined && f.function.name === undefined),
      'later fragments carry arguments only',
    );
    t.equal(fragments.map((f) => f?.function.arguments).join(''), '{"city":"Paris"}');
    t.match(events.at(-1), { choices: [{ delta: {}, finish_reason: 'tool_calls' }] });
  });

  await t.test(
    'modelc enable_thinking: reasoning first, then content, reasoning counted in usage',
    async (t) => {
      const req = body({ enable_thinking: true, stream_options: { include_usage: true } });
      const { events, done } = await readSse(await chat(sim, 'modelc', req));
      t.ok(done);
      const deltas = events.slice(1, -2).map((e) => e.choices[0]?.delta);
      t.match(deltas, [
        { content: null, reasoning_content: 'Let' },
        { content: null, reasoning_content: ' me' },
        { content: null, reasoning_content: ' think' },
        { content: 'Lorem', reasoning_content: null },
        { content: ' ipsum', reasoning_content: null },
        { content: ' dolor', reasoning_content: null },
      ]);
      t.match(events.at(-1), {
        choices: [],
        usage: { completion_tokens: 6, total_tokens: 10, completion_tokens_details: { reasoning_tokens: 3 } },
      });
      const budget = await readSse(await chat(sim, 'modelc', { ...req, thinking_budget: 1 }));
      t.match(budget.events.at(-1), {
        usage: { completion_tokens: 4, completion_tokens_details: { reasoning_tokens: 1 } },
      });
    },
  );

  await t.test('enable_thinking is ignored by families that do not think', async (t) => {
    const { events } = await readSse(await chat(sim, 'modela', body({ enable_thinking: true })));
    t.notOk(events.some((e) => e.choices[0]?.delta?.reasoning_content !== undefined));
  });
});
