# syntax=docker/dockerfile:1
#
# Container image of the campus assistant agent for the campus platform (DEPLOY.md).
# Three stages: `build` compiles TypeScript with the dev dependencies; `prod-deps` installs the
# production dependencies only, with the toolchain better-sqlite3's native addon compiles with;
# `runtime` is a slim Node 22 image holding node_modules (production), dist/ and the SQL migrations,
# run as the unprivileged `node` user. The sandbox (src/sandbox: offline model, sandbox tool server,
# playground, terminal client) is removed from the image: production never loads it. No secret is read at build time: every variable the service
# needs is set on the platform as a runtime variable. tests/production-entry.test.ts runs these same
# steps (build, `npm ci --omit=dev`, `node dist/src/server.js`) outside Docker.

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: dev dependencies + tsc -------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/build.mjs ./scripts/
# tsc is plain JavaScript: no install script (native compile, esbuild binary) is needed to build, so
# this stage skips them and needs no toolchain. The runtime's native addon is built in prod-deps.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 && rm -rf dist/src/sandbox

# ---- prod-deps: production dependencies only, native addon compiled here -------------------------
FROM ${NODE_IMAGE} AS prod-deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/deploy/prune-prod-deps.sh ./
# npm ci runs the `prepare` build step: without src/ and TypeScript it has nothing to do and says so.
COPY scripts/build.mjs ./scripts/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && sh prune-prod-deps.sh

# ---- runtime: slim, no toolchain, no dev dependencies, no sources ---------------------------------
FROM ${NODE_IMAGE} AS runtime
# NODE_OPTIONS bounds the V8 heap so the process stays inside the platform's 256 MB limit: V8 collects
# harder near 128 MB of old space instead of growing, and 16 MB semi-spaces size the young generation.
# Chosen from CPU and peak RSS at 100/250/500 held streams against 8 MB semi-spaces and Node's defaults
# (bench/streams.bench.ts, which reads this line; BENCHMARKS.md "Heap flags from the measurement"):
# 8 MB semi-spaces cost the most CPU in scavenges, defaults the most memory. Change it only together
# with the platform's memory limit.
ENV NODE_ENV=production \
    AGENT_ENV=production \
    PORT=5055 \
    NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=16"
WORKDIR /app
# Owned by root, read-only to the service: the running process cannot rewrite its own code.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Migrations are applied by the service at start (src/db/migrate.ts reads ./drizzle), never at build.
COPY drizzle ./drizzle
COPY package.json ./
# The one writable place besides /tmp: mount a volume here for TOKEN_BUDGET_STORE=sqlite
# (TOKEN_USAGE_DB=/app/data/token-usage.sqlite); a named volume inherits this ownership.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 5055
# The platform checks /api/health too; this one makes `docker ps` honest. Slim images have no curl:
# Node's own fetch does the request. 127.0.0.1 reaches the 0.0.0.0 listener from inside.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||5055)+'/api/health').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# Node itself is PID 1 (exec form, not `npm start`): it receives SIGTERM and drains (src/server.ts).
CMD ["node", "dist/src/server.js"]
