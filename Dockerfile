# One image for every Tidings process; the command picks the app:
#   docker build -t tidings .
#   docker run tidings                                          the API (default)
#   docker run tidings node apps/dashboard/dist/server.js       the dashboard
#   docker run tidings node apps/send-worker/dist/worker.js     a send-worker
#   docker run tidings node apps/webhook-worker/dist/worker.js  a webhook-worker
#   docker run tidings node apps/smtp/dist/server.js            SMTP submission (587 STARTTLS, 465 TLS)
#   docker run tidings node packages/cli/bin/tidings.js migrate the operator's command (migrations first on upgrade)
ARG NODE_IMAGE=node:24-bookworm-slim

# The package.json files alone, so the dependency layers are rebuilt only when dependencies change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \; \
 && cp package-lock.json /manifests/

# Build: every dependency (dev included), the Prisma client generated, then `npm run build` (apps, CLI, SDK).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 TURBO_TELEMETRY_DISABLED=1
COPY --from=manifests /manifests/ ./
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies of the apps and the CLI only, the built JavaScript, the migrations.
FROM ${NODE_IMAGE} AS runtime
# OPS_HOST: the ops ports (/metrics, /healthz, /readyz) answer on every interface of the container, for the
# orchestrator's probes and Prometheus; publish them to no one (docs/compose.md)
ENV NODE_ENV=production CHECKPOINT_DISABLE=1 OPS_HOST=0.0.0.0
# V8's young generation capped at 4 MiB semi-spaces (default 16): each process's peak RSS under load 8-35 MiB lower,
# throughput unchanged. A 1 GiB old generation (default: a quarter of RAM, up to 4 GiB): from a limit of 2 GiB V8 lets
# the heap grow up to 4x its live size before a full collection, below it much less; under load the send-worker's heap
# held 40 MiB live but reached 157 MiB before collecting by default, and peaks are the same at 512 MiB and 1 GiB
# (bench:peak-rss). A process whose live heap exceeds 1 GiB stops with an out-of-memory error (e.g. about ten
# 40 MiB attachments going to Resend at once in one send-worker): raise the limit if such sends are expected.
# bench/peak-rss.ts runs the apps with this line.
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=1024"
# SMTP submission on the standard ports in the image (2587 and 2465 locally, where 587 and 465 need root; Docker lets
# the node user bind them: containers start with net.ipv4.ip_unprivileged_port_start=0)
ENV SMTP_SUBMISSION_PORT=587 SMTPS_PORT=465
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=manifests /manifests/ ./
# --ignore-scripts: the only install script is the Prisma generate, whose output is already inside the bundles
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
      -w @tidings/api -w @tidings/dashboard -w @tidings/send-worker -w @tidings/webhook-worker -w @tidings/smtp -w @tidings/cli \
 && npm cache clean --force
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/apps/api/dist ./apps/api/dist
COPY --from=build /app/apps/dashboard/dist ./apps/dashboard/dist
COPY --from=build /app/apps/send-worker/dist ./apps/send-worker/dist
COPY --from=build /app/apps/webhook-worker/dist ./apps/webhook-worker/dist
COPY --from=build /app/apps/smtp/dist ./apps/smtp/dist
COPY --from=build /app/packages/cli/dist ./packages/cli/dist
COPY --from=build /app/packages/cli/bin ./packages/cli/bin
USER node
EXPOSE 3000 3001 3002 3003 587 465
# tini is PID 1: it forwards SIGTERM to node (which drains) and reaps children
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/api/dist/server.js"]
