# syntax=docker/dockerfile:1
# Realmgate image (docs/operations/deploy.md; spec v1.0.0-beta.64 item 6): the CLI is the entrypoint and its
# argument list the command (default `start`); PORT 3000 and HOST 0.0.0.0 are image defaults; the
# healthcheck probes the port PORT names, or the worker's WORKER_PORT for `start worker`.
#
# Base: Node.js 24, the long-term-support line, on Debian bookworm slim, pinned by version and by
# the digest of its multi-platform index, so a rebuild gets the same base until this line changes.
# The digest was read from public Dockerfiles pinning this tag, not pulled from the registry here;
# before relying on it, compare `docker buildx imagetools inspect node:24.20.0-bookworm-slim`
# (a mismatch fails the build rather than using another image).

# --- manifests: what `npm ci` reads, shared by the build and the dependencies stages ---
FROM node:24.20.0-bookworm-slim@sha256:ba849c60be29959425b8734d57b8b4b7d56f98edd9504c9af091d5281095a71e AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/access/package.json packages/access/
COPY packages/client/package.json packages/client/
COPY packages/adapter/package.json packages/adapter/
COPY packages/server/package.json packages/server/
COPY apps/console/package.json apps/console/

# --- build: the same commands as a source checkout (docs/operations/deploy.md, "From source") ---
FROM manifests AS build
COPY tsconfig.base.json tsconfig.json ./
RUN npm ci
COPY packages/core packages/core
COPY packages/access packages/access
COPY packages/server packages/server
# the admin and account consoles are built from apps/console with the client kit's sources
COPY packages/client packages/client
COPY apps/console apps/console
RUN npm run build

# --- dependencies: the server workspace's production dependencies only ---
# No compiler, TypeScript, Vite or test tool: `--omit=dev` for the server workspace alone. Every
# workspace manifest is present so the lockfile installs as it was resolved; the server's own
# workspace dependencies (core, access) are links, filled with their built dist in the runtime stage.
FROM manifests AS dependencies
RUN npm ci --omit=dev --workspace packages/server --no-audit --no-fund
# what only installed: better-sqlite3's sources and build leftovers, prebuild-install and the
# packages nothing else requires (scripts/prune-build-tools.mjs)
COPY scripts/prune-build-tools.mjs scripts/
RUN node scripts/prune-build-tools.mjs packages/server

# --- runtime ---
FROM node:24.20.0-bookworm-slim@sha256:ba849c60be29959425b8734d57b8b4b7d56f98edd9504c9af091d5281095a71e
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    WRITABLE_DIRECTORY_PATH=/data
WORKDIR /app
COPY --from=dependencies /app/package.json ./
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/packages/access/package.json packages/access/
COPY --from=build /app/packages/access/dist packages/access/dist
COPY --from=build /app/packages/server/package.json packages/server/
COPY --from=build /app/packages/server/dist packages/server/dist
# the consoles: their static files only
COPY --from=build /app/apps/console/dist apps/console/dist
# the SQLite file and the provisioning folder live under WRITABLE_DIRECTORY_PATH; a config file
# mounted at /app/realmgate.config.yaml (or named by CONFIG_FILE) is read at boot
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
# non-root: the image's `node` user (uid 1000)
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["node", "packages/server/dist/healthcheck.js"]
ENTRYPOINT ["node", "packages/server/dist/cli.js"]
CMD ["start"]
