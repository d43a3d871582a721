# syntax=docker/dockerfile:1
# Realmgate image (docs/operations/deploy.md; spec v1.0.0-beta.64 item 6): the CLI is the entrypoint and its
# argument list the command (default `start`); PORT 3000 and HOST 0.0.0.0 are image defaults; the
# healthcheck probes the port PORT names, or the worker's WORKER_PORT for `start worker`.

# --- build: the same commands as a source checkout (docs/operations/deploy.md) ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages/core/package.json packages/core/
COPY packages/access/package.json packages/access/
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY apps/console/package.json apps/console/
RUN npm ci
COPY packages/core packages/core
COPY packages/access packages/access
COPY packages/server packages/server
# the admin and account consoles are built from apps/console with the client kit's sources
COPY packages/client packages/client
COPY apps/console apps/console
RUN npm run build
# production dependencies only in what is copied on
RUN npm prune --omit=dev

# --- runtime ---
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    WRITABLE_DIRECTORY_PATH=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/packages/access/package.json packages/access/
COPY --from=build /app/packages/access/dist packages/access/dist
COPY --from=build /app/packages/server/package.json packages/server/
COPY --from=build /app/packages/server/dist packages/server/dist
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
