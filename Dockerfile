# The fundsaga image: `fundsaga worker` by default; docker-compose.yml runs the collector, the
# codec server and the migrations from it too. Dependencies come from requirements.lock, with
# their hashes; the build stage's compilers and caches stay out of the final image.

FROM python:3.11.13-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/fundsaga
WORKDIR /src
# The lock first: its layer is rebuilt only when a dependency changes, not with every commit.
COPY requirements.lock ./
RUN /opt/fundsaga/bin/pip install --no-deps --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY sagas ./sagas
COPY workflows ./workflows
COPY activities ./activities
COPY migrations ./migrations
# --no-deps: every dependency is already in, from the lock; --no-build-isolation: so is the
# build backend (setuptools), so pip fetches nothing unpinned.
RUN /opt/fundsaga/bin/pip install --no-deps --no-build-isolation .

FROM python:3.11.13-slim-bookworm
RUN groupadd --system --gid 10001 fundsaga \
    && useradd --system --uid 10001 --gid fundsaga --create-home --home-dir /home/fundsaga fundsaga
COPY --from=build /opt/fundsaga /opt/fundsaga
ENV PATH=/opt/fundsaga/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# Settings read a .env here, and relative defaults (.fundsaga/) land here: the user's own home.
WORKDIR /home/fundsaga
USER 10001:10001
EXPOSE 9464
# Healthy while the metrics endpoint answers: FUNDSAGA_METRICS_ADDRESS must be set (host:port),
# as it is for the worker and the collector; other commands override or disable the check.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ['FUNDSAGA_METRICS_ADDRESS'].rpartition(':')[2]; urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=4)"]
ENTRYPOINT ["fundsaga"]
CMD ["worker"]
