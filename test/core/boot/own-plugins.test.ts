/**
 * Each gateway owns its plugins: it registers the ones it is given into a container of its own, and each
 * builds its own instances, so two gateways in one process share no plugin and no plugin state.
 */
import '../../helpers/load-plugins';
import t from 'tap';
import { container } from 'tsyringe';
import { definePlugin, definedPlugins } from '../../../core/plugins/define-plugin';
import { registeredPlugins } from '../../../core/plugins/plugin-container';
import type { GatewayContext } from '../../../core/contracts/context';
import type { Middleware, Next } from '../../../core/contracts/stage';
import { startTestGateway, type ConfigDoc } from '../../helpers/gateway';

const STAGE = 'visit-counter';

/** Counts the requests it sees, in the instance, and tells the client the count. */
@definePlugin({ kind: 'middleware', name: STAGE })
export class VisitCounter implements Middleware {
  private visits = 0;

  async handle(ctx: GatewayContext, next: Next): Promise<void> {
    this.visits++;
    ctx.replyHeaders = { ...ctx.replyHeaders, 'x-visits': String(this.visits) };
    await next();
  }
}

const withCounter = (doc: ConfigDoc) => {
  doc.pipeline = [STAGE, ...(doc.pipeline as unknown[])];
};

async function visits(url: string, key: string): Promise<string | null> {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.headers.get('x-visits');
}

t.test('two gateways in one process keep their own plugin instances', async (t) => {
  const a = await startTestGateway(t, withCounter);
  const b = await startTestGateway(t, withCounter);
  t.equal(await visits(a.url, a.key), '1');
  t.equal(await visits(a.url, a.key), '2');
  t.equal(await visits(a.url, a.key), '3');
  t.equal(await visits(b.url, b.key), '1', "b's counter is its own: a's three requests are not in it");
  t.equal(await visits(a.url, a.key), '4');
});

t.test('a gateway knows only the plugins it is given', async (t) => {
  const without = definedPlugins().filter((p) => p.name !== STAGE);
  await t.rejects(
    startTestGateway(t, withCounter, { plugins: without }),
    /pipeline\[0\].*unknown middleware "visit-counter"/s,
  );
  const a = await startTestGateway(t, withCounter);
  t.equal(await visits(a.url, a.key), '1', 'the gateway given every plugin has it');
});

t.test("nothing of a plugin is registered in tsyringe's root container", async (t) => {
  await startTestGateway(t, withCounter);
  t.equal(registeredPlugins('middleware', container).size, 0);
  t.equal(registeredPlugins('upstream', container).size, 0);
});
