# One image for the web service, the CPU worker, the scheduler and the one-shot jobs
# (migrate, repro-env). The harness environment (sglang, ~6 GB) is not in it by default:
# the `repro-env` compose service builds it into a volume. Pass
# `--build-arg REPRO_ENVS=sglang-0.5.23` to bake it in instead (a named volume mounted at
# ERRATA_ENV_DIR is filled from the image the first time it is used).
# PYTHON_IMAGE: any image whose `python`/`pip` is Python 3.11 (docker/base-images.sh builds
# a local one for hosts without a registry).
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}

ARG REPRO_ENVS=""
ARG UID=10001

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FLASK_APP=app:create_app \
    ERRATA_ENV_DIR=/var/lib/errata/envs \
    ERRATA_STATE_DIR=/var/lib/errata/state \
    ERRATA_SECRETS_DIR=/var/lib/errata/secrets

RUN groupadd --system --gid "$UID" errata \
    && useradd --system --uid "$UID" --gid errata --create-home --home-dir /home/errata errata \
    && mkdir -p /srv/errata "$ERRATA_ENV_DIR" "$ERRATA_STATE_DIR" "$ERRATA_SECRETS_DIR" \
    && chown errata:errata "$ERRATA_ENV_DIR" "$ERRATA_STATE_DIR" "$ERRATA_SECRETS_DIR" \
    && chmod 700 "$ERRATA_SECRETS_DIR"

WORKDIR /srv/errata

# Dependencies first, from pyproject.toml alone, so a code change does not reinstall them.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY --chown=root:root . .
# Editable on purpose: repro/ finds data/ and runs harnesses with the project root on
# PYTHONPATH (repro/runner.py REPO_ROOT), which must be this source tree, not site-packages.
RUN pip install --no-deps -e . \
    && mkdir -p instance && chown errata:errata instance

USER errata
RUN for env in $REPRO_ENVS; do python -m repro.envs.build "$env" || exit 1; done

EXPOSE 8000
ENTRYPOINT ["/srv/errata/docker/entrypoint.sh"]
CMD ["web"]
