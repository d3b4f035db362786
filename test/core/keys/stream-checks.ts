/**
 * For tests that a key's open stream survives the checks that end revoked keys' streams (the revocation
 * sweep, a key event): a count of the checks made, and proof that a stream went on after them. The
 * gateway, its simulator and the test share this process's event loop, which the proof relies on.
 */
import type { KeyService } from '../../../core/keys/key-service';
import type { OpenStream } from '../../helpers/key-streams';

/**
 * Counts re-reads of key `id` through `keys` from now on, as each check of the key makes one (and
 * decides at once on what it read). Counted as the read answers: the check's decision follows before
 * anything else runs.
 */
export function checksOf(keys: KeyService, id: string): () => number {
  let checks = 0;
  const findById = keys.findById.bind(keys);
  keys.findById = async (asked) => {
    const record = await findById(asked);
    if (asked === id) checks++;
    return record;
  };
  return () => checks;
}

/** One turn of the event loop: what other sockets had ready at its start has been read by its end. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Whether `stream` still delivers after the checks already decided. Two turns of the event loop read
 * what the gateway wrote before now (an error frame, if a check ended the stream); content that comes
 * after that was written after every such check.
 */
export async function deliversAfterNow(stream: OpenStream): Promise<boolean> {
  await turn();
  await turn();
  if (!stream.isOpen()) return false;
  const content = await new Promise<boolean>((resolve) => {
    const onData = (text: string): void => {
      // An error frame is followed by the end; anything else but content (a ping) is no proof.
      if (text.includes('"error"') || !text.includes('"content"')) return;
      stream.res.off('data', onData).off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      stream.res.off('data', onData);
      resolve(false);
    };
    stream.res.on('data', onData).once('close', onClose);
  });
  return content && stream.isOpen();
}
