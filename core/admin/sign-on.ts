/**
 * What the admin server asks of single sign-on for the console. The implementation lives in
 * core/admin/sso/, which the admin server never imports: the composition root hands it over.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Actor } from './actor';

export interface SignOn {
  /** Answers the sign-on routes (`/auth/…`, `GET /admin/session`); false for any other request. */
  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<boolean>;
  /**
   * The person a request's session cookie signs in; undefined when it carries none, or presents a
   * bearer token (judged by the token alone). Throws 401 for a session altered, expired or signed out,
   * and 403 `csrf_failed` for a changing call that lacks the session's CSRF token or comes from another
   * origin. Shaped as an actor source: a list of them can end with it.
   */
  actorOf(req: IncomingMessage): Promise<Actor | undefined>;
}
