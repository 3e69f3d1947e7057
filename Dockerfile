# syntax=docker/dockerfile:1
# One image for every Tally service; the compose file picks the service with `command: ["<service>"]`.

# ---- build: the whole reactor, tests skipped (they run in CI, not in the image build) ----
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# the cache mount keeps ~/.m2 between builds without baking it into a layer
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests package

# ---- runtime: a JRE, the launcher jar and its runtime dependencies, run as a non-root user ----
FROM eclipse-temurin:17-jre
RUN groupadd --gid 10001 tally \
 && useradd --uid 10001 --gid tally --no-create-home --shell /usr/sbin/nologin tally \
 && mkdir -p /var/lib/tally \
 && chown tally:tally /var/lib/tally
WORKDIR /app
COPY --from=build /src/launcher/target/lib/ /app/lib/
COPY --from=build /src/launcher/target/launcher.jar /app/launcher.jar
# /var/lib/tally is owned by tally, so a named volume mounted there (TALLY_DATA_DIR) starts out writable
USER 10001:10001
# 8080: ingest API; 8091: vote-processor queries; 8092: count-projector queries (as docker-compose.yml sets them)
EXPOSE 8080 8091 8092
# two malloc arenas: RocksDB's native memory fragments across many (docs/decisions/0009-native-memory.md)
ENV MALLOC_ARENA_MAX=2
# /app/plugins: mount jars a cluster's login needs there (AWS MSK IAM: docs/operations.md)
# exec form: java is PID 1 and gets SIGTERM, so Streams leaves its group cleanly on `docker compose stop`;
# the JVM expands the lib/* class-path wildcard itself. Heap is bounded; RocksDB state lives off-heap.
ENTRYPOINT ["java", "-Xms128m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", \
            "-cp", "/app/launcher.jar:/app/lib/*:/app/plugins/*", "dev.tally.launcher.Tally"]
