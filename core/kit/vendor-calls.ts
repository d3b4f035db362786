/**
 * Calls to a vendor outside the proxy path: JSON calls through the gateway's caller (its timeouts and
 * retries of transient failures), and what a family implements to run batches at its vendor.
 */
/** A vendor's batch API: `VendorBatch.Upstream` with its `Line`s, `State`s and `LineResult`s. */
export type * as VendorBatch from '../contracts/batch-upstream';
export {
  answerJson,
  callForJson,
  isTransient,
  jsonExchange,
  urlUnder,
  UpstreamCallerToken,
  vendorJson,
  type VendorJson,
  type UpstreamAnswer,
  type UpstreamCall,
  type UpstreamCaller,
} from '../upstream/upstream-call';
