/** What the `mcp:` section refuses before any server is asked, naming the entry. */
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../../../config/errors';
import { loadConfigFile } from '../../../../config/load';
import { startTestGateway, tempDir } from '../../../helpers/gateway';

t.test('a server named twice is refused with the line of the second', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'gateway.yaml');
  await writeFile(
    file,
    [
      'pipeline: [auth, model-router]',
      'mcp:',
      '  servers:',
      '    demo: { url: http://127.0.0.1:7000/mcp }',
      '    demo: { url: http://127.0.0.1:7001/mcp }',
      '',
    ].join('\n'),
  );
  t.throws(() => loadConfigFile(file, {}), /invalid YAML: Map keys must be unique at line 5/);
});

t.test('bad entries are named, every one at once', async (t) => {
  const error = await startTestGateway(t, (doc) => {
    doc.mcp = {
      servers: {
        a__b: { url: 'http://127.0.0.1:7000/mcp' },
        ftp: { url: 'ftp://files.internal/mcp' },
        creds: { url: 'https://user:secret@mcp.internal/mcp' },
        slow: { url: 'http://127.0.0.1:7000/mcp', timeout: 'soon' },
        narrow: { url: 'http://127.0.0.1:7000/mcp', tools: ['bad glob'] },
      },
    };
  }).catch((e: unknown) => e);
  t.ok(error instanceof ConfigError);
  t.match((error as ConfigError).problems, [
    { path: 'mcp.servers.a__b', reason: /must not contain '__'/ },
    { path: 'mcp.servers.ftp.url', reason: /must be http or https/ },
    { path: 'mcp.servers.creds.url', reason: /must not carry credentials/ },
    { path: 'mcp.servers.slow.timeout', reason: /soon/ },
    { path: 'mcp.servers.narrow.tools[0]', reason: /tool pattern/ },
  ]);
});
