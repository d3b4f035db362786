/**
 * The built-in plugins: importing this file registers each of them with tsyringe. This is the only list
 * of built-ins; a deployment's own plugin registers itself the same way, with no edit to core/.
 */
import 'reflect-metadata';

// Pipeline stages (core/middleware).
export { AuthMiddleware } from '../core/middleware/auth';
export { RateLimitMiddleware } from '../core/middleware/rate-limit';
export { ModelRouterMiddleware } from '../core/middleware/model-router';
export { BudgetMiddleware } from '../core/middleware/budget';
export { UsageMeteringMiddleware } from '../core/middleware/usage-metering';
export { SseRelayMiddleware } from '../core/middleware/sse-relay';

// Upstream families.
export { ModelaUpstream } from './upstreams/modela';
export { ModelbUpstream } from './upstreams/modelb';
export { ModelcUpstream } from './upstreams/modelc';
export { ModeldUpstream } from './upstreams/modeld';
export { ModelbImageUpstream } from './upstreams/modelb-image';
export { VideoaUpstream } from './upstreams/videoa';
export { VideobUpstream } from './upstreams/videob';

// Video task protocols.
export { GenericVideoProtocol } from './video-protocols/generic';
export { NativeAVideoProtocol } from './video-protocols/native-a';
export { NativeBVideoProtocol } from './video-protocols/native-b';
