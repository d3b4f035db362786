/**
 * The client's address: the peer's unless a trusted balancer names another, walked from the right of
 * X-Forwarded-For or RFC 7239 Forwarded past every trusted hop; from an untrusted peer the headers
 * change nothing.
 */
import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { ClientAddresses, type ClientAddressOptions } from '../../../core/http/client-address';

const request = (peer: string, headers: Record<string, string> = {}): IncomingMessage =>
  ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

const addresses = (options: Partial<ClientAddressOptions> = {}): ClientAddresses =>
  new ClientAddresses({
    trusted_proxies: [],
    real_ip_header: 'x-forwarded-for',
    forward_client_address: false,
    ...options,
  });

const CASES: readonly {
  readonly name: string;
  readonly options: Partial<ClientAddressOptions>;
  readonly peer: string;
  readonly headers?: Record<string, string>;
  readonly client: string;
}[] = [
  { name: 'no trusted proxies: the peer', options: {}, peer: '10.0.0.9', client: '10.0.0.9' },
  {
    name: 'no trusted proxies: a forged header changes nothing',
    options: {},
    peer: '198.51.100.7',
    headers: { 'x-forwarded-for': '1.2.3.4' },
    client: '198.51.100.7',
  },
  {
    name: 'an untrusted peer: its header is ignored',
    options: { trusted_proxies: ['10.0.0.0/8'] },
    peer: '198.51.100.7',
    headers: { 'x-forwarded-for': '1.2.3.4' },
    client: '198.51.100.7',
  },
  {
    name: 'a trusted peer: the address it appended',
    options: { trusted_proxies: ['10.0.0.0/8'] },
    peer: '10.0.0.2',
    headers: { 'x-forwarded-for': '203.0.113.5' },
    client: '203.0.113.5',
  },
  {
    name: 'walked from the right past every trusted hop; what the client wrote on the left is not read',
    options: { trusted_proxies: ['10.0.0.0/8', '192.168.1.1'] },
    peer: '10.0.0.2',
    headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.5, 192.168.1.1, 10.1.1.1' },
    client: '203.0.113.5',
  },
  {
    name: 'every hop trusted: the leftmost',
    options: { trusted_proxies: ['10.0.0.0/8'] },
    peer: '10.0.0.2',
    headers: { 'x-forwarded-for': '10.9.9.9, 10.1.1.1' },
    client: '10.9.9.9',
  },
  {
    name: 'an entry that is no address stops the walk at the hop that wrote it',
    options: { trusted_proxies: ['10.0.0.0/8'] },
    peer: '10.0.0.2',
    headers: { 'x-forwarded-for': 'garbage, 10.1.1.1' },
    client: '10.1.1.1',
  },
  {
    name: 'IPv6 peers and hops, CIDR and ports',
    options: { trusted_proxies: ['2001:db8::/32'] },
    peer: '2001:db8::1',
    headers: { 'x-forwarded-for': '2001:db9::42, [2001:db8::5]:443' },
    client: '2001:db9::42',
  },
  {
    name: 'an IPv4 entry with a port',
    options: { trusted_proxies: ['127.0.0.1'] },
    peer: '127.0.0.1',
    headers: { 'x-forwarded-for': '192.0.2.43:47011' },
    client: '192.0.2.43',
  },
  {
    name: 'an IPv4 peer seen as a mapped IPv6 address is trusted by its IPv4 CIDR',
    options: { trusted_proxies: ['127.0.0.0/8'] },
    peer: '::ffff:127.0.0.5',
    headers: { 'x-forwarded-for': '203.0.113.5' },
    client: '203.0.113.5',
  },
  {
    name: 'Forwarded (RFC 7239): for= of each element, quoted IPv6 with a port',
    options: { trusted_proxies: ['10.0.0.0/8'], real_ip_header: 'forwarded' },
    peer: '10.0.0.2',
    headers: { forwarded: 'for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711", for=10.0.0.3' },
    client: '2001:db8:cafe::17',
  },
  {
    name: 'Forwarded chosen: X-Forwarded-For is not read',
    options: { trusted_proxies: ['10.0.0.0/8'], real_ip_header: 'forwarded' },
    peer: '10.0.0.2',
    headers: { 'x-forwarded-for': '1.2.3.4' },
    client: '10.0.0.2',
  },
  {
    name: 'a Forwarded header that does not parse: the peer',
    options: { trusted_proxies: ['10.0.0.0/8'], real_ip_header: 'forwarded' },
    peer: '10.0.0.2',
    headers: { forwarded: 'for=="' },
    client: '10.0.0.2',
  },
  {
    name: 'for=unknown stops at the trusted hop',
    options: { trusted_proxies: ['10.0.0.0/8'], real_ip_header: 'forwarded' },
    peer: '10.0.0.2',
    headers: { forwarded: 'for=unknown' },
    client: '10.0.0.2',
  },
];

for (const c of CASES) {
  t.test(c.name, (t) => {
    t.equal(addresses(c.options).of(request(c.peer, c.headers)), c.client);
    t.end();
  });
}
