#!/bin/sh
# Entry point of the errata images: `web`, `worker`, `gpu-worker`, `scheduler`, `migrate`,
# `repro-env`, or any other command (e.g. `flask tokens list`), run as given.
set -eu

PYTHON="${PYTHON:-python}"

# A worker token may come from a file (a compose/Swarm secret or the volume `migrate`
# writes) instead of the environment, so it never appears in `docker inspect`.
if [ -z "${ERRATA_WORKER_TOKEN:-}" ] && [ -n "${ERRATA_WORKER_TOKEN_FILE:-}" ] \
    && [ -s "$ERRATA_WORKER_TOKEN_FILE" ]; then
    ERRATA_WORKER_TOKEN="$(cat "$ERRATA_WORKER_TOKEN_FILE")"
    export ERRATA_WORKER_TOKEN
fi

say() { echo "[entrypoint] $*" >&2; }

require_worker_settings() {
    if [ -z "${ERRATA_API_URL:-}" ] || [ -z "${ERRATA_WORKER_TOKEN:-}" ]; then
        say "ERRATA_API_URL and ERRATA_WORKER_TOKEN (or ERRATA_WORKER_TOKEN_FILE) must be set"
        exit 64
    fi
}

# Keep a worker token file valid: reuse its token while `flask tokens list` shows it
# active with the right scope, otherwise (first start, database reset, token revoked) make
# a new one. ensure_token FILE NAME SCOPE [--gpu]; SCOPE as the list shows it.
ensure_token() {
    file="$1" name="$2" listed="$3"
    shift 3
    [ -n "$file" ] || return 0
    if [ -s "$file" ]; then
        prefix="$(cut -c1-13 "$file")"
        if flask tokens list | awk -F '\t' -v s="$listed" '$5 == "active" && $3 == s { print $2 }' \
            | grep -q "^${prefix}"; then
            say "worker token in $file is active; kept"
            return 0
        fi
        say "worker token in $file is not active here; creating a new one"
    fi
    umask 077
    flask tokens create --name "$name" --scope worker "$@" >"$file.new"
    mv "$file.new" "$file"
    say "worker token written to $file"
}

# The CPU workers' token, and the GPU workers' (registered with --gpu: only those may
# report runs on real hardware).
ensure_worker_tokens() {
    ensure_token "${ERRATA_WORKER_TOKEN_FILE:-}" "${ERRATA_WORKER_TOKEN_NAME:-compose-worker}" worker
    ensure_token "${ERRATA_GPU_WORKER_TOKEN_FILE:-}" \
        "${ERRATA_GPU_WORKER_TOKEN_NAME:-compose-gpu-worker}" worker+gpu --gpu
}

role="${1:-web}"
case "$role" in
web)
    exec gunicorn --bind "0.0.0.0:${PORT:-8000}" --workers "${WEB_CONCURRENCY:-2}" \
        --timeout "${GUNICORN_TIMEOUT:-60}" --access-logfile - app.wsgi:app
    ;;
migrate)
    flask db upgrade
    # shellcheck disable=SC2086 # the glob is meant to expand
    flask records import ${ERRATA_IMPORT_FILES:-data/records/*.jsonl}
    flask repro links
    ensure_worker_tokens
    ;;
worker)
    require_worker_settings
    exec celery -A app.jobs.worker worker -Q cpu -n "cpu@%h" \
        -c "${ERRATA_WORKER_CONCURRENCY:-2}" --loglevel "${LOG_LEVEL:-INFO}"
    ;;
gpu-worker)
    require_worker_settings
    exec "$PYTHON" -m celery -A repro.worker worker -Q gpu -n "gpu@%h" \
        -c "${ERRATA_WORKER_CONCURRENCY:-1}" --loglevel "${LOG_LEVEL:-INFO}"
    ;;
scheduler)
    exec celery -A app.jobs.worker beat --loglevel "${LOG_LEVEL:-INFO}" \
        --schedule "${ERRATA_STATE_DIR:-/tmp}/celerybeat-schedule"
    ;;
repro-env)
    for env in ${ERRATA_REPRO_ENVS:-sglang-0.5.23}; do
        "$PYTHON" -m repro.envs.build "$env"
    done
    ;;
*)
    exec "$@"
    ;;
esac
