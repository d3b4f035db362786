/**
 * The kit's run over one of the miswired families (test/fixtures/plugins/miswired), named by the first
 * argument, as a family's own kit test runs it: test/kit/upstream-checks.test.ts runs this as a child
 * process and reads the TAP it prints, as a platform team reads its family's run.
 */
import 'reflect-metadata';
import t from 'tap';
import '../fixtures/plugins/miswired';
import { runChatFamilyKit } from './chat-suite';
import { recorded } from './fake-upstream';

// Without a family named (tap, given the folder, runs every file in it), there is nothing to run.
const plugin = process.argv[2];
if (plugin !== undefined) {
  void runChatFamilyKit(t, {
    plugin,
    api: 'chat',
    errorShape: () => ({ error: { message: String } }),
    cases: [{ answer: recorded('modela/json.json') }],
  });
}
