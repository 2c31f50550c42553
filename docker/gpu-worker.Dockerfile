# GPU worker: sglang's own CUDA image, plus Celery and this repository's repro/ and data/.
# It takes `real`-platform jobs from the `gpu` queue and posts results to the web API; it
# needs no database and none of app/. Build from the repository root:
#   docker build -f docker/gpu-worker.Dockerfile -t errata-gpu-worker .
# SGLANG_IMAGE must carry the sglang version pinned in repro/envs/sglang-0.5.23/ (CUDA 13
# tags are `vX.Y.Z` and `vX.Y.Z-cu130`; check with `docker manifest inspect`).
ARG SGLANG_IMAGE=lmsysorg/sglang:v0.5.23
FROM ${SGLANG_IMAGE}

ARG UID=10001
ARG ENV_NAME=sglang-0.5.23
# Where repro.envs looks for the harness env (the CPU variant's base has one built there).
ARG ENV_DIR=/var/lib/errata/envs

# Celery lives apart from the image's packages (--target) so it cannot change sglang's pins;
# the harness never sees that path: repro/runner.py resets PYTHONPATH for the child.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHON=python3 \
    ERRATA_ENV_DIR=${ENV_DIR} \
    PYTHONPATH=/opt/errata/worker-libs:/srv/errata

RUN python3 -m pip install --target /opt/errata/worker-libs "celery[redis]>=5.4,<6" "redis>=5,<8"

WORKDIR /srv/errata
COPY repro ./repro
COPY data ./data
COPY docker/entrypoint.sh docker/link-system-env.sh ./docker/

# The harness runs with this image's own python (where sglang and its CUDA kernels are):
# the env directory that repro.envs.python_for() looks up points at it.
RUN ./docker/link-system-env.sh "$ENV_NAME" \
    && (groupadd --system --gid "$UID" errata 2>/dev/null || true) \
    && useradd --system --uid "$UID" --gid "$UID" --create-home --home-dir /home/errata errata

USER errata
ENTRYPOINT ["/srv/errata/docker/entrypoint.sh"]
CMD ["gpu-worker"]
