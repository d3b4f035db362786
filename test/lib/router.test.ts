import fc from 'fast-check';
import t from 'tap';
import { Router, type Found, type Missed } from '../../lib/router';

const tasks = (): Router<string> =>
  new Router<string>()
    .add('GET', '/tasks/stats', 'stats')
    .add('DELETE', '/tasks/stats', 'reset')
    .add('GET', '/tasks/:id', 'one')
    .add('POST', '/tasks', 'create')
    .add('GET', '/tasks/:id/events/:event', 'event');

/** A hit as plain data: the router's params object has no prototype. */
function hit<H>(found: Found<H> | Missed): { handler: H; params: Record<string, string> } | Missed {
  return 'handler' in found ? { handler: found.handler, params: { ...found.params } } : found;
}

void t.test('static and parameter routes', (t) => {
  const router = tasks();
  t.strictSame(hit(router.find('GET', '/tasks/stats')), { handler: 'stats', params: {} });
  t.strictSame(hit(router.find('GET', '/tasks/t1')), { handler: 'one', params: { id: 't1' } });
  t.strictSame(hit(router.find('GET', '/tasks/t1/events/e2')), {
    handler: 'event',
    params: { id: 't1', event: 'e2' },
  });
  t.strictSame(hit(router.find('POST', '/tasks')), { handler: 'create', params: {} });
  t.strictSame(
    hit(router.find('GET', '/tasks/statsX')),
    { handler: 'one', params: { id: 'statsX' } },
    'a static prefix that fails falls back to the parameter',
  );
  t.end();
});

void t.test('a miss names the methods the path has: fixed routes first, each in the order added', (t) => {
  const router = tasks();
  t.strictSame(router.find('GET', '/nope'), { allowed: [] }, 'unknown path');
  t.strictSame(router.find('PUT', '/tasks/stats'), { allowed: ['GET', 'DELETE'] });
  t.strictSame(router.find('POST', '/tasks/t1'), { allowed: ['GET'] });
  t.strictSame(router.find('GET', '/tasks'), { allowed: ['POST'] });
  t.strictSame(
    router.find('HEAD', '/tasks/stats'),
    { allowed: ['GET', 'DELETE'] },
    'GET does not imply HEAD',
  );
  t.strictSame(router.find('get', '/tasks/stats'), { allowed: ['GET', 'DELETE'] }, 'methods are exact');
  t.strictSame(router.find('G ET', '/tasks'), { allowed: ['POST'] }, 'an unknown method is a miss');
  const mixed = new Router<string>()
    .add('DELETE', '/x/:id', 'drop')
    .add('PATCH', '/x/stats', 'patch')
    .add('GET', '/x/stats', 'stats')
    .add('POST', '/x/:id', 'post');
  t.strictSame(mixed.find('PUT', '/x/stats'), { allowed: ['PATCH', 'GET', 'DELETE', 'POST'] });
  t.strictSame(mixed.find('PUT', '/x/other'), { allowed: ['DELETE', 'POST'] });
  t.end();
});

void t.test('segments: empty, trailing, repeated, case', (t) => {
  const router = tasks();
  t.strictSame(router.find('GET', '/tasks/'), { allowed: [] }, 'an empty segment never fills a parameter');
  t.strictSame(router.find('GET', '/tasks//events/e'), { allowed: [] });
  t.strictSame(router.find('GET', '/tasks/t1/'), { allowed: [] }, 'a trailing slash is another path');
  t.strictSame(router.find('POST', '/tasks/'), { allowed: [] });
  t.strictSame(router.find('GET', '//tasks/stats'), { allowed: [] }, 'a repeated slash is another path');
  t.strictSame(router.find('GET', '/Tasks/stats'), { allowed: [] }, 'case matters');
  t.strictSame(router.find('GET', '/tasks/a/b'), { allowed: [] }, 'a parameter is one segment');
  t.end();
});

void t.test('ignoreEmptySegments: repeated and trailing slashes are ignored', (t) => {
  const router = new Router<string>({ ignoreEmptySegments: true })
    .add('GET', '/admin/keys', 'list')
    .add('GET', '/admin/keys/:id', 'one');
  for (const path of ['/admin/keys/', '//admin//keys//', '/admin/keys'])
    t.strictSame(hit(router.find('GET', path)), { handler: 'list', params: {} }, path);
  t.strictSame(hit(router.find('GET', '/admin/keys//k1/')), { handler: 'one', params: { id: 'k1' } });
  t.end();
});

void t.test('the path is matched as sent and parameters come back raw', (t) => {
  const router = tasks();
  const raw = ['a%20b', '%E0', '%zz', '%', '%%', '%2', '%25', '%2F', 'a#b', 'a?b', '%23%3f', 'é', 'x:y'];
  for (const id of raw)
    t.strictSame(hit(router.find('GET', `/tasks/${id}`)), { handler: 'one', params: { id } }, id);
  t.strictSame(
    hit(router.find('GET', '/tasks/st%61ts')),
    { handler: 'one', params: { id: 'st%61ts' } },
    'an escape in a static segment is not decoded into it',
  );
  t.strictSame(
    hit(router.find('GET', '/tasks/stats#x')),
    { handler: 'one', params: { id: 'stats#x' } },
    'a # is part of the segment, so the static route does not take it',
  );
  t.strictSame(hit(router.find('GET', '/tasks/stat%73')), { handler: 'one', params: { id: 'stat%73' } });
  t.strictSame(router.find('POST', '/tasks#x'), { allowed: [] }, 'a # does not end the path');
  t.strictSame(router.find('POST', '/tasks?x=1'), { allowed: [] }, 'nor does a ?');
  t.strictSame(router.find('POST', '/tasks%3Fx'), { allowed: [] });
  const long = 'x'.repeat(5000);
  t.strictSame(hit(router.find('GET', `/tasks/${long}`)), { handler: 'one', params: { id: long } }, 'long');
  t.end();
});

void t.test('only a path: absolute URLs and other targets are misses', (t) => {
  const router = tasks();
  for (const target of ['http://host/tasks', 'https://host/tasks/stats', '*', '', 'tasks', 'host:443'])
    t.strictSame(router.find('GET', target), { allowed: [] }, target);
  t.end();
});

void t.test('route paths', (t) => {
  const router = new Router<string>().add('GET', '/v1/models/a:b/:id', 'colon');
  t.strictSame(
    hit(router.find('GET', '/v1/models/a:b/m')),
    { handler: 'colon', params: { id: 'm' } },
    'a colon inside a static segment is literal',
  );
  t.strictSame(router.find('GET', '/v1/models/a/m'), { allowed: [] });
  t.throws(() => tasks().add('GET', '/tasks/stats', 'again'), /two routes for GET \/tasks\/stats/);
  t.throws(
    () => tasks().add('GET', '/tasks/:name', 'again'),
    /two routes/,
    'whatever the parameter is named',
  );
  t.doesNotThrow(() => tasks().add('PUT', '/tasks/:name', 'put'), 'another method is another route');
  for (const path of ['tasks', '/tasks/*', '/tasks/:id?', '/a#b', '/tasks/:a-b', '/tasks/:id.json', '/:'])
    t.throws(() => new Router<string>().add('GET', path, 'x'), /route path/, path);
  t.end();
});

void t.test('a parameter followed by a :verb in its segment', (t) => {
  // The plain parameter first: order added does not decide which wins.
  const router = new Router<string>()
    .add('GET', '/models/:model', 'get')
    .add('POST', '/models/:model:generateContent', 'generate')
    .add('POST', '/models/:model:streamGenerateContent', 'stream')
    .add('POST', '/models/fixed:generateContent', 'fixed');
  const found = (method: string, path: string) => hit(router.find(method, path));
  t.strictSame(found('POST', '/models/gemini-2.5-flash:generateContent'), {
    handler: 'generate',
    params: { model: 'gemini-2.5-flash' },
  });
  t.strictSame(found('POST', '/models/gemini-2.5-flash:streamGenerateContent'), {
    handler: 'stream',
    params: { model: 'gemini-2.5-flash' },
  });
  t.strictSame(found('GET', '/models/gemini-2.5-flash'), {
    handler: 'get',
    params: { model: 'gemini-2.5-flash' },
  });
  t.strictSame(
    found('POST', '/models/fixed:generateContent'),
    { handler: 'fixed', params: {} },
    'static wins',
  );
  t.strictSame(
    found('POST', '/models/a:b:generateContent'),
    { handler: 'generate', params: { model: 'a:b' } },
    'the verb is the last colon',
  );
  t.strictSame(
    found('POST', '/models/a%3Ab%2F:generateContent'),
    { handler: 'generate', params: { model: 'a%3Ab%2F' } },
    'the model comes back raw',
  );
  t.strictSame(
    router.find('POST', '/models/:generateContent'),
    { allowed: ['GET'] },
    'no model, no verb route',
  );
  t.strictSame(router.find('POST', '/models/m:generateContentX'), { allowed: ['GET'] }, 'the verb is whole');
  t.strictSame(router.find('POST', '/models/m:countTokens'), { allowed: ['GET'] }, 'an unknown verb');
  t.strictSame(router.find('POST', '/models/m'), { allowed: ['GET'] });
  t.strictSame(
    found('GET', '/models/m:generateContent'),
    { handler: 'get', params: { model: 'm:generateContent' } },
    'a plain parameter takes the whole segment',
  );
  t.strictSame(router.find('PUT', '/models/m:generateContent'), { allowed: ['GET', 'POST'] }, 'the 405 list');
  t.throws(
    () => router.add('POST', '/models/:id:generateContent', 'again'),
    /two routes/,
    'whatever the parameter is named',
  );
  for (const path of ['/m/:a:b:c', '/m/:a:', '/m/:a:1b', '/m/:a:b-c'])
    t.throws(() => new Router<string>().add('GET', path, 'x'), /bad parameter/, path);
  t.end();
});

void t.test('any non-empty segment without a slash fills a parameter as sent', (t) => {
  const router = new Router<string>().add('GET', '/t/:id', 'one').add('GET', '/t/fixed', 'fixed');
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 1 }), (id) => {
      fc.pre(!id.includes('/') && id !== 'fixed');
      const found = router.find('GET', `/t/${id}`);
      return 'handler' in found && found.handler === 'one' && found.params.id === id;
    }),
    { numRuns: 2000 },
  );
  t.pass('2000 generated ids');
  t.end();
});
