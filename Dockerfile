# One image for every Plaza process; SERVICES and the other variables choose what it runs
# (docker-compose.yml and k8s/ run it once per service; docker-compose.embedded.yml all in one).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsc -p tsconfig.json && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
# The image's `node` user, by number: Kubernetes' runAsNonRoot can only verify a numeric user.
USER 1000:1000
# 3000: the gateway's HTTP port (PORT); 9090: probes and metrics when PROBE_PORT=9090.
EXPOSE 3000 9090
VOLUME ["/data"]
CMD ["node", "--experimental-async-context-frame", "dist/main.js"]
