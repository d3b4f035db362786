/**
 * A call that is a line of a batch the gateway runs carries, in a header, the batch and line it belongs
 * to, sealed (Sealer) so that only the gateway itself can set it: a client cannot file its own calls
 * under someone's batch. The metering stage opens it and writes them into the call's usage record.
 */
export const BATCH_LINE_HEADER = 'x-gateway-batch-line';

/** The Sealer purpose of the header's value. */
export const BATCH_LINE_SEAL = 'batch-line';

export interface BatchLineTag {
  readonly batch_id: string;
  readonly custom_id: string;
}
