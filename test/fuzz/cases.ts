/**
 * Body cases: a valid body for each model-routed API (chat, messages, images, the three video protocols)
 * changed by one mutation, so most cases are near-valid, plus wholly random JSON and bytes. Every case
 * carries what the contract expects of it (see contract.ts), decided from the bytes actually sent.
 */
import fc from 'fast-check';
import {
  ALL_MODELS,
  CHAT_FAMILIES,
  CHAT_MODELS,
  CREDENTIAL_FIELDS,
  DEEP,
  IMAGE_MODELS,
  LATEST,
  MESSAGES_MODELS,
  MESSAGES_VERSION,
  SAMPLING,
  SONNET_46,
  VIDEOA_MODELS,
  VIDEOB_MODELS,
  judgeChat,
  judgeImages,
  judgeMessages,
  judgeVideo,
  type Judgement,
  type VideoProtocol,
} from './contract';
import { printable, RID, type Api, type Auth, type Expect, type FuzzCase } from './harness';
import {
  Obj,
  addEntry,
  badUtf8String,
  deleteKey,
  encode,
  fromJson,
  get,
  nested,
  raw,
  setItem,
  setKey,
  type Path,
  type Tree,
} from './json-bytes';
import {
  BAD_UTF8,
  CONTENT_TYPES,
  EDGES,
  MODEL_VALUES,
  OTHER_FIELDS,
  PARTS,
  POOL,
  PROTO_KEYS,
  RAW_NUMBERS,
  REQUEST_IDS,
} from './values';

/** Credentials that must get a 401. */
const REFUSED_AUTH: readonly Auth[] = ['none', 'wrong', 'basic'];

/** The gateway's body limit (1 MiB). */
const BODY_LIMIT = 1024 * 1024;

type BodyApi = 'chat' | 'messages' | 'images' | VideoProtocol;

const PATHS: Readonly<Record<BodyApi, string>> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  images: '/v1/images/generations',
  generic: '/v1/videos/generations',
  'native-a': '/api/v1/services/aigc/video-generation/video-synthesis',
  'native-b': '/api/v3/contents/generations/tasks',
};

/** A valid request of one API, before its mutation. */
interface Base {
  readonly api: BodyApi;
  readonly model: string;
  readonly tree: Tree;
  readonly headers: readonly (readonly [string, string])[];
  /** Objects inside the body a mutation may reach into. */
  readonly inner: readonly Path[];
  /** Where the prompt text is. */
  readonly prompt: Path;
}

/** A request after its mutation, before its expectation is worked out. */
interface Draft {
  readonly base: Base;
  readonly body: Tree | Buffer | null;
  readonly headers: readonly (readonly [string, string])[];
  readonly auth: Auth;
  readonly chunked: boolean;
  readonly requestIds?: readonly string[];
  /** Set when the mutation itself decides: e.g. invalid UTF-8 must be refused, whatever the fields say. */
  readonly forced?: { readonly expect: Expect; readonly kind: string };
  /** The mutation's kind, used when the contract judges the result valid. */
  readonly kind: string;
  readonly why: string;
}

// ---------------------------------------------------------------- valid bodies

const text = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
  .filter((s) => s.trim() !== '' && !s.includes('#sim') && !s.includes('--'));
const prompt = fc.oneof(fc.constantFrom('Say hello', 'a red fox', 'Bonjour'), text);
const tenths = (min: number, max: number): fc.Arbitrary<number> =>
  fc.integer({ min: min * 10, max: max * 10 }).map((n) => n / 10);

const familyOf = (model: string): keyof typeof CHAT_FAMILIES =>
  (Object.keys(CHAT_FAMILIES) as (keyof typeof CHAT_FAMILIES)[]).find((f) =>
    CHAT_FAMILIES[f].includes(model),
  )!;

const CHAT_OPTIONAL: Readonly<Record<string, readonly string[]>> = {
  stream: ['A', 'B', 'C'],
  stream_options: ['C'],
  temperature: ['A', 'B', 'C'],
  top_p: ['A', 'B', 'C'],
  max_tokens: ['A', 'B', 'C'],
  n: ['A', 'B', 'C'],
  stop: ['A', 'B', 'C'],
  presence_penalty: ['A', 'B', 'C'],
  frequency_penalty: ['A', 'B'],
  repetition_penalty: ['C'],
  logprobs: ['A'],
  top_logprobs: ['A'],
  seed: ['A', 'C'],
  reasoning_effort: ['A', 'B'],
  enable_thinking: ['C'],
  tools: ['A', 'B', 'C'],
  tool_choice: ['A', 'B', 'C'],
  parallel_tool_calls: ['A', 'C'],
  response_format: ['A', 'B', 'C'],
  extra_body: ['B'],
  user: ['A'],
};

const TOOL = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
};

const chatBase: fc.Arbitrary<Base> = fc
  .record({
    model: fc.constantFrom(...CHAT_MODELS),
    prompt,
    system: fc.option(fc.constant('Be brief.'), { nil: undefined }),
    optional: fc.record(
      {
        stream: fc.boolean(),
        stream_options: fc.record({ include_usage: fc.boolean() }),
        temperature: tenths(0, 2),
        top_p: tenths(0, 1),
        max_tokens: fc.integer({ min: 1, max: 64 }),
        n: fc.integer({ min: 1, max: 3 }),
        stop: fc.oneof(fc.constant('END'), fc.array(fc.constantFrom('END', '\n\n'), { maxLength: 2 })),
        presence_penalty: tenths(-2, 2),
        frequency_penalty: tenths(-2, 2),
        repetition_penalty: tenths(0.5, 1.5),
        logprobs: fc.boolean(),
        top_logprobs: fc.integer({ min: 0, max: 5 }),
        seed: fc.integer({ min: -1000, max: 1_000_000 }),
        reasoning_effort: fc.constantFrom('low', 'medium', 'high'),
        enable_thinking: fc.boolean(),
        tools: fc.constant([TOOL]),
        tool_choice: fc.constantFrom<unknown>('auto', 'none', 'required', {
          type: 'function',
          function: { name: 'get_weather' },
        }),
        parallel_tool_calls: fc.boolean(),
        response_format: fc.constantFrom({ type: 'text' }, { type: 'json_object' }),
        extra_body: fc.constant({}),
        user: fc.constantFrom('user-1', 'ü'),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ model, prompt, system, optional }) => {
    const family = familyOf(model);
    const body: Record<string, unknown> = { model, messages: [] };
    body.messages = [
      ...(system ? [{ role: 'system', content: system }] : []),
      { role: 'user', content: prompt },
    ];
    for (const [field, value] of Object.entries(optional))
      if (CHAT_OPTIONAL[field]?.includes(family)) body[field] = value;
    if (body.top_logprobs !== undefined) body.logprobs = true;
    const last = (body.messages as unknown[]).length - 1;
    return {
      api: 'chat',
      model,
      tree: fromJson(body),
      headers: [['content-type', 'application/json']],
      inner: [['messages', last]],
      prompt: ['messages', last, 'content'],
    };
  });

const messagesBase: fc.Arbitrary<Base> = fc
  .record({
    model: fc.constantFrom(...MESSAGES_MODELS),
    prompt,
    max_tokens: fc.integer({ min: 1, max: 1024 }),
    optional: fc.record(
      {
        system: fc.constantFrom<unknown>('Be brief.', [{ type: 'text', text: 'Be brief.' }]),
        stream: fc.boolean(),
        temperature: tenths(0, 1),
        top_p: tenths(0, 1),
        top_k: fc.integer({ min: 0, max: 500 }),
        stop_sequences: fc.array(fc.constantFrom('END', 'STOP'), { maxLength: 2 }),
        tools: fc.constant([{ name: 'get_weather', input_schema: { type: 'object' } }]),
        tool_choice: fc.constantFrom<unknown>(
          { type: 'auto' },
          { type: 'any' },
          { type: 'tool', name: 'get_weather' },
          { type: 'none' },
        ),
        metadata: fc.constant({ user_id: 'u-1' }),
        thinking: fc.constantFrom({ type: 'adaptive' }, { type: 'disabled' }),
        output_config: fc.constant({}),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ model, prompt, max_tokens, optional }) => {
    const body: Record<string, unknown> = {
      model,
      max_tokens,
      messages: [{ role: 'user', content: prompt }],
    };
    const latest = LATEST.includes(model);
    for (const [field, value] of Object.entries(optional)) {
      if (['metadata', 'thinking', 'output_config'].includes(field) && !latest) continue;
      if (field === 'system' && Array.isArray(value) && !latest) continue;
      if (field === 'tool_choice' && (value as { type: string }).type === 'none' && !latest) continue;
      if (['temperature', 'top_p'].includes(field) && !SAMPLING.includes(model)) continue;
      if (field === 'top_k' && model !== SONNET_46) continue;
      if (field === 'top_p' && body.temperature !== undefined) continue;
      body[field] = value;
    }
    return {
      api: 'messages',
      model,
      tree: fromJson(body),
      headers: [
        ['content-type', 'application/json'],
        ['modeld-version', MESSAGES_VERSION],
      ],
      inner: [['messages', 0]],
      prompt: ['messages', 0, 'content'],
    };
  });

const imagesBase: fc.Arbitrary<Base> = fc
  .record({
    prompt,
    size: fc.constantFrom('16x16', '32x24', '64x64'),
    optional: fc.record(
      {
        n: fc.integer({ min: 1, max: 2 }),
        output_format: fc.constantFrom('png', 'jpeg', 'webp'),
        output_compression: fc.integer({ min: 0, max: 100 }),
        background: fc.constantFrom('transparent', 'opaque', 'auto'),
        moderation: fc.constantFrom('auto', 'low'),
        quality: fc.constantFrom('standard', 'high'),
        response_format: fc.constantFrom('url', 'b64_json'),
        user: fc.constant('user-1'),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ prompt, size, optional }) => {
    const body: Record<string, unknown> = { model: IMAGE_MODELS[0], prompt, size, ...optional };
    const format = (body.output_format as string | undefined) ?? 'png';
    if (format === 'png') delete body.output_compression;
    if (format === 'jpeg' && body.background === 'transparent') delete body.background;
    return {
      api: 'images',
      model: IMAGE_MODELS[0]!,
      tree: fromJson(body),
      headers: [['content-type', 'application/json']],
      inner: [],
      prompt: ['prompt'],
    };
  });

const videoBase: fc.Arbitrary<Base> = fc
  .record({
    protocol: fc.constantFrom<VideoProtocol>('generic', 'native-a', 'native-b'),
    a: fc.constantFrom(...VIDEOA_MODELS),
    useB: fc.boolean(),
    prompt,
    resolution: fc.constantFrom('480P', '720P', '1080P'),
    duration: fc.integer({ min: 1, max: 15 }),
    idempotent: fc.boolean(),
  })
  .map(({ protocol, a, useB, prompt, resolution, duration, idempotent }) => {
    const b = protocol === 'native-b' || (protocol === 'generic' && useB);
    const model = b ? VIDEOB_MODELS[0]! : a;
    const headers: [string, string][] = [['content-type', 'application/json']];
    if (protocol === 'native-a') headers.push(['x-nativea-async', 'enable']);
    if (idempotent) headers.push(['idempotency-key', `key-${RID}`]);
    const flags = `--resolution ${resolution.toLowerCase()} --duration ${duration}`;
    return b
      ? {
          api: protocol,
          model,
          tree: fromJson({ model, content: [{ type: 'text', text: `${prompt} ${flags}` }] }),
          headers,
          inner: [['content', 0]],
          prompt: ['content', 0, 'text'],
        }
      : {
          api: protocol,
          model,
          tree: fromJson({ model, input: { prompt }, parameters: { resolution, duration } }),
          headers,
          inner: [['input'], ['parameters']],
          prompt: ['input', 'prompt'],
        };
  });

// ---------------------------------------------------------------- mutations

const TABLE_FIELDS: Readonly<Record<BodyApi, readonly string[]>> = {
  chat: ['messages', ...Object.keys(CHAT_OPTIONAL)],
  messages: [
    'messages',
    'max_tokens',
    'system',
    'stream',
    'temperature',
    'top_p',
    'top_k',
    'stop_sequences',
    'tools',
    'tool_choice',
    'metadata',
    'thinking',
    'output_config',
  ],
  images: [
    'prompt',
    'n',
    'size',
    'quality',
    'response_format',
    'output_format',
    'output_compression',
    'background',
    'moderation',
    'user',
  ],
  generic: ['input', 'parameters', 'content', 'duration', 'resolution', 'ratio'],
  'native-a': ['input', 'parameters'],
  'native-b': ['content', 'duration', 'resolution', 'ratio'],
};

const poolValue: fc.Arbitrary<Tree> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...POOL).map(fromJson) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => raw(t)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map(fromJson) },
  { weight: 1, arbitrary: fc.constant<Tree>(null) },
);

const keyIndex = fc.nat({ max: 1000 });
/** 10 to 300,000 levels; shrinks towards the shallowest depth that still fails. */
const depth = fc.oneof(
  { withCrossShrink: true },
  { weight: 2, arbitrary: fc.integer({ min: 10, max: 300_000 }) },
  { weight: 3, arbitrary: fc.constantFrom(10, 32, 100, 1000, 10_000, 100_000, 300_000) },
);

/** Own keys of the object at `path`. */
function keysAt(tree: Tree, path: Path): string[] {
  const at = get(tree, path);
  return at instanceof Obj
    ? at.entries.map(([k]) => k).filter((k): k is string => typeof k === 'string')
    : [];
}

const pick = <T>(items: readonly T[], i: number): T => items[i % items.length]!;

const summary = (t: Tree): string => {
  const bytes = encode(t);
  return bytes.length > 60
    ? `${bytes.subarray(0, 60).toString('latin1')}…(${bytes.length} bytes)`
    : bytes.toString('latin1');
};

type Mutation = (b: Base) => Omit<Draft, 'base'>;

const same = (
  b: Base,
  change: Partial<Omit<Draft, 'base'>> & { kind: string; why: string },
): Omit<Draft, 'base'> => ({
  body: b.tree,
  headers: b.headers,
  auth: 'bearer',
  chunked: false,
  ...change,
});

const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  // Unchanged: the valid baseline.
  { weight: 2, arbitrary: fc.constant<Mutation>((b) => same(b, { kind: 'baseline', why: 'unchanged' })) },
  // One top-level field set to a value of any type.
  {
    weight: 10,
    arbitrary: fc
      .record({ which: keyIndex, group: fc.nat({ max: 9 }), value: poolValue })
      .map(({ which, group, value }): Mutation => (b) => {
        const names = group < 6 ? TABLE_FIELDS[b.api] : group < 8 ? OTHER_FIELDS : PROTO_KEYS;
        const name = pick(names, which);
        return same(b, {
          body: setKey(b.tree, [], name, value),
          kind: `set:${name}`,
          why: `${name} = ${summary(value)}`,
        });
      }),
  },
  // A field at or beyond the edge of its range, or over a cap.
  {
    weight: 6,
    arbitrary: fc.record({ which: keyIndex, value: keyIndex }).map(({ which, value }): Mutation => (b) => {
      const family =
        b.api === 'chat' || b.api === 'messages' || b.api === 'images'
          ? b.api
          : VIDEOA_MODELS.includes(b.model)
            ? 'videoa'
            : 'videob';
      const [path, name, values] = pick(EDGES[family], which);
      const chosen = fromJson(pick(values, value));
      const at = path[0] === 'messages' ? b.inner[0]! : path;
      return same(b, {
        body: setKey(b.tree, at, name, chosen),
        kind: `edge:${name}`,
        why: `${[...at, name].join('.')} = ${summary(chosen)}`,
      });
    }),
  },
  // A field that would redirect the call or replace its credential, with a plausible value.
  {
    weight: 2,
    arbitrary: fc
      .record({
        name: fc.constantFrom(...CREDENTIAL_FIELDS),
        value: fc.constantFrom('http://127.0.0.1:9/v1', 'sk-someone-else', ''),
        inner: fc.boolean(),
      })
      .map(({ name, value, inner }): Mutation => (b) => {
        const path = inner && b.inner.length ? b.inner[0]! : [];
        return same(b, {
          body: setKey(b.tree, path, name, value),
          kind: path.length ? `inner:${name}` : `set:${name}`,
          why: `${[...path, name].join('.')} = ${JSON.stringify(value)}`,
        });
      }),
  },
  // One top-level field removed.
  {
    weight: 3,
    arbitrary: keyIndex.map((which): Mutation => (b) => {
      const name = pick(keysAt(b.tree, []), which);
      return same(b, { body: deleteKey(b.tree, [], name), kind: `delete:${name}`, why: `without ${name}` });
    }),
  },
  // `model` of another type, another API, a near miss, or a megabyte long.
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        { weight: 8, arbitrary: fc.constantFrom(...MODEL_VALUES).map(fromJson) },
        { weight: 1, arbitrary: fc.constantFrom(1_000_000, BODY_LIMIT).map((n) => 'm'.repeat(n) as Tree) },
      )
      .map(
        (value): Mutation =>
          (b) =>
            same(b, {
              body: setKey(b.tree, [], 'model', value),
              kind: 'model',
              why: `model = ${summary(value)}`,
            }),
      ),
  },
  // A field inside the body (a message, `input`, `parameters`, a content item) set to any value.
  {
    weight: 6,
    arbitrary: fc
      .record({ where: keyIndex, which: keyIndex, value: poolValue, proto: fc.boolean() })
      .map(({ where, which, value, proto }): Mutation => (b) => {
        if (b.inner.length === 0) return same(b, { kind: 'baseline', why: 'unchanged (no inner object)' });
        const path = pick(b.inner, where);
        const names = proto ? PROTO_KEYS : [...keysAt(b.tree, path), 'name', 'extra'];
        const name = pick(names, which);
        return same(b, {
          body: setKey(b.tree, path, name, value),
          kind: proto ? 'inner-proto-key' : `inner:${name}`,
          why: `${path.join('.')}.${name} = ${summary(value)}`,
        });
      }),
  },
  // Invalid UTF-8 in the prompt, in `model`, or in a key.
  {
    weight: 4,
    arbitrary: fc
      .record({
        bad: fc.constantFrom(...BAD_UTF8),
        where: fc.constantFrom('prompt', 'model', 'key', 'unknown'),
        before: fc.constantFrom('', 'a'),
        after: fc.constantFrom('', 'b'),
      })
      .map(({ bad, where, before, after }): Mutation => (b) => {
        const s = badUtf8String(before, Buffer.from(bad), after);
        const body =
          where === 'prompt'
            ? setPath(b.tree, b.prompt, s)
            : where === 'model'
              ? setKey(b.tree, [], 'model', badUtf8String(b.model, Buffer.from(bad), after))
              : where === 'key'
                ? addEntry(b.tree, [], s, 1)
                : setKey(b.tree, [], 'user', s);
        return same(b, {
          body,
          forced: { expect: 'reject', kind: 'invalid-utf8' },
          kind: 'invalid-utf8',
          why: `bytes ${Buffer.from(bad).toString('hex')} in ${where}`,
        });
      }),
  },
  // A key twice, at the top or inside, with the same or another value, before or after the first.
  {
    weight: 4,
    arbitrary: fc
      .record({
        inner: fc.boolean(),
        where: keyIndex,
        which: keyIndex,
        other: fc.boolean(),
        first: fc.boolean(),
        value: poolValue,
      })
      .map(({ inner, where, which, other, first, value }): Mutation => (b) => {
        const path = inner && b.inner.length ? pick(b.inner, where) : [];
        const name = pick(keysAt(b.tree, path), which);
        const original = get(b.tree, [...path, name]) ?? null;
        const different =
          name === 'model'
            ? pick(
                ALL_MODELS.filter((m) => m !== b.model),
                which,
              )
            : value;
        const dup = other ? different : original;
        return same(b, {
          body: addEntry(b.tree, path, name, dup, first ? 0 : undefined),
          forced: { expect: 'reject', kind: 'duplicate-key' },
          kind: 'duplicate-key',
          why: `${[...path, name].join('.')} twice, ${first ? 'first' : 'then'} ${summary(dup)}`,
        });
      }),
  },
  // Nesting 10 to 300,000 levels deep, in an unknown field, in `messages`/`tools`/`metadata`, or inside.
  {
    weight: 3,
    arbitrary: fc
      .record({
        depth,
        shape: fc.constantFrom<'array' | 'object'>('array', 'object'),
        where: fc.nat({ max: 3 }),
      })
      .map(({ depth, shape, where }): Mutation => (b) => {
        const deep = nested(depth, shape);
        const places: [Path, string][] = [
          [[], 'x'],
          [[], b.api === 'chat' || b.api === 'messages' ? 'tools' : 'extra'],
          ...b.inner.map((p): [Path, string] => [p, 'extra']),
          [[], b.api === 'messages' ? 'metadata' : 'y'],
        ];
        const [path, name] = pick(places, where);
        const body = setKey(b.tree, path, name, deep);
        // The contract names no nesting limit: deep enough is refused (DEEP), shallow is served, and in
        // between a gateway may draw its own line.
        const forced =
          depth >= DEEP
            ? { expect: 'reject' as const, kind: 'deep-nesting' }
            : depth > 32
              ? { expect: 'any' as const, kind: 'deep-nesting' }
              : undefined;
        return same(b, {
          body,
          ...(forced ? { forced } : {}),
          kind: 'deep-nesting',
          why: `${[...path, name].join('.')} nested ${depth} deep (${shape})`,
        });
      }),
  },
  // A number written as text (1e400, -0, …) in a field of the table or an unknown one.
  {
    weight: 3,
    arbitrary: fc
      .record({ text: fc.constantFrom(...RAW_NUMBERS), which: keyIndex })
      .map(({ text, which }): Mutation => (b) => {
        const numeric: Readonly<Record<BodyApi, readonly string[]>> = {
          chat: [
            'temperature',
            'top_p',
            'max_tokens',
            'n',
            'presence_penalty',
            'frequency_penalty',
            'seed',
            'top_logprobs',
            'x',
          ],
          messages: ['max_tokens', 'temperature', 'top_p', 'top_k', 'x'],
          images: ['n', 'output_compression', 'x'],
          generic: ['x'],
          'native-a': ['x'],
          'native-b': ['duration', 'x'],
        };
        const videoa = VIDEOA_MODELS.includes(b.model);
        if (videoa && which % 2 === 0)
          return same(b, {
            body: setKey(b.tree, ['parameters'], 'duration', raw(text)),
            kind: 'raw-number',
            why: `parameters.duration = ${text}`,
          });
        const name = pick(numeric[b.api], which);
        return same(b, {
          body: setKey(b.tree, [], name, raw(text)),
          kind: 'raw-number',
          why: `${name} = ${text}`,
        });
      }),
  },
  // Odd content parts: a chat or messages content array, or videob's content items.
  {
    weight: 3,
    arbitrary: fc
      .array(fc.constantFrom(...PARTS), { minLength: 0, maxLength: 4 })
      .map((parts): Mutation => (b) => {
        const where: Path | undefined =
          b.api === 'chat' || b.api === 'messages'
            ? b.prompt
            : VIDEOB_MODELS.includes(b.model)
              ? ['content']
              : undefined;
        if (!where) return same(b, { kind: 'baseline', why: 'unchanged (no content array)' });
        const items =
          where[0] === 'content'
            ? [get(b.tree, ['content', 0]) ?? null, ...parts.map(fromJson)]
            : parts.map(fromJson);
        return same(b, {
          body: setPath(b.tree, where, items),
          kind: 'content-parts',
          why: `${where.join('.')} = ${summary(items)}`,
        });
      }),
  },
  // Headers: credentials, content type, the messages version, the native-a async switch, chunked bodies.
  {
    weight: 4,
    arbitrary: fc
      .record({
        auth: fc.constantFrom<Auth>('x-api-key', 'none', 'wrong', 'basic', 'bearer-lower', 'both', 'dup'),
        which: fc.nat({ max: 8 }),
        variant: keyIndex,
      })
      .map(({ auth, which, variant }): Mutation => (b) => {
        switch (which) {
          case 0:
            return same(b, {
              auth,
              ...(REFUSED_AUTH.includes(auth) ? { forced: { expect: 'reject' as const, kind: 'auth' } } : {}),
              kind: 'auth',
              why: `auth ${auth}`,
            });
          case 1: {
            const type = pick(CONTENT_TYPES, variant);
            const headers = b.headers.filter(([n]) => n !== 'content-type');
            return same(b, {
              headers: type === undefined ? headers : [...headers, ['content-type', type]],
              kind: 'content-type',
              why: `content-type ${String(type)}`,
            });
          }
          case 2: {
            const versions = [undefined, '2023-01-01', '2023-06-01 ', '2023-06-01,2023-06-01', 'dup'];
            const value = pick(versions, variant);
            const headers: [string, string][] = b.headers.filter(([n]) => n !== 'modeld-version') as [
              string,
              string,
            ][];
            if (value === 'dup')
              headers.push(['modeld-version', MESSAGES_VERSION], ['modeld-version', MESSAGES_VERSION]);
            else if (value !== undefined) headers.push(['modeld-version', value]);
            return same(b, { headers, kind: 'version-header', why: `modeld-version ${String(value)}` });
          }
          case 3: {
            const values = [undefined, 'disable', 'ENABLE', 'dup', ' enable'];
            const value = pick(values, variant);
            const headers: [string, string][] = b.headers.filter(([n]) => n !== 'x-nativea-async') as [
              string,
              string,
            ][];
            if (value === 'dup') headers.push(['x-nativea-async', 'enable'], ['x-nativea-async', 'enable']);
            else if (value !== undefined) headers.push(['x-nativea-async', value]);
            return same(b, { headers, kind: 'async-header', why: `x-nativea-async ${String(value)}` });
          }
          case 4: {
            const values = ['', 'k'.repeat(256), `ü-${RID}`];
            const value = pick(values, variant);
            const headers: [string, string][] = b.headers.filter(([n]) => n !== 'idempotency-key') as [
              string,
              string,
            ][];
            headers.push(['idempotency-key', value]);
            const video = !['chat', 'messages', 'images'].includes(b.api);
            const invalid = video && (value === '' || value.length > 255);
            return same(b, {
              headers,
              ...(invalid ? { forced: { expect: 'reject' as const, kind: 'idempotency-key' } } : {}),
              kind: 'idempotency-key',
              why: `idempotency-key of ${value.length} characters`,
            });
          }
          case 5: {
            const ids = pick(REQUEST_IDS, variant);
            return same(b, {
              requestIds: ids,
              kind: 'request-id',
              why: `x-request-id ${JSON.stringify(ids).slice(0, 60)}`,
            });
          }
          case 6: {
            // Over the header limits (16 KiB, 100 headers): 431 before anything else.
            const many = variant % 2 === 0;
            const extra: [string, string][] = many
              ? Array.from({ length: 101 }, (_, i): [string, string] => [`x-h-${i}`, 'v'])
              : [['x-filler', 'a'.repeat(17_000)]];
            return same(b, {
              headers: [...b.headers, ...extra],
              forced: { expect: 'reject', kind: 'header-limits' },
              kind: 'header-limits',
              why: many ? '101 extra headers' : 'a 17,000-byte header',
            });
          }
          case 7:
            return same(b, {
              headers: [...b.headers, ['expect', '100-continue']],
              kind: 'expect-continue',
              why: 'Expect: 100-continue',
            });
          default:
            return same(b, { chunked: true, kind: 'chunked', why: 'chunked body' });
        }
      }),
  },
  // The body's bytes themselves: truncated, with a BOM, with trailing bytes, empty, or padded with whitespace.
  {
    weight: 3,
    arbitrary: fc
      .record({ how: fc.constantFrom('truncate', 'bom', 'trailing', 'empty', 'whitespace'), at: fc.nat() })
      .map(({ how, at }): Mutation => (b) => {
        const bytes = encode(b.tree);
        switch (how) {
          case 'truncate':
            return same(b, {
              body: bytes.subarray(0, at % bytes.length),
              forced: { expect: 'reject', kind: 'not-json' },
              kind: 'not-json',
              why: `body cut at ${at % bytes.length} of ${bytes.length} bytes`,
            });
          case 'bom':
            return same(b, {
              body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]),
              kind: 'bom',
              why: 'UTF-8 BOM first',
            });
          case 'trailing':
            return same(b, {
              body: Buffer.concat([bytes, Buffer.from(' {}')]),
              forced: { expect: 'reject', kind: 'not-json' },
              kind: 'not-json',
              why: 'bytes after the JSON value',
            });
          case 'empty':
            return same(b, {
              body: Buffer.alloc(0),
              forced: { expect: 'reject', kind: 'not-json' },
              kind: 'not-json',
              why: 'empty body',
            });
          default:
            return same(b, {
              body: Buffer.concat([Buffer.from(' \n\t'), bytes, Buffer.from('\r\n ')]),
              kind: 'whitespace',
              why: 'whitespace around',
            });
        }
      }),
  },
);

/** `path` ends in a key or an index. */
function setPath(tree: Tree, path: Path, value: Tree): Tree {
  const parent = path.slice(0, -1);
  const last = path[path.length - 1]!;
  return typeof last === 'number' ? setItem(tree, parent, last, value) : setKey(tree, parent, last, value);
}

// ---------------------------------------------------------------- expectations

interface HeaderView {
  get(name: string): string | undefined;
}

/** Header values as node:http gives them to the gateway: repeated names joined with `, `. */
function headerView(headers: readonly (readonly [string, string])[]): HeaderView {
  return {
    get: (name) => {
      // HTTP drops the whitespace around a field value (RFC 9110 §5.5); node:http does too.
      const values = headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v.trim());
      return values.length ? values.join(', ') : undefined;
    },
  };
}

function judge(api: BodyApi, body: unknown, headers: HeaderView): Judgement {
  switch (api) {
    case 'chat':
      return judgeChat(body);
    case 'messages':
      return judgeMessages(body, headers);
    case 'images':
      return judgeImages(body);
    default:
      return judgeVideo(body, api, headers);
  }
}

const API_OF: Readonly<Record<BodyApi, Api>> = {
  chat: 'chat',
  messages: 'messages',
  images: 'images',
  generic: 'video',
  'native-a': 'video',
  'native-b': 'video',
};

/** Works out what the contract expects of the bytes the draft will send. */
function finish(d: Draft): FuzzCase {
  const body = d.body === null ? null : Buffer.isBuffer(d.body) ? d.body : encode(d.body);
  const common = {
    api: API_OF[d.base.api],
    method: 'POST',
    path: PATHS[d.base.api],
    headers: d.headers,
    body,
    auth: d.auth,
    chunked: d.chunked,
    ...(d.requestIds ? { requestIds: d.requestIds } : {}),
    why: `${d.base.api} ${d.base.model}: ${d.why}`,
  };
  const decide = (expect: Expect, kind: string): FuzzCase => ({ ...common, expect, kind });
  if (REFUSED_AUTH.includes(d.auth)) return decide('reject', 'auth');
  if (body && body.length > BODY_LIMIT) return decide('reject', 'too-large');
  if (d.forced) return decide(d.forced.expect, d.forced.kind);
  let parsed: unknown;
  try {
    parsed = JSON.parse((body ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    // A BOM is not JSON by RFC 8259, though parsers MAY skip it: either answer is fine.
    return d.kind === 'bom' ? decide('any', 'bom') : decide('reject', 'not-json');
  }
  const j = judge(d.base.api, parsed, headerView(d.headers));
  const type = headerView(d.headers).get('content-type');
  const plainType = type === undefined || /^application\/json(;\s*charset=utf-8)?$/i.test(type);
  if (j.verdict === 'invalid') return decide('reject', j.kind);
  if (j.verdict === 'gray') return decide('any', j.kind);
  // Credentials docs/keys-and-console.md leaves open (a lower-case scheme, two of them) may be taken or
  // refused.
  if (!plainType || !['bearer', 'x-api-key'].includes(d.auth)) return decide('any', d.kind);
  return decide('accept', d.kind);
}

const bases = { chat: chatBase, messages: messagesBase, images: imagesBase, video: videoBase } as const;

/** A valid body of `api`, changed by one mutation. */
export function nearValid(api: 'chat' | 'messages' | 'images' | 'video'): fc.Arbitrary<FuzzCase> {
  return fc.tuple(bases[api], mutations).map(([b, m]) => printable(finish({ base: b, ...m(b) })));
}

// ---------------------------------------------------------------- random bodies

const anyBodyApi = fc.constantFrom<BodyApi>('chat', 'messages', 'images', 'generic', 'native-a', 'native-b');

/** Wholly random JSON (sometimes an object with a real model and table fields), or random bytes. */
export const randomBody: fc.Arbitrary<FuzzCase> = fc
  .record({
    api: anyBodyApi,
    body: fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .jsonValue({ maxDepth: 4 })
          .map((v) => ({ bytes: encode(fromJson(v)), kind: 'random-json' })),
      },
      {
        weight: 4,
        arbitrary: fc
          .record({
            model: fc.constantFrom(...ALL_MODELS),
            fields: fc.dictionary(
              fc.oneof(
                fc.constantFrom(
                  ...TABLE_FIELDS.chat,
                  ...TABLE_FIELDS.messages,
                  ...TABLE_FIELDS.images,
                  'input',
                  'content',
                ),
                fc.string(),
              ),
              fc.jsonValue({ maxDepth: 3 }),
              { maxKeys: 5 },
            ),
          })
          .map(({ model, fields }) => ({
            bytes: encode(fromJson({ model, ...fields })),
            kind: 'random-object',
          })),
      },
      {
        weight: 1,
        arbitrary: fc
          .uint8Array({ maxLength: 64 })
          .map((a) => ({ bytes: Buffer.from(a), kind: 'random-bytes' })),
      },
    ),
  })
  .map(({ api, body }) => {
    const headers: [string, string][] = [['content-type', 'application/json']];
    if (api === 'messages') headers.push(['modeld-version', MESSAGES_VERSION]);
    if (api === 'native-a') headers.push(['x-nativea-async', 'enable']);
    const draft: Draft = {
      base: { api, model: 'random', tree: null, headers, inner: [], prompt: [] },
      body: body.bytes,
      headers,
      auth: 'bearer',
      chunked: false,
      kind: body.kind,
      why: `${body.kind} ${body.bytes.subarray(0, 40).toString('latin1')}`,
    };
    return printable(finish(draft));
  });
