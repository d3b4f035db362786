/**
 * toolsAllowedBy: the check the MCP endpoint asks of each tool, from the key's and the team's
 * `allowed_tools`. Absent or empty allows every tool; where both have a list, a tool must match both;
 * `*` matches any run of characters, the `__` between server and tool included, and nothing else is special.
 */
import t from 'tap';
import { toolsAllowedBy } from '../../../core/keys/tool-access';

const TOOLS = ['demo__add', 'demo__sub', 'search__web', 'search__news', 'files__read.v2', 'files__readXv2'];
const allowed = (check: (name: string) => boolean): string[] => TOOLS.filter(check);

void t.test('no list, or an empty one, allows every tool', (t) => {
  t.strictSame(allowed(toolsAllowedBy(undefined, undefined)), TOOLS, 'no key and no team');
  t.strictSame(allowed(toolsAllowedBy({}, {})), TOOLS, 'neither has the field');
  t.strictSame(allowed(toolsAllowedBy({ allowed_tools: [] }, { allowed_tools: [] })), TOOLS, 'both empty');
  t.strictSame(allowed(toolsAllowedBy({ allowed_tools: [] }, undefined)), TOOLS, 'an empty key list');
  t.end();
});

void t.test("the key's list alone, or the team's alone, decides", (t) => {
  const globs = { allowed_tools: ['demo__add', 'search__*'] };
  const expected = ['demo__add', 'search__web', 'search__news'];
  t.strictSame(allowed(toolsAllowedBy(globs, undefined)), expected, 'a key without a team');
  t.strictSame(allowed(toolsAllowedBy(globs, {})), expected, 'a key whose team has no list');
  t.strictSame(allowed(toolsAllowedBy({}, globs)), expected, 'a team list, the key without one');
  t.strictSame(allowed(toolsAllowedBy({ allowed_tools: [] }, globs)), expected, 'the key with an empty one');
  t.end();
});

void t.test('with both lists, a tool must match both', (t) => {
  const key = { allowed_tools: ['demo__*', 'search__web'] };
  const team = { allowed_tools: ['*__add', 'search__*'] };
  t.strictSame(allowed(toolsAllowedBy(key, team)), ['demo__add', 'search__web']);
  t.strictSame(
    allowed(toolsAllowedBy({ allowed_tools: ['demo__*'] }, { allowed_tools: ['search__*'] })),
    [],
    'lists that share no tool allow none',
  );
  t.end();
});

void t.test('globs: * is any run, an exact name only itself, dots are literal', (t) => {
  const only = (...globs: string[]) => allowed(toolsAllowedBy({ allowed_tools: globs }, undefined));
  t.strictSame(only('*'), TOOLS, '* alone: every tool');
  t.strictSame(only('demo__add'), ['demo__add'], 'a name: that tool');
  t.strictSame(only('demo__ad'), [], 'not a prefix of it');
  t.strictSame(only('*__read*'), ['files__read.v2', 'files__readXv2'], 'a run on either side');
  t.strictSame(only('files__read.v2'), ['files__read.v2'], "'.' matches a dot, not any character");
  t.strictSame(only('d*b'), ['demo__sub'], '* spans the server/tool separator');
  t.ok(toolsAllowedBy({ allowed_tools: ['demo__*'] }, undefined)('demo__'), '* matches an empty run');
  t.end();
});
