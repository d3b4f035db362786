/**
 * What a client gets for an upstream's error answer: a body its SDK reads passes through byte for byte;
 * any other comes in the contract's error shape with the vendor's message and code. First the default
 * mapping on its own, vendor body by vendor body; then through the real gateway and the `openai` SDK,
 * with the simulator answering each body as a vendor would.
 */
import t from 'tap';
import OpenAI from 'openai';
import { contractErrorBody } from '../../../core/proxy/error-body';
import { startTestGateway } from '../../helpers/gateway';
import { postJson } from '../../helpers/http';

const answer = (status: number, text: string) => {
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    json =
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as never) : undefined;
  } catch {
    json = undefined;
  }
  return { status, body: Buffer.from(text), json };
};

const contract = (code: string, message: string) => ({ error: { code, message, type: 'error' } });

/** Vendor body → what the client gets (undefined: the vendor's bytes). */
const CASES: readonly [string, number, string, object | undefined][] = [
  [
    "OpenAI's",
    400,
    '{"error":{"message":"bad","type":"invalid_request_error","param":null,"code":null}}',
    undefined,
  ],
  [
    "Anthropic's",
    529,
    '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    undefined,
  ],
  [
    "Gemini's",
    429,
    '{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}',
    undefined,
  ],
  [
    "the contract's",
    401,
    '{"error":{"code":"unauthorized","message":"unauthorized","type":"error"}}',
    undefined,
  ],
  [
    "Cohere's flat",
    400,
    '{"id":"a1","message":"invalid request: message must not be empty"}',
    contract('upstream_error', 'invalid request: message must not be empty'),
  ],
  [
    'a flat one with a code',
    429,
    '{"code":"Throttling","message":"Requests throttling triggered."}',
    contract('Throttling', 'Requests throttling triggered.'),
  ],
  ['a string error', 404, '{"error":"model not found"}', contract('upstream_error', 'model not found')],
  ['a string error with a numeric code', 500, '{"error":"boom","code":500}', contract('500', 'boom')],
  ["FastAPI's detail", 404, '{"detail":"Not Found"}', contract('upstream_error', 'Not Found')],
  [
    'a validation list',
    422,
    '{"detail":[{"msg":"field required"},{"msg":"value too large"}]}',
    contract('upstream_error', 'field required; value too large'),
  ],
  [
    'an error object without a message',
    400,
    '{"error":{"code":"bad_input","detail":"n too big"}}',
    contract('bad_input', 'n too big'),
  ],
  [
    'JSON with nothing to say',
    503,
    '{"ok":false}',
    contract('upstream_error', 'the upstream answered 503 Service Unavailable'),
  ],
  ['a JSON array', 500, '[1,2]', contract('upstream_error', '[1,2]')],
  [
    'an HTML page',
    502,
    '<html><body>Bad Gateway</body></html>\n',
    contract('upstream_error', '<html><body>Bad Gateway</body></html>'),
  ],
  ['an empty body', 504, '', contract('upstream_error', 'the upstream answered 504 Gateway Timeout')],
];

void t.test('the default error mapping', (t) => {
  for (const [name, status, text, expected] of CASES) {
    t.same(contractErrorBody(answer(status, text)), expected, `${name} (${status})`);
  }
  t.equal(
    (contractErrorBody(answer(502, 'x'.repeat(2_000))) as { error: { message: string } }).error.message
      .length,
    500,
    'a long text is cut',
  );
  t.end();
});

/** Serves `text` with `status` for every chat request to modela. */
const vendorAnswers = (gw: Awaited<ReturnType<typeof startTestGateway>>, status: number, text: string) => {
  gw.sim.faults.clear();
  gw.sim.faults.add({
    match: { path_prefix: '/modela/' },
    fault: {
      reply: { status, content_type: 'application/json', body: text, headers: { 'retry-after': '7' } },
    },
  });
};

void t.test('through the gateway', async (t) => {
  const gw = await startTestGateway(t);
  const body = { model: 'modela-5.5', messages: [{ role: 'user' as const, content: 'hi' }] };
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });

  await t.test(
    "a flat body comes in the contract's shape, with the vendor's status and headers",
    async (t) => {
      vendorAnswers(gw, 400, '{"id":"a1","message":"invalid request: message must not be empty"}');
      const res = await postJson(`${gw.url}/v1/chat/completions`, body, gw.key);
      t.equal(res.status, 400);
      t.match(res.headers.get('content-type'), 'application/json');
      t.equal(res.headers.get('retry-after'), '7', "the vendor's Retry-After");
      t.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
      t.same(JSON.parse(res.text), contract('upstream_error', 'invalid request: message must not be empty'));
      const sdkError = await client.chat.completions.create(body).catch((e: unknown) => e);
      t.type(sdkError, OpenAI.BadRequestError, 'the SDK raises its 400 error');
      t.match(
        sdkError,
        {
          status: 400,
          error: { message: 'invalid request: message must not be empty', type: 'error' },
          code: 'upstream_error',
        },
        "with the vendor's message on e.error",
      );
    },
  );

  await t.test('a failure no retry mended is delivered mapped too', async (t) => {
    vendorAnswers(gw, 503, '<html>Service Unavailable</html>');
    const res = await postJson(`${gw.url}/v1/chat/completions`, { ...body, stream: true }, gw.key);
    t.equal(res.status, 503);
    t.same(JSON.parse(res.text), contract('upstream_error', '<html>Service Unavailable</html>'));
  });

  await t.test("a body the SDK reads is the vendor's, byte for byte", async (t) => {
    const text = '{"error":{"message":"no","type":"invalid_request_error","param":"n","code":"bad_n"}}';
    vendorAnswers(gw, 400, text);
    const res = await postJson(`${gw.url}/v1/chat/completions`, body, gw.key);
    t.equal(res.status, 400);
    t.equal(res.text, text);
  });
});
