# The gateway's image (docs/operations.md: Production). Build stage: every dependency, and the compile.
# Runtime stage: production dependencies only (no TypeScript, no sharp: the simulator's images need it,
# the gateway does not), the compiled code and the console's bundle, a non-root user and an init process.
#   docker build -t model-gateway .
#   docker run -p 8080:8080 -v gateway-data:/app/data model-gateway

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-slim
# tini as PID 1: it forwards SIGTERM to node (the graceful drain) and reaps zombies.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/config dist/config
COPY --from=build /app/dist/lib dist/lib
COPY --from=build /app/dist/core dist/core
COPY --from=build /app/dist/plugins dist/plugins
COPY --from=build /app/dist/cli dist/cli
COPY --from=build /app/dist/simulator dist/simulator
COPY --from=build /app/dist/console-bundle dist/console-bundle
COPY scripts scripts
COPY gateway.yaml ./
COPY deploy deploy
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# The data directory (keys, usage and tasks with the embedded stores; the admin token either way).
ENV GATEWAY_DATA_DIR=/app/data
VOLUME /app/data
# The main port; the admin API stays on the container's loopback (docker exec … npm run keys -- list).
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "require('node:http').get('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz',(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/core/main.js"]
