# shoal: build with `docker build -f deploy/docker/shoal.Dockerfile -t shoal:0.1.0 .` from the
# repository root. Two stages: the first compiles TypeScript, the second holds only the compiled
# code and production dependencies. Runs as an unprivileged user; the config is mounted at
# /etc/shoal/shoal.yaml (the Helm chart does this) and credentials arrive as environment variables.
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
EXPOSE 8000
# SIGTERM reaches node directly (exec form): shoal drains in-flight queries, then exits
ENTRYPOINT ["node", "/app/dist/src/shoal/cli/main.js"]
CMD ["serve", "--config", "/etc/shoal/shoal.yaml", "--host", "0.0.0.0", "--port", "8000"]
