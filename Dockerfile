# Container image of the campus assistant agent for the campus platform (DEPLOY.md).
# Three stages: `build` compiles TypeScript with the dev dependencies; `prod-deps` installs the
# production dependencies only, with the toolchain better-sqlite3's native addon compiles with;
# `runtime` is a slim Node 22 image holding node_modules (production), dist/ and the SQL migrations,
# run as the unprivileged `node` user. The sandbox (src/sandbox: offline model, sandbox tool server,
# playground, terminal client) is removed from the image: production never loads it. No secret is read at build time: every variable the service
# needs is set on the platform as a runtime variable. tests/production-entry.test.ts runs these same
# steps (build, `npm ci --omit=dev`, `node dist/src/server.js`) outside Docker.

# The base, pinned to an exact Node release (the memory figures and heap flags below were measured on
# it: BENCHMARKS.md). To update: pick the release, re-run `npm run image:check` and the benches on it, and
# where a registry is reachable pin its digest too: `--build-arg NODE_IMAGE=node:22.23.3-bookworm-slim@sha256:…`
# with the digest from `docker buildx imagetools inspect node:22.23.3-bookworm-slim` (DEPLOY.md §6).
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

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
# better-sqlite3's install would first download a prebuilt binary from GitHub, then, compiling, Node's
# headers from nodejs.org: the build reaches only the npm registry and Debian, so it compiles from source
# against the headers the Node image ships (/usr/local/include/node).
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/deploy/prune-prod-deps.sh ./
# npm ci runs the `postinstall` step, which mends the postgres driver (scripts/patch-postgres-driver.mjs,
# docs/design/database.md), and the `prepare` build step: without src/ and TypeScript it has nothing to do and says so.
COPY scripts/build.mjs scripts/patch-postgres-driver.mjs ./scripts/
# The service loads sharp (libvips) with the first photo, not at start (src/media/images.ts): loading it
# here once makes an install whose binary cannot load fail the build, not a student's first photo.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force \
 && sh prune-prod-deps.sh \
 && node -e "require('sharp')"

# ---- runtime: slim, no toolchain, no dev dependencies, no sources ---------------------------------
FROM ${NODE_IMAGE} AS runtime
# NODE_OPTIONS bounds the V8 heap so the process stays inside the platform's 256 MB limit: V8 collects
# harder near 128 MB of old space instead of growing, and 8 MB semi-spaces size the young generation.
# Chosen on the Node this image runs (22.23.3) from CPU and peak RSS at 100/250/500 held streams against
# 16 MB semi-spaces and Node's defaults (bench/streams.bench.ts, which reads this line; BENCHMARKS.md
# "Held streams on Node 22"): on Node 22, 16 MB semi-spaces peaked at 240 MB at 500 streams against
# 225 MB with 8 MB, for no less CPU at 250 and 500 (16.2 / 36.8 s against 14.5 / 34.3 s); Node's
# defaults reached 353 MB. (On Node 20, 16 MB had cost less CPU: the flags were measured there before.)
# Change it only together with the platform's memory limit.
# MALLOC_ARENA_MAX=2 keeps glibc from giving each thread that decodes a photo (sharp's libvips work runs
# on libuv's pool) an arena of its own that keeps its freed memory: a burst of 20 photos on one replica
# peaked at 242 MB without it and 201 MB with it, against 155 MB for the same burst without photos
# (bench/photos.bench.ts, which reads this line; BENCHMARKS.md "Photos").
ENV NODE_ENV=production \
    AGENT_ENV=production \
    PORT=5055 \
    MALLOC_ARENA_MAX=2 \
    NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8"
WORKDIR /app
# Owned by root, read-only to the service: the running process cannot rewrite its own code.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Migrations are applied by the service at start (src/db/migrate.ts reads ./drizzle), never at build.
COPY drizzle ./drizzle
COPY package.json ./
# The platform's health check runs inside the container with `wget` (falling back to `curl`), and the
# slim image has neither: BusyBox's wget applet (one 0.8 MB binary that needs only libc) is the
# smallest that answers it; only the `wget` name is linked. The one writable place besides /tmp: mount a
# volume on /app/data for TOKEN_BUDGET_STORE=sqlite (TOKEN_USAGE_DB=/app/data/token-usage.sqlite).
RUN apt-get update \
 && apt-get install -y --no-install-recommends busybox \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s /bin/busybox /usr/local/bin/wget \
 && mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 5055
# The same check as the platform's, with the same wget: it no longer starts a Node process (57 MB at
# its peak, counted against the service's own 256 MB). 127.0.0.1 reaches the 0.0.0.0 listener; a 503
# (degraded) is unhealthy. No `-T`: Debian bookworm's BusyBox wget crashes with it (found by
# `npm run image:check`); `--timeout` bounds the check instead.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD wget -q -O /dev/null "http://127.0.0.1:${PORT:-5055}/api/health" || exit 1
STOPSIGNAL SIGTERM
# Node itself is PID 1 (exec form, not `npm start`): it receives SIGTERM and drains (src/server.ts).
CMD ["node", "dist/src/server.js"]
