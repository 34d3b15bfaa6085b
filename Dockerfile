# One image for both processes: `web` runs build/processes/server.js, `worker` build/processes/worker.js,
# both compiled by `npm run build` (ADR 020) and run by node with the settings npm start uses (scripts/lib/servers.ts).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app /app
# Uploaded images live outside the web root, in a folder the unprivileged user can write (a volume in compose).
RUN mkdir -p /app/.data/uploads && chown -R node:node /app/.data
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "build/processes/server.js"]
