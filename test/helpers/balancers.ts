/**
 * Real load balancers from Debian's packages in front of a gateway, as deployments run them: nginx
 * (HTTP, `X-Forwarded-For`) and HAProxy (TCP, `send-proxy-v2`). Each runs in the foreground with its
 * files in a temporary directory and is killed when the test ends. Each connects to the gateway from
 * its own loopback address (`proxy_bind`, `source`), so the gateway can trust it and nobody else.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { tempDir, type Teardown } from './gateway';
import { freePort } from './process';

const NGINX = '/usr/sbin/nginx';
const HAPROXY = '/usr/sbin/haproxy';

export interface Balancer {
  /** Where clients connect. */
  readonly url: string;
  /** Everything it wrote to stderr (its error log). */
  log(): string;
}

export interface BalancerOptions {
  /** The gateway's port on 127.0.0.1. */
  readonly gatewayPort: number;
  /** The address the balancer connects to the gateway from. */
  readonly from: string;
}

/** nginx as an HTTP reverse proxy that appends the client to X-Forwarded-For. */
export async function startNginx(t: Teardown, { gatewayPort, from }: BalancerOptions): Promise<Balancer> {
  const dir = await tempDir(t, 'nginx-');
  const port = await freePort();
  const temp = (name: string): string => join(dir, name);
  await Promise.all(['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => mkdir(temp(name))));
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${temp('nginx.pid')};
error_log stderr warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream gateway { server 127.0.0.1:${gatewayPort}; keepalive 8; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://gateway;
      proxy_bind ${from};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
    }
  }
}
`;
  await writeFile(temp('nginx.conf'), conf);
  return run(t, NGINX, ['-p', dir, '-e', 'stderr', '-c', temp('nginx.conf')], port);
}

/** HAProxy in TCP mode, opening each connection to the gateway with a PROXY protocol v2 header. */
export async function startHaproxy(t: Teardown, { gatewayPort, from }: BalancerOptions): Promise<Balancer> {
  const dir = await tempDir(t, 'haproxy-');
  const port = await freePort();
  const conf = `
defaults
  mode tcp
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend clients
  bind 127.0.0.1:${port}
  default_backend gateway
backend gateway
  server gateway 127.0.0.1:${gatewayPort} send-proxy-v2 source ${from}
`;
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, conf);
  return run(t, HAPROXY, ['-db', '-f', file], port);
}

/** Starts `binary` in the foreground and waits until its port accepts connections. */
async function run(t: Teardown, binary: string, args: string[], port: number): Promise<Balancer> {
  // .ci/run installs both; elsewhere the message says how.
  if (!existsSync(binary))
    throw new Error(`${binary} is not installed (Debian: apt-get install nginx haproxy)`);
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${binary} did not start (exit ${child.exitCode}): ${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, log: () => log };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
