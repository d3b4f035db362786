/**
 * The gateway's route table on lib/router: its 404, 405 (with Allow) and 400 for a malformed escape,
 * and parameters percent-decoded.
 */
import t from 'tap';
import { GatewayError } from '../../../core/base/errors';
import { RouteTable } from '../../../core/http/route-table';
import type { Endpoint } from '../../../core/request/served-request';

const endpoint = (method: Endpoint['method'], path: string): Endpoint => ({
  id: `${method} ${path}`,
  method,
  path,
  routedByModel: false,
  handle: () => Promise.resolve(),
});

const table = new RouteTable();
for (const e of [
  endpoint('POST', '/v1/videos/generations'),
  endpoint('GET', '/v1/videos/generations/:id'),
  endpoint('GET', '/v1/models'),
  endpoint('POST', '/v1/models'),
])
  table.add(e);

/** The error `match` throws, as status, code and Allow header. */
function refusal(method: string, path: string): { status: number; code: string; allow?: string } {
  try {
    table.match(method, path);
  } catch (e) {
    if (!(e instanceof GatewayError)) throw e;
    return { status: e.status, code: e.code, ...(e.headers.allow ? { allow: e.headers.allow } : {}) };
  }
  throw new Error(`${method} ${path} matched`);
}

void t.test('a match: the endpoint and its parameters, decoded', (t) => {
  const models = table.match('GET', '/v1/models');
  t.equal(models.handler.id, 'GET /v1/models');
  t.strictSame(models.params, {});
  const task = table.match('GET', '/v1/videos/generations/a%20b%2Fc');
  t.equal(task.handler.id, 'GET /v1/videos/generations/:id');
  t.strictSame({ ...task.params }, { id: 'a b/c' });
  t.strictSame({ ...table.match('GET', '/v1/videos/generations/t#1').params }, { id: 't#1' }, 'as sent');
  t.end();
});

void t.test('404, 405 with the allowed methods, and 400 for a malformed escape', (t) => {
  t.strictSame(refusal('GET', '/v1/nope'), { status: 404, code: 'not_found' });
  t.strictSame(refusal('GET', '/v1/videos/generations/'), { status: 404, code: 'not_found' });
  t.strictSame(refusal('GET', '/v1/models/'), { status: 404, code: 'not_found' }, 'a trailing slash');
  t.strictSame(refusal('GET', '/V1/models'), { status: 404, code: 'not_found' }, 'case');
  t.strictSame(refusal('GET', '/v1/mod%65ls'), { status: 404, code: 'not_found' }, 'not decoded');
  t.strictSame(refusal('GET', 'http://host/v1/models'), { status: 404, code: 'not_found' });
  t.strictSame(refusal('DELETE', '/v1/models'), {
    status: 405,
    code: 'method_not_allowed',
    allow: 'GET, POST',
  });
  t.strictSame(refusal('GET', '/v1/videos/generations'), {
    status: 405,
    code: 'method_not_allowed',
    allow: 'POST',
  });
  t.strictSame(refusal('GET', '/v1/videos/generations/%zz'), { status: 400, code: 'invalid_request' });
  t.strictSame(
    refusal('DELETE', '/v1/videos/generations/%E0'),
    { status: 400, code: 'invalid_request' },
    'the malformed escape is refused before the method',
  );
  t.end();
});

void t.test('two endpoints for one method and path are refused', (t) => {
  t.throws(() => table.add(endpoint('GET', '/v1/videos/generations/:task')), /two routes/);
  t.end();
});
