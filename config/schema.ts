/**
 * The core sections of gateway.yaml. Plugin option blocks (a pipeline entry's options, an upstream's
 * settings beyond `plugin`) are kept as raw values here and validated by the plugin's own schema when the
 * gateway is composed, so each plugin owns its section (docs/conventions.md#convention-3).
 */
import { z } from 'zod';
import { compile as compileTrust } from '@fastify/proxy-addr';
import { guardrailNames } from './guardrail-names';
import { toolGlobs } from './tool-globs';
import { duration, port, size } from './units';

const timeouts = z
  .object({
    /** Time for a client to send the request headers (Node answers 408). */
    headers: duration.default(10_000),
    /** Longest silence between two chunks of a request body (408). */
    body_read: duration.default(30_000),
    /** The longest a whole request body may take to arrive (408), however steadily it trickles. */
    body_total: duration.default(60_000),
    upstream_connect: duration.default(5_000),
    /** From the upstream request to the upstream's response headers (504). */
    upstream_response: duration.default(60_000),
    /** A stream silent upstream this long ends with an error event. */
    stream_idle: duration.default(300_000),
  })
  .strict();

/** CIDRs or single addresses, checked by the same parser that will test peers against them. */
export const trustedProxies = z.array(z.string().min(1)).superRefine((entries, ctx) => {
  try {
    compileTrust([...entries]);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});

const server = z
  .object({
    host: z.string().default('0.0.0.0'),
    port: port.default(8080),
    body_limit: size.default(1024 * 1024),
    max_header_size: size.default(16 * 1024),
    max_headers: z.number().int().min(1).default(100),
    /** The deepest nesting of arrays and objects a JSON body may have (400 beyond it). */
    max_json_depth: z.number().int().min(2).max(1_000).default(64),
    timeouts: timeouts.default(timeouts.parse({})),
    /** How long requests in flight may run after SIGTERM before open streams are ended. */
    shutdown_grace: duration.default(30_000),
    /**
     * The balancers in front of the gateway (CIDRs or addresses, IPv4 and IPv6). Only from these is
     * the client's address taken from `real_ip_header`; `GATEWAY_TRUSTED_PROXIES` (comma-separated)
     * replaces the list.
     */
    trusted_proxies: trustedProxies.default([]),
    /** The header a trusted balancer names the client in: `x-forwarded-for`, or RFC 7239 `forwarded`. */
    real_ip_header: z.enum(['x-forwarded-for', 'forwarded']).default('x-forwarded-for'),
    /** Every connection opens with a PROXY protocol header (v1 or v2), as from an L4 balancer. */
    proxy_protocol: z.boolean().default(false),
    /** Upstreams get the client's address in a fresh `X-Forwarded-For` (off: they get no forwarding headers). */
    forward_client_address: z.boolean().default(false),
  })
  .strict();

const admin = z
  .object({
    host: z.string().default('127.0.0.1'),
    port: port.default(8081),
  })
  .strict();

/** Hosts an `http:` issuer may have: a provider on this machine, where nothing travels the network. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What a person's claim value makes them in the console; `team_id` names the team of a `team_admin`. */
const oidcRole = z
  .object({
    value: z.string().min(1),
    role: z.enum(['admin', 'team_admin', 'viewer']),
    team_id: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((entry, ctx) => {
    const teamAdmin = entry.role === 'team_admin';
    if (teamAdmin === (entry.team_id !== undefined)) return;
    const message = teamAdmin ? 'a team_admin needs its team_id' : 'only a team_admin has a team_id';
    ctx.addIssue({ code: 'custom', path: ['team_id'], message });
  });

/**
 * Single sign-on for the console through an OpenID Connect provider (core/admin/sso/). The secret comes
 * from the environment (`client_secret: ${OIDC_CLIENT_SECRET}`); sessions are signed with
 * GATEWAY_SESSION_SECRET, else with a secret derived from the key secret.
 */
const oidc = z
  .object({
    /** The provider's issuer URL; `/.well-known/openid-configuration` is read from it. */
    issuer: z
      .url({ protocol: /^https?$/ })
      .refine(
        (url) => url.startsWith('https:') || LOOPBACK.has(new URL(url).hostname),
        'must be https (http only for a provider on this machine)',
      ),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    /** The admin listener's public address + `/auth/callback`, as registered at the provider. */
    redirect_uri: z
      .url({ protocol: /^https?$/ })
      .refine((url) => new URL(url).pathname === '/auth/callback', 'must end in /auth/callback'),
    /** Space-separated; must include `openid`. */
    scopes: z
      .string()
      .refine((scopes) => scopes.split(/\s+/).includes('openid'), "must include 'openid'")
      .default('openid profile email'),
    /** The ID token's (or userinfo's) claim matched against `roles[].value`: a string or an array of them. */
    role_claim: z.string().min(1).default('groups'),
    /** In order: the first entry whose value the claim holds decides; a person no entry matches is refused. */
    roles: z.array(oidcRole).min(1),
    session_ttl: duration.pipe(z.number().min(60_000)).default(8 * 3_600_000),
  })
  .strict();

/** The operators' console; without `oidc` it signs in with the admin token only. */
const consoleSection = z.object({ oidc: oidc.optional() }).strict();

/** Usage records waiting to be written; at this many, new billable calls are refused (503 usage_backlog). */
const usageQueueMax = z.number().int().min(1).default(100_000);

/** How long a task that needs no more work is kept after its last change; 0 keeps every task. */
const taskRetention = duration.default(30 * 24 * 3600 * 1000);

/**
 * How long a batch's output and error files are kept from their creation (their `expires_at`), as
 * OpenAI keeps batch output 30 days by default; 0 keeps them until deleted.
 */
const batchRetention = duration.default(30 * 24 * 3600 * 1000);

/**
 * Where keys, usage and video tasks live. `embedded`: files under `data_dir`, for one instance (a lock
 * file keeps a second process out). `mongodb`: a replica set (change streams need one) shared by any
 * number of instances. `data_dir` is kept in both cases for the instance's own secrets (key hashing
 * secret, admin token).
 */
const storage = z.preprocess(
  // `driver` may be left out: embedded is the default.
  (v) => (v !== null && typeof v === 'object' && !('driver' in v) ? { driver: 'embedded', ...v } : v),
  z.discriminatedUnion('driver', [
    z
      .object({
        driver: z.literal('embedded'),
        data_dir: z.string().default('./data'),
        /** usage.jsonl is renamed to usage-<time>.jsonl and a new one started once it reaches this size. */
        usage_rotate_size: size.refine((n) => n > 0, 'must be above 0').default(64 * 1024 * 1024),
        usage_queue_max: usageQueueMax,
        task_retention: taskRetention,
        batch_retention: batchRetention,
      })
      .strict(),
    z
      .object({
        driver: z.literal('mongodb'),
        data_dir: z.string().default('./data'),
        uri: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI'),
        database: z.string().min(1).default('gateway'),
        usage_queue_max: usageQueueMax,
        task_retention: taskRetention,
        batch_retention: batchRetention,
        /** How long a usage record is kept; 0 (the default) keeps them all, as the billing history. */
        usage_retention: duration.default(0),
      })
      .strict(),
  ]),
);

/** A UTC or offset ISO 8601 time, kept as `Date#toISOString` (the stores compare expiries as strings). */
const isoTime = z.iso
  .datetime({ offset: true })
  .refine((text) => Number.isFinite(Date.parse(text)))
  .transform((text) => new Date(text).toISOString());

/** As core/keys/api-key.ts accepts them: `sk-` + 32 to 128 base64url characters. */
const DECLARED_SECRET = /^sk-[A-Za-z0-9_-]{32,128}$/;
/** As the key store keeps it: base64url of HMAC-SHA-256 with the server's key secret. */
const KEY_HASH = /^[A-Za-z0-9_-]{43}$/;

/** Checks a declared key's secret or hash; messages name the entry, never echo the secret. */
function checkDeclaredSecret(entry: { name: string; secret?: string; hash?: string }, ctx: z.RefinementCtx) {
  const problem = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [path], message: `declared key '${entry.name}': ${message}` });
  if ((entry.secret === undefined) === (entry.hash === undefined)) {
    problem(entry.secret === undefined ? 'secret' : 'hash', 'give exactly one of secret and hash');
  } else if (entry.secret !== undefined && !entry.secret.startsWith('sk-')) {
    problem('secret', "the secret must start with 'sk-'");
  } else if (entry.secret !== undefined && !DECLARED_SECRET.test(entry.secret)) {
    problem('secret', "the secret must be 'sk-' + 32 to 128 letters, digits, '-' or '_'");
  } else if (entry.hash !== undefined && !KEY_HASH.test(entry.hash)) {
    problem('hash', 'the hash must be 43 base64url characters (npm run keys -- hash)');
  }
}

/**
 * A key that exists on every instance because gateway.yaml says so (no store involved): the secret
 * itself (`${TEAM_A_KEY}`) or its hash. A new limit a stored key gains is one more optional field here.
 */
const declaredKey = z
  .object({
    /** Its id is `declared:<name>`, in usage records, rate-limit `per_key` and the admin API. */
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be 1-63 of a-z, 0-9, _ and -, not starting with _ or -'),
    secret: z.string().optional(),
    hash: z.string().optional(),
    description: z.string().max(500).default(''),
    /** Empty: every model. */
    allowed_models: z.array(z.string().min(1)).default([]),
    rate_limit_rpm: z.number().int().positive().optional(),
    rate_limit_tpm: z.number().int().positive().optional(),
    max_concurrent: z.number().int().positive().optional(),
    expires_at: isoTime.optional(),
    /** The team the key belongs to (its id, `team-…`); a team that does not exist refuses the key's calls. */
    team_id: z.string().min(1).max(64).optional(),
    /** Guardrail rules marked `opt_in` that apply to the key's calls; a name no rule has adds nothing. */
    guardrails: guardrailNames.optional(),
    /** MCP tools the key may use, as names or globs (`search__*`); absent or empty: every tool. */
    allowed_tools: toolGlobs.optional(),
  })
  .strict()
  .superRefine(checkDeclaredSecret);

const declaredKeys = z.array(declaredKey).superRefine((entries, ctx) => {
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const first = seen.get(entry.name);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'name'],
        message: `declared key '${entry.name}' is declared twice (entries ${first} and ${i})`,
      });
    }
    seen.set(entry.name, i);
  });
});

const keys = z
  .object({
    /** Key lookups are cached; entries older than this are looked up again, so a change made on another instance takes effect within it. */
    cache_ttl: duration.default(1_000),
    cache_max: z.number().int().min(1).default(10_000),
    /** Failed authentications (401) per client address and window before the address gets 429 for the rest of it; 0: no limit. Counted per instance. */
    failed_auth_limit: z.number().int().min(0).default(20),
    failed_auth_window: duration.pipe(z.number().min(1)).default(10_000),
    /** How often the keys with open streams are read again, so a revoked key's streams end even if its event was lost. */
    revoke_check_every: duration.pipe(z.number().min(10)).default(1_000),
    /** Keys every instance accepts without a store (core/keys/declared-keys.ts). */
    declared: declaredKeys.default([]),
  })
  .strict();

export const redisUrl = z
  .string()
  .regex(/^(rediss?:\/\/.+)?$/, 'must be a redis:// or rediss:// URL, or empty');

/**
 * Shared state for several instances (rate limits, key events, poll caps). Off when `url` is empty:
 * each instance then counts alone in memory. `REDIS_URL` in the environment wins over `url`.
 */
const redis = z
  .object({
    /** `redis://[:password@]host:port[/db]`, or empty for none. */
    url: redisUrl.default(''),
    /** Prepended to every key and channel, so gateways can share a server with other users. */
    key_prefix: z.string().default('gateway:'),
    /** A command not answered within this fails at once; the caller falls back, never hangs. */
    command_timeout: duration.default(100),
  })
  .strict();

/** A pipeline entry: `auth` or `{ rate-limit: { … } }`. */
const pipelineEntry = z.union([z.string(), z.record(z.string(), z.unknown())]);

const upstream = z.object({ plugin: z.string() }).passthrough();

const routeTarget = z
  .object({
    upstream: z.string(),
    weight: z.number().positive().default(1),
    /** The model id the upstream knows, when it differs from the contract's id. */
    model: z.string().optional(),
  })
  .strict();

/** Where a route goes when its target fails: another upstream, and the model id it knows (if not the route's). */
const routeFallback = z
  .object({
    upstream: z.string(),
    /** The model id sent upstream: the route's model under another name, or another model of the same API. */
    model: z.string().optional(),
  })
  .strict();

/** An HTTP header name (RFC 9110 token), lower-cased as Node hands request headers over. */
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name')
  .transform((name) => name.toLowerCase());

/**
 * Session affinity (plugins/middleware/model-router/): the calls of one conversation keep reaching the
 * same target while it is in service, so a vendor's prompt cache, kept per deployment, can hit. `by:
 * header` keys a session by the value of `header`; `by: prefix` by the conversation's start (system
 * prompt and first user turn). A placement is forgotten after `ttl` without a call.
 */
const routeAffinity = z
  .object({
    by: z.enum(['header', 'prefix']).default('header'),
    header: headerName.default('x-session-id'),
    ttl: duration.pipe(z.number().min(1)).default(3_600_000),
  })
  .strict();

const route = z
  .object({
    targets: z.array(routeTarget).min(1),
    /** Tried in order, once per request, when the chosen target fails before any byte reached the client. */
    fallbacks: z.array(routeFallback).default([]),
    affinity: routeAffinity.optional(),
  })
  .strict();

/**
 * Retries and outlier ejection (core/routing/resilience.ts). Kept by one long-lived object, so its
 * state (failure counts, ejections) outlives any one routing snapshot.
 */
const resilience = z
  .object({
    /** Retries in flight may be at most max(min, percent % of requests in flight): no retry storms. */
    retry_budget: z
      .object({
        percent: z.number().min(0).max(100).default(20),
        min: z.number().int().min(0).default(3),
      })
      .strict()
      .default({ percent: 20, min: 3 }),
    /** An upstream failing this many times in a row is left out for `base`, doubling on repeat up to `max`. */
    ejection: z
      .object({
        /** 0 disables ejection. */
        consecutive_failures: z.number().int().min(0).default(5),
        base: duration.pipe(z.number().min(1)).default(30_000),
        max: duration.pipe(z.number().min(1)).default(300_000),
      })
      .strict()
      .default({ consecutive_failures: 5, base: 30_000, max: 300_000 }),
  })
  .strict();

const simulator = z
  .object({
    /** A string too, so `${GATEWAY_SIMULATOR:-true}` works. */
    enabled: z.union([z.boolean(), z.stringbool()]).default(false),
    host: z.string().default('127.0.0.1'),
    port: port.default(9100),
  })
  .strict();

/** The video task protocols served, each with its options, and the poller's own timing. */
const video = z
  .object({
    /** Protocol plugin name → its options; a protocol left out is not served. */
    protocols: z.record(z.string(), z.unknown()).default({ generic: {}, 'native-a': {}, 'native-b': {} }),
    /** Whether this instance polls (every instance may; leases keep them apart). */
    poller: z.union([z.boolean(), z.stringbool()]).default(true),
    /** How long a poller holds a task while it polls it; a poller that dies frees it after this. */
    lease: duration.default(30_000),
    /** The periodic search for due tasks, behind the store's change events. */
    sweep_every: duration.default(5_000),
    /** How long an Idempotency-Key keeps returning the first task. */
    idempotency_window: duration.default(24 * 3_600_000),
  })
  .strict();

/**
 * A model's price. Text and images: per million tokens of each kind (cache reads and writes default to
 * the input rate) and per image (flat, or by size and then quality). Video: per second (flat, or by
 * resolution), or per million upstream tokens.
 */
const rate = z.number().nonnegative();
/**
 * A table whose every key matches `key`; a bad key is reported at its own path. (A refinement rather than
 * a key schema: inside the `per_image` union a bad key then yields its own message, not "Invalid input".)
 */
const keyedBy = <V extends z.ZodType>(key: RegExp, message: string, value: V) =>
  z.record(z.string(), value).superRefine((table, ctx) => {
    for (const k of Object.keys(table))
      if (!key.test(k)) ctx.addIssue({ code: 'custom', path: [k], message });
  });
/**
 * Per image: a number, or a table by size (`<width>x<height>`, `auto`) whose entries are a number or a
 * table by quality. Keys are compared without case; `*` is any size or quality not listed or not given.
 */
const perImage = z.union(
  [
    rate,
    keyedBy(
      /^(\*|auto|\d+x\d+)$/i,
      'a size must be <width>x<height>, auto or *',
      z.union([rate, keyedBy(/./, 'a quality must be a non-empty string', rate)], {
        error: 'must be a price or a table of prices by quality',
      }),
    ),
  ],
  { error: 'must be a price or a table by size' },
);
/**
 * What a line of a vendor's own batch costs (a vendor runs them at about half price): `discount` off the
 * text rates, or rates of its own, each kind falling back to the discounted normal rate. Without it, a
 * batch line costs what the same call does.
 */
const batchPrice = z
  .object({
    discount: z.number().min(0).max(1).optional(),
    input_per_mtok: rate.optional(),
    cached_input_per_mtok: rate.optional(),
    cache_write_per_mtok: rate.optional(),
    output_per_mtok: rate.optional(),
  })
  .strict();
const price = z
  .object({
    input_per_mtok: rate.optional(),
    cached_input_per_mtok: rate.optional(),
    cache_write_per_mtok: rate.optional(),
    output_per_mtok: rate.optional(),
    per_image: perImage.optional(),
    per_second: z
      .union([z.number().nonnegative(), z.record(z.string(), z.number().nonnegative())])
      .optional(),
    per_million_tokens: z.number().nonnegative().optional(),
    batch: batchPrice.optional(),
  })
  .strict();

/** Consumption ceilings of a model (core/contracts/model-limits.ts); each tightens or loosens the plugin's default. */
const modelLimits = z
  .object({
    max_output_tokens: z.int().min(1).optional(),
    max_n: z.int().min(1).optional(),
    max_images: z.int().min(1).optional(),
    max_inputs: z.int().min(1).optional(),
    max_video_seconds: z.int().min(1).optional(),
    video_resolutions: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

/** Hot reload of this file (core/reload/): the watch; SIGHUP and `POST /admin/reload` work either way. */
const reload = z
  .object({
    /** Reload when the file changes (edits, renames, a ConfigMap's symlink swap). */
    watch: z.union([z.boolean(), z.stringbool()]).default(true),
    /** How long the file must stay unchanged before it is read, so a file being written is not. */
    settle: duration.default(300),
  })
  .strict();

/** The admin API's audit log (core/admin/audit-trail.ts): how long a record is kept; 0 keeps them all. */
const audit = z
  .object({
    retention: duration.default(365 * 24 * 3600 * 1000),
  })
  .strict();

const logging = z
  .object({
    level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** One line per request at info (core/observability/access-log.ts); a reload turns it on or off. */
    access: z.union([z.boolean(), z.stringbool()]).default(true),
    /**
     * JSON lines, or pretty ones for a person; `auto`: pretty when stdout is a terminal
     * (core/base/log-format.ts). Chosen at start-up: a reload lists a change in restart_required.
     */
    format: z.enum(['auto', 'pretty', 'json']).default('auto'),
  })
  .strict();

/** A percent of a budget; above 100 for overspend (calls under way may together pass the budget). */
const thresholdPercent = z.int().min(1).max(1000);
/** Whole percents, kept in ascending order, each once. */
const thresholds = z
  .array(thresholdPercent)
  .min(1)
  .transform((list) => [...new Set(list)].sort((a, b) => a - b));

/** Where spend alerts go (core/alerts/): a receiver, the secret it verifies signatures with, what it wants. */
const alertWebhook = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    /** The HMAC-SHA256 key of `x-gateway-signature`; from the environment (`${ALERTS_SECRET}`). */
    secret: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)'),
    subjects: z
      .array(z.enum(['key', 'team']))
      .min(1)
      .default(['key', 'team']),
    /** This receiver's thresholds instead of the section's. */
    thresholds: thresholds.optional(),
  })
  .strict();

/** Retries of a delivery: `first` after the first failure, doubling up to `max`, `attempts` in all. */
const alertRetry = z
  .object({
    attempts: z.int().min(1).max(100).default(6),
    first: duration.pipe(z.number().min(1)).default(1_000),
    max: duration.pipe(z.number().min(1)).default(300_000),
  })
  .strict()
  .refine((retry) => retry.max >= retry.first, { path: ['max'], message: 'must be at least retry.first' });

/** Spend alerts by webhook when a budget's spend crosses a threshold; without webhooks, off. */
const alerts = z
  .object({
    thresholds: thresholds.default([50, 80, 100]),
    webhooks: z.array(alertWebhook).default([]),
    retry: alertRetry.default(alertRetry.parse({})),
    /** One delivery attempt, from the request to the response's headers. */
    timeout: duration.pipe(z.number().min(1)).default(5_000),
  })
  .strict();

/** The samplers of OTEL_TRACES_SAMPLER that the gateway offers. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/**
 * OpenTelemetry traces (core/observability/tracing/). Each field sets what its standard OTEL_* variable
 * sets, and wins over it; a field left out is read from the variable. With no endpoint either way,
 * tracing is off.
 */
const tracing = z
  .object({
    /** The traces URL as it is (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), e.g. http://collector:4318/v1/traces. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    protocol: z.enum(['http/protobuf', 'http/json']).optional(),
    headers: z.record(z.string().min(1), z.string()).optional(),
    service_name: z.string().min(1).optional(),
    resource_attributes: z.record(z.string().min(1), z.string()).optional(),
    sampler: z.enum(TRACE_SAMPLERS).optional(),
    /** The ratio of the `traceidratio` samplers (OTEL_TRACES_SAMPLER_ARG). */
    sampler_arg: z.number().min(0).max(1).optional(),
    /** The batch span processor (OTEL_BSP_*). */
    batch: z
      .object({
        schedule_delay: duration.optional(),
        export_timeout: duration.optional(),
        max_queue_size: z.int().min(1).optional(),
        max_export_batch_size: z.int().min(1).optional(),
      })
      .strict()
      .default({}),
    /** Record prompt and completion text in spans: off, as they may hold what must not leave the gateway. */
    capture_content: z.union([z.boolean(), z.stringbool()]).default(false),
  })
  .strict();

export const gatewayConfigSchema = z
  .object({
    server: server.default(server.parse({})),
    admin: admin.default(admin.parse({})),
    console: consoleSection.default({}),
    storage: storage.default(storage.parse({})),
    keys: keys.default(keys.parse({})),
    redis: redis.default(redis.parse({})),
    logging: logging.default(logging.parse({})),
    pipeline: z.array(pipelineEntry).min(1),
    upstreams: z.record(z.string(), upstream).default({}),
    routes: z.record(z.string(), route).default({}),
    resilience: resilience.default(resilience.parse({})),
    video: video.default(video.parse({})),
    prices: z.record(z.string(), price).default({}),
    /** Per model id or `*` pattern: ceilings over the plugins' defaults (the vendors' documented limits). */
    limits: z.record(z.string(), modelLimits).default({}),
    simulator: simulator.default(simulator.parse({})),
    reload: reload.default(reload.parse({})),
    alerts: alerts.default(alerts.parse({})),
    audit: audit.default(audit.parse({})),
    tracing: tracing.default(tracing.parse({})),
  })
  .strict()
  .superRefine(({ storage, video }, ctx) => {
    // A task deleted while its idempotency key is in force would let a retry start a second paid job.
    const kept = storage.task_retention;
    if (kept > 0 && kept < video.idempotency_window) {
      ctx.addIssue({
        code: 'custom',
        path: ['storage', 'task_retention'],
        message: `must be 0 (keep) or at least video.idempotency_window (${video.idempotency_window} ms)`,
      });
    }
  });

/** What core's own schema validates. */
export type CoreConfig = z.output<typeof gatewayConfigSchema>;
/** The top-level sections of service plugins (`mcp:`), by the plugin's name; each plugin's schema checks its own. */
export type PluginSections = Readonly<Record<string, unknown>>;
export type GatewayConfig = CoreConfig & {
  /** Absent on a configuration not built from a document (a test's object): no service is configured. */
  readonly sections?: PluginSections;
};
export type ServerConfig = GatewayConfig['server'];
export type RouteConfig = z.output<typeof route>;
export type ResilienceConfig = GatewayConfig['resilience'];
export type UpstreamEntry = z.output<typeof upstream>;
export type VideoConfig = GatewayConfig['video'];
export type PriceConfig = z.output<typeof price>;
export type PerImagePrice = z.output<typeof perImage>;
export type StorageConfig = GatewayConfig['storage'];
export type MongoStorageConfig = Extract<StorageConfig, { driver: 'mongodb' }>;
export type RedisConfig = GatewayConfig['redis'];
export type AuditConfig = GatewayConfig['audit'];
export type TracingConfig = GatewayConfig['tracing'];
export type OidcConfig = z.output<typeof oidc>;
export type OidcRoleConfig = z.output<typeof oidcRole>;
export type ReloadConfig = GatewayConfig['reload'];
export type LimitsConfig = GatewayConfig['limits'];
export type DeclaredKeyConfig = z.output<typeof declaredKey>;
export type AlertsConfig = GatewayConfig['alerts'];
export type AlertWebhookConfig = AlertsConfig['webhooks'][number];
