# One image for both processes: `web` runs server.ts, `worker` runs worker/index.ts.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx remix vite:build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
# Uploaded images live outside the web root, in a folder the unprivileged user can write (a volume in compose).
RUN mkdir -p /app/.data/uploads && chown -R node:node /app/.data
USER node
EXPOSE 3000
CMD ["node_modules/.bin/tsx", "server.ts"]
