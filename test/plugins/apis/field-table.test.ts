/**
 * The one rule for a field no table lists (docs/contract.md): a relaying family's table lets it through
 * for the vendor, a translating family's (`translates: true`) refuses it with the contract's 400 naming
 * it; the members the API reads itself (`model`, chat's and messages' `messages`) are never refused.
 */
import t from 'tap';
import { z } from 'zod';
import { GatewayError } from '../../../core/base/errors';
import { chatFields, validateChatRequest, type ChatFieldTable } from '../../../plugins/apis/chat-completions';
import { messagesFields } from '../../../plugins/apis/messages';

const TABLE: ChatFieldTable = {
  accepts: ['stream', 'max_tokens'],
  own: { top_k: { schema: z.int().min(1), expect: 'a positive integer' } },
};
const hi = [{ role: 'user', content: 'hi' }];

/** The contract's error a check threw, as the client gets it: status, code and message. */
function refusal(check: () => void): { status: number; code: string; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    return { status: e.status, code: e.code, message: e.message };
  }
}

t.test('a relaying family: an unlisted field passes, a listed one is checked', (t) => {
  const fields = chatFields(TABLE);
  const body = { model: 'm', messages: hi, vendor_flag: { deep: true }, stream: true, top_k: 3 };
  t.equal(
    refusal(() => validateChatRequest(body, fields, { id: 'm' })),
    undefined,
  );
  t.match(
    refusal(() => validateChatRequest({ ...body, top_k: 0 }, fields, { id: 'm' })),
    {
      status: 400,
      code: 'invalid_request',
    },
  );
  t.match(
    refusal(() => validateChatRequest({ ...body, n: 2 }, fields, { id: 'm' })),
    {
      status: 400,
      code: 'unsupported_field',
      message: "field 'n' is not supported by model 'm'",
    },
  );
  t.end();
});

t.test('a translating family: an unlisted field is refused naming it, never dropped', (t) => {
  const fields = chatFields({ ...TABLE, translates: true });
  const ok = { model: 'm', messages: hi, stream: true, max_tokens: 5, top_k: 3 };
  t.equal(
    refusal(() => validateChatRequest(ok, fields, { id: 'm' })),
    undefined,
    'what the table lists',
  );
  for (const field of ['vendor_flag', 'max_completion_tokens', 'constructor', '__proto__']) {
    const body = JSON.parse(`{"model":"m","messages":${JSON.stringify(hi)},"${field}":1}`) as Record<
      string,
      unknown
    >;
    t.strictSame(
      refusal(() => validateChatRequest(body, fields, { id: 'm' })),
      { status: 400, code: 'unsupported_field', message: `field '${field}' is not supported by model 'm'` },
      field,
    );
  }
  t.equal(
    refusal(() => validateChatRequest({ ...ok, vendor_flag: null }, fields, { id: 'm' })),
    undefined,
    'sent as null it counts as absent',
  );
  t.match(
    refusal(() => validateChatRequest({ ...ok, n: 2 }, fields, { id: 'm' })),
    { code: 'unsupported_field' },
  );
  t.end();
});

t.test('messages: the API reads `messages` itself, a translating table refuses the rest', (t) => {
  const fields = messagesFields({ accepts: ['max_tokens'], translates: true });
  const body = { model: 'm', messages: hi, max_tokens: 5 };
  t.strictSame(fields.check(body, 'm'), []);
  t.throws(() => fields.check({ ...body, metadata_x: 1 }, 'm'), {
    code: 'unsupported_field',
    message: "field 'metadata_x' is not supported by model 'm'",
  });
  t.end();
});
