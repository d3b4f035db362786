/** A stored file as OpenAI's File object. Times are Unix seconds there. */
import type { StoredFile } from '../../../core/kit/service';

const seconds = (ms: number): number => Math.floor(ms / 1000);

export const fileObject = (file: StoredFile) => ({
  id: file.id,
  object: 'file',
  bytes: file.bytes,
  created_at: seconds(file.created_at),
  expires_at: file.expires_at === null ? null : seconds(file.expires_at),
  filename: file.filename,
  purpose: file.purpose,
  status: 'processed',
  status_details: null,
});
