import t from 'tap';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { chat, errorShape, FAMILIES, FAMILY_NAMES, user, type Completion } from './helpers';

const LOREM_12 = 'Lorem ipsum dolor sit amet consectetur adipiscing elit sed do Lorem ipsum';

let sim: RunningSimulator;
t.before(async () => {
  sim = await startSimulator();
});
t.teardown(() => sim.close());

void t.test('JSON completions', async (t) => {
  await t.test('modela: OpenAI shape and usage arithmetic', async (t) => {
    // 'hello there' (11) + 'be brief' (8) = 19 characters → ceil(19 / 4) = 5 prompt tokens
    const messages = [
      { role: 'system', content: 'hello there' },
      { role: 'user', content: [{ type: 'text', text: 'be brief' }] },
    ];
    const res = await chat(sim, 'modela', { model: 'modela-test', messages });
    t.equal(res.status, 200);
    t.match(res.headers.get('x-request-id'), /^req_/);
    const body = (await res.json()) as Completion;
    t.match(body, {
      id: /^chatcmpl-/,
      object: 'chat.completion',
      model: 'modela-test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: LOREM_12, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 5,
        completion_tokens: 12,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    t.type(body.created, 'number');
    t.equal(sim.log.list().at(-1)?.id, res.headers.get('x-request-id'), 'header carries the log id');
  });

  await t.test('modelb: Gemini compat shape; thinking counted in the total only', async (t) => {
    const res = await chat(sim, 'modelb', { model: 'modelb-flash', messages: user('abcd') });
    const body = (await res.json()) as Completion;
    t.equal(res.status, 200);
    t.match(body, { object: 'chat.completion', model: 'modelb-flash', choices: [{ finish_reason: 'stop' }] });
    // 48 thought tokens at the default effort, in no other field (as the vendor's captures show).
    t.strictSame(body.usage, { prompt_tokens: 1, completion_tokens: 12, total_tokens: 61 });
    const low = await chat(sim, 'modelb', {
      model: 'modelb-flash',
      messages: user('abcd'),
      reasoning_effort: 'low',
      n: 2,
    });
    const lowBody = (await low.json()) as Completion;
    t.strictSame(
      lowBody.usage,
      { prompt_tokens: 1, completion_tokens: 24, total_tokens: 57 },
      'low: 16 a choice',
    );
  });

  await t.test('modelc: DashScope shape with reasoning details', async (t) => {
    const res = await chat(sim, 'modelc', { model: 'modelc-plus', messages: user('x'.repeat(9)) });
    const body = (await res.json()) as Completion;
    t.match(body, {
      object: 'chat.completion',
      choices: [{ message: { content: LOREM_12 }, logprobs: null }],
      usage: {
        prompt_tokens: 3,
        completion_tokens: 12,
        total_tokens: 15,
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  await t.test('n=2 gives two choices and doubles completion tokens', async (t) => {
    const res = await chat(sim, 'modela', { model: 'm', n: 2, messages: user('hi #sim tokens=4') });
    const body = (await res.json()) as Completion;
    t.equal(body.choices.length, 2);
    t.same(
      body.choices.map((c) => c.index),
      [0, 1],
    );
    t.match(body.usage, { completion_tokens: 8 });
  });

  await t.test('max_tokens and max_completion_tokens cap the reply', async (t) => {
    for (const cap of ['max_tokens', 'max_completion_tokens']) {
      const res = await chat(sim, 'modela', { model: 'm', [cap]: 3, messages: user('hi') });
      const body = (await res.json()) as Completion;
      t.match(body.choices[0], { message: { content: 'Lorem ipsum dolor' }, finish_reason: 'length' }, cap);
      t.match(body.usage, { completion_tokens: 3 }, cap);
    }
  });

  await t.test('tools produce a tool call unless tool_choice is none', async (t) => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: {} } }];
    const res = await chat(sim, 'modela', { model: 'm', tools, messages: user('weather?') });
    const body = (await res.json()) as Completion;
    t.match(body.choices[0], {
      message: {
        content: null,
        tool_calls: [
          {
            id: /^call_/,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
    const none = await chat(sim, 'modela', { model: 'm', tools, tool_choice: 'none', messages: user('hi') });
    t.match(((await none.json()) as Completion).choices[0], {
      message: { content: LOREM_12 },
      finish_reason: 'stop',
    });
  });

  await t.test('modelc refuses enable_thinking without stream', async (t) => {
    const res = await chat(sim, 'modelc', { model: 'q', enable_thinking: true, messages: user('hi') });
    t.equal(res.status, 400);
    t.match(await res.json(), {
      error: {
        code: 'invalid_parameter_error',
        message: 'parameter.enable_thinking must be set to false for non-streaming calls',
        type: 'invalid_request_error',
      },
      id: /^chatcmpl-/,
      request_id: /^req_/,
    });
  });
});

void t.test('front-door errors in each family shape', async (t) => {
  await t.test('401 on a missing or wrong key', async (t) => {
    const expected = {
      modela: {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
      modelb: {
        error: {
          code: 401,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'UNAUTHENTICATED',
        },
      },
      modelc: {
        error: {
          code: 'invalid_api_key',
          param: null,
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
        },
      },
    };
    for (const family of FAMILY_NAMES) {
      for (const authorization of ['Bearer wrong', '']) {
        const res = await chat(sim, family, { model: 'm', messages: user('hi') }, { authorization });
        t.equal(res.status, 401, `${family} ${authorization || 'missing'}`);
        const body: unknown = await res.json();
        t.match(body, expected[family], family);
        if (family !== 'modelc') t.strictSame(body, expected[family], `${family} body is exact`);
      }
    }
  });

  await t.test('custom keys replace the defaults', async (t) => {
    const custom = await startSimulator({ keys: { modela: 'other' } });
    t.teardown(() => custom.close());
    const ok = await chat(
      custom,
      'modela',
      { model: 'm', messages: user('hi') },
      { authorization: 'Bearer other' },
    );
    t.equal(ok.status, 200);
    t.equal((await chat(custom, 'modela', { model: 'm', messages: user('hi') })).status, 401);
    t.equal(
      (await chat(custom, 'modelb', { model: 'm', messages: user('hi') })).status,
      200,
      'others keep defaults',
    );
  });

  await t.test('400 on bad JSON, missing model, empty messages', async (t) => {
    const bad = ['{"model": ', { messages: user('hi') }, { model: 'm', messages: [] }, { model: 'm' }];
    for (const family of FAMILY_NAMES) {
      for (const body of bad) {
        const res = await chat(sim, family, body);
        t.equal(res.status, 400, `${family} ${JSON.stringify(body)}`);
        t.match(await res.json(), errorShape(family, 400), family);
      }
    }
  });

  await t.test('404 in the family shape under a family prefix, plain elsewhere', async (t) => {
    for (const family of FAMILY_NAMES) {
      const res = await fetch(`${sim.url}/${family}/v9/nothing`, { method: 'POST', body: '{}' });
      t.equal(res.status, 404, family);
      t.match(await res.json(), errorShape(family, 404), family);
    }
    const wrongMethod = await fetch(sim.url + FAMILIES.modela.path);
    t.equal(wrongMethod.status, 404);
    const plain = await fetch(`${sim.url}/elsewhere`);
    t.equal(plain.status, 404);
    t.match(await plain.json(), { error: String });
  });
});
