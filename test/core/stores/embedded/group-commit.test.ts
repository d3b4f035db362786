/**
 * Group commit, as the embedded file and batch line stores use it: lines added in the same moment share
 * one write, memory is updated the moment a write succeeds, and a failed write fails only its own lines.
 */
import t from 'tap';
import { GroupCommit } from '../../../../core/stores/embedded/group-commit';

/** A journal in memory whose writes can be made to fail, counting them. */
function journal() {
  const state = { writes: [] as string[], failNext: false };
  const write = (text: string): Promise<void> => {
    if (state.failNext) {
      state.failNext = false;
      return Promise.reject(new Error('EIO'));
    }
    state.writes.push(text);
    return Promise.resolve();
  };
  return { state, write };
}

t.test('lines added in the same moment share a write', async (t) => {
  const { state, write } = journal();
  const commit = new GroupCommit(write);
  await Promise.all(Array.from({ length: 50 }, (_, i) => commit.add(`line ${i}`)));
  t.ok(
    state.writes.length <= 2,
    `50 lines in ${state.writes.length} writes (the first alone, the rest behind it)`,
  );
  t.equal(state.writes.join('').split('\n').filter(Boolean).length, 50, 'every line written once');
  t.ok(
    state.writes.every((text) => text.endsWith('\n')),
    'each write ends a line',
  );
});

t.test('memory is updated once the write succeeded, before anything else runs', async (t) => {
  const { write } = journal();
  const applied: string[] = [];
  const seenBetween: string[][] = [];
  const commit = new GroupCommit(write, () => {
    seenBetween.push([...applied]);
    return Promise.resolve();
  });
  const a = commit.add('a', () => applied.push('a'));
  t.strictSame(applied, [], 'nothing before the write');
  await a;
  t.strictSame(seenBetween, [['a']], 'the step between writes already sees the change');
});

t.test('a failed write fails its own lines only, and readiness follows', async (t) => {
  const { state, write } = journal();
  const commit = new GroupCommit(write);
  await commit.add('first');
  state.failNext = true;
  const applied: string[] = [];
  await t.rejects(
    commit.add('lost', () => applied.push('lost')),
    /EIO/,
  );
  t.strictSame(applied, [], 'a failed line is not applied');
  t.match(commit.failure, /EIO/, 'the failure is kept for readiness');
  await commit.add('next');
  t.equal(commit.failure, undefined, 'until a write succeeds');
  t.strictSame(state.writes, ['first\n', 'next\n']);
  await commit.settled();
});
