/**
 * Real load balancers from Debian's packages in front of a gateway, as deployments run them: nginx
 * (HTTP, `X-Forwarded-For`) and HAProxy (TCP, `send-proxy-v2`). Each runs in the foreground with its
 * files in a temporary directory and is killed when the test ends. Each connects to the gateway from
 * its own loopback address (`proxy_bind`, `source`), so the gateway can trust it and nobody else.
 *
 * Neither can bind port 0 (nginx: "invalid port in 127.0.0.1:0"; HAProxy: "invalid port '0'"), and a
 * port picked free beforehand can be taken before they bind it. So this process binds port 0 itself
 * and hands the listening socket over as the child's fd 3: HAProxy takes it as `bind fd@3`, nginx as
 * an inherited socket (`NGINX="3;"`, with a `listen` of the same address). Clients may connect from
 * the moment it is bound; the balancer accepts once it runs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { tempDir, type Teardown } from './gateway';

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
  const socket = await listening();
  const { port } = socket.address() as AddressInfo;
  const temp = (name: string): string => join(dir, name);
  await Promise.all(['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => mkdir(temp(name))));
  // With an inherited socket nginx 1.22 crashes (SIGSEGV) when master_process is off: a master and one
  // worker, the worker as this process's user when that is root (not nobody, who cannot enter `dir`).
  // Notices on: the master's "start worker process" line says it is running.
  const conf = `
daemon off;
master_process on;
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${temp('nginx.pid')};
error_log stderr notice;
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
  return run(t, {
    binary: NGINX,
    args: ['-p', dir, '-e', 'stderr', '-c', temp('nginx.conf')],
    env: { NGINX: '3;' }, // the inherited socket's fd, as nginx passes them to a new binary
    socket,
    running: /start worker process \d+/,
  });
}

/** HAProxy in TCP mode, opening each connection to the gateway with a PROXY protocol v2 header. */
export async function startHaproxy(t: Teardown, { gatewayPort, from }: BalancerOptions): Promise<Balancer> {
  const dir = await tempDir(t, 'haproxy-');
  const socket = await listening();
  const conf = `
defaults
  mode tcp
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend clients
  bind fd@3
  default_backend gateway
backend gateway
  server gateway 127.0.0.1:${gatewayPort} send-proxy-v2 source ${from}
`;
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, conf);
  // -V (verbose) prints the polling mechanism it uses as it enters its loop: the line that says it runs.
  return run(t, {
    binary: HAPROXY,
    args: ['-db', '-V', '-f', file],
    env: {},
    socket,
    running: /as the polling mechanism/,
  });
}

/** A TCP socket listening on a port of the system's choosing on 127.0.0.1, for a balancer to inherit. */
async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return server;
}

/**
 * The file descriptor of a listening server, for `spawn`'s `stdio`, which takes a descriptor but not a
 * net.Server. Node has no public accessor: its handle carries the descriptor as `fd` on Unix.
 */
function descriptorOf(server: Server): number {
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) throw new Error('the listening socket has no file descriptor');
  return fd;
}

interface Launch {
  readonly binary: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** Listening already; handed to the child as its fd 3, and closed here once the child has it. */
  readonly socket: Server;
  /** The line (on stdout or stderr) that says it is running. */
  readonly running: RegExp;
}

/** Room for a loaded machine: either is running in milliseconds on a quiet one. */
const START_TIMEOUT_MS = 20_000;

/**
 * Starts the balancer in the foreground on the inherited socket and waits for its running line. In a
 * process group of its own, so that the end of the test kills nginx's worker with its master.
 */
async function run(t: Teardown, { binary, args, env, socket, running }: Launch): Promise<Balancer> {
  // .ci/run installs both; elsewhere the message says how.
  if (!existsSync(binary)) {
    socket.close();
    throw new Error(`${binary} is not installed (Debian: apt-get install nginx haproxy)`);
  }
  const { port } = socket.address() as AddressInfo;
  const child = spawn(binary, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', descriptorOf(socket)],
    detached: true,
  });
  // The child has its own copy: this process stops listening, so every connection goes to the child.
  socket.close();
  let log = '';
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  // The whole group, even when the master is gone: nginx's worker would outlive it.
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // all gone already
    }
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`exited (${code ?? signal})`)),
  );
  const started = new Promise<string>((resolve) => {
    const check = () => {
      if (running.test(log) || running.test(out)) resolve('running');
    };
    child.stderr!.on('data', check);
    child.stdout!.on('data', check);
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`not running after ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
  });
  const outcome = await Promise.race([started, exited, late]);
  clearTimeout(timer);
  if (outcome !== 'running') throw new Error(`${binary} did not start: ${outcome}: ${log}${out}`);
  return { url: `http://127.0.0.1:${port}`, log: () => log };
}
