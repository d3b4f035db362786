/**
 * Names claimed once across every instance sharing a store, each until an expiry: spend alerts claim
 * (subject, period, threshold) so that only one instance sends each alert (core/alerts/).
 */

export interface ClaimStore {
  /**
   * Claims `name` for `owner` until `expiresAt` (epoch ms). True when `owner` holds it: claimed now, or
   * already by an earlier try of the same owner whose answer was lost; false when another owner does.
   * An expired claim is free again. Throws when the store cannot tell (the caller tries again).
   */
  claim(name: string, owner: string, expiresAt: number): Promise<boolean>;
  close(): Promise<void>;
}
