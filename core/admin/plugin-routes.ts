/**
 * Admin routes a plugin adds (a cache's `DELETE /admin/cache`), beside the admin API's own. The access
 * table (route-access.ts) cannot list a plugin's routes, so the rule is fixed: a GET is read by `admin`
 * and `viewer`; any other method is the admin's alone, and is audited under the action the route names.
 */
import { token } from '../base/token';
import type { AdminCall, AdminRoute } from './admin-reply';
import type { AuditNote } from './audit-note';
import { accessOf, type RouteAccess } from './route-access';

/** What a plugin's admin route is given of its call. */
export interface PluginAdminCall {
  readonly search: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
  /** Where a changing route names what it acted on for the audit record. */
  readonly audit: AuditNote;
}

export interface PluginAdminRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Under `/admin/`, with `:name` parameters as the admin API's own routes. */
  readonly path: string;
  /** Required on any method but GET: the audit record's action (`cache.clear`) and target kind (`cache`). */
  readonly audit?: { readonly action: string; readonly target: string };
  /** The answer's body (200); throw a GatewayError (`Errors`) to refuse. */
  readonly handle: (call: PluginAdminCall) => Promise<unknown>;
}

/** A route as the admin server serves it, with its access entry. */
export type AddedRoute = (route: AdminRoute, access: RouteAccess) => void;

export class PluginAdminRoutes {
  /** The latest handler of each `METHOD path`: a reload's new stage replaces its predecessor's. */
  private readonly handlers = new Map<string, PluginAdminRoute['handle']>();
  private readonly added: [AdminRoute, RouteAccess][] = [];
  private listener: AddedRoute | undefined;

  add(route: PluginAdminRoute): void {
    const { method, path } = route;
    if (!path.startsWith('/admin/')) throw new Error(`a plugin's admin route must be under /admin/: ${path}`);
    const name = `${method} ${path}`;
    const access: RouteAccess =
      method === 'GET'
        ? { roles: ['admin', 'viewer'] }
        : { roles: ['admin'], ...(route.audit ? { audit: route.audit } : {}) };
    accessOf(method, path, { [name]: access }); // throws for a changing route that names no audit action
    const known = this.handlers.has(name);
    this.handlers.set(name, route.handle);
    if (known) return;
    const served: AdminRoute = {
      method,
      path,
      handle: async (call: AdminCall) => ({ status: 200, body: await this.handlers.get(name)!(call) }),
    };
    this.added.push([served, access]);
    this.listener?.(served, access);
  }

  /** The admin server serves every route added so far, and each added later. */
  serve(listener: AddedRoute): void {
    this.listener = listener;
    for (const [route, access] of this.added) listener(route, access);
  }
}

/** The admin routes plugins add. */
export const PluginAdminRoutesToken = token<PluginAdminRoutes>('PluginAdminRoutes');
