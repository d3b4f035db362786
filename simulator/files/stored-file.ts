import type { Issued } from '../batch-runs/family-store';

/** A file of OpenAI's Files API: an upload, or what a batch wrote. */
export interface StoredFile extends Issued {
  readonly filename: string;
  /** `batch` for an upload, `batch_output` for a batch's output and error files. */
  readonly purpose: string;
  readonly bytes: Buffer;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** How long the vendor keeps a batch's files unless told otherwise: 30 days. */
const FILE_LIFE_MS = 30 * 86_400_000;

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The File object, member for member as the API writes it. */
export const fileObject = (file: StoredFile): Record<string, unknown> => ({
  id: file.id,
  object: 'file',
  bytes: file.bytes.length,
  created_at: seconds(file.createdAt),
  filename: file.filename,
  purpose: file.purpose,
  status: 'processed',
  status_details: null,
  expires_at: seconds(file.createdAt + FILE_LIFE_MS),
});
