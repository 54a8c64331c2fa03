# tik: build with `docker build -f deploy/docker/tik.Dockerfile -t tik:0.1.0 .` from the
# repository root. Two stages: the first compiles TypeScript, the second holds only the compiled
# code and production dependencies. Runs as an unprivileged user; the store lives on a volume
# at /data/store (`tik init --root /data/store` makes it; the Helm chart does both).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOME=/tmp
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
USER 10001:10001
EXPOSE 7777
# SIGTERM reaches node directly (exec form): tik finishes requests in flight, then exits
ENTRYPOINT ["node", "/app/dist/src/tik/cli/main.js"]
CMD ["serve", "--root", "/data/store", "--host", "0.0.0.0", "--port", "7777"]
