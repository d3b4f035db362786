/**
 * Service plugins: endpoints of their own on the gateway's port (core/contracts/service.ts), and what
 * such a plugin keeps in tokens its clients carry. The rest of what a plugin uses is in ./plugin and ./stage.
 */
export type { ServiceEndpoint, ServiceExchange, ServicePlugin } from '../contracts/service';
export { SealerToken, type Sealer } from '../keys/sealer';
export { LoopbackToken, type Loopback } from '../http/loopback';
export { FileStoreToken, type FilePurpose, type FileStore, type StoredFile } from '../stores/file-store';
export { BatchLineStoreToken, type BatchLineResult, type BatchLineStore } from '../stores/batch-line-store';
export { BATCH_LINE_HEADER, BATCH_LINE_SEAL, type BatchLineTag } from '../contracts/batch-line';
