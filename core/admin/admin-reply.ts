/** What an admin route answers: a status and a JSON body. */
export interface AdminReply {
  readonly status: number;
  readonly body: unknown;
}
