# transferd: build with the Swift toolchain, run on slim Debian.
#   docker build -t transferd .
#   docker run -p 8080:8080 -v transferd-data:/data transferd
#   docker exec -e TRANSFERD_API_KEY=trd_… <container> /app/transferctl ls    (the command-line client is in the image)

# ---- build ----
FROM swift:6.3-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Resolve dependencies in their own layer, so that source edits do not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Migrations ./Migrations
COPY Tests ./Tests
RUN swift build -c release --product transferd --static-swift-stdlib \
    && swift build -c release --product transferctl --static-swift-stdlib \
    && bin="$(swift build -c release --show-bin-path)" \
    && mkdir -p /staging \
    && cp "$bin/transferd" "$bin/transferctl" /staging/ \
    && cp -R "$bin"/*.resources /staging/

# ---- run ----
FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libstdc++6 libxml2 zlib1g ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 transferd \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin transferd \
    && mkdir -p /data \
    && chown 10001:10001 /data
WORKDIR /app
COPY --from=build /staging /app
ENV TRANSFERD_HOST=0.0.0.0 \
    TRANSFERD_PORT=8080 \
    TRANSFERD_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/healthz"]
# SIGTERM lets running transfers checkpoint; give it time (docker stop -t 30).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/app/transferd"]
CMD ["serve"]
