#!/usr/bin/env bash
# Build local stand-ins for the public base images, for hosts that reach no image
# registry (only Debian's and PyPI's mirrors). Each image is built once and kept; a
# later run reuses it (--force rebuilds). The stack uses them through
# docker-compose.local.yml; see docs/operations.md.
#
#   errata-local/debian:bookworm    debootstrap minbase, imported
#   errata-local/python:3.11        for python:3.11-slim
#   errata-local/postgres:15        for postgres:16 (the official entrypoint's user/db setup)
#   errata-local/redis:7            for redis:7
#   errata-local/sglang-cpu:0.5.23  python + the pinned harness env (repro/envs/sglang-0.5.23)
#                                   at /opt/errata/envs: base of the CPU gpu-worker and of
#                                   the local app image
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX="${ERRATA_LOCAL_PREFIX:-errata-local}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
ENV_NAME="${ERRATA_HARNESS_ENV:-sglang-0.5.23}"
PIP_CACHE="${ERRATA_DOCKER_PIP_CACHE:-/var/cache/errata/docker-pip}"
FORCE=0
[ "${1:-}" = --force ] && FORCE=1

say() { echo "[base-images] $*" >&2; }
have() { [ "$FORCE" = 0 ] && docker image inspect "$1" >/dev/null 2>&1; }
timed() {
    local started=$SECONDS
    "$@"
    say "$1 ${*: -1}: $((SECONDS - started))s"
}

debian_image() {
    local image="$PREFIX/debian:bookworm" root
    have "$image" && return 0
    command -v debootstrap >/dev/null || {
        say "debootstrap is missing (apt-get install debootstrap)"
        return 1
    }
    root="$(mktemp -d /var/tmp/errata-debootstrap.XXXXXX)"
    say "debootstrap bookworm from $MIRROR into $root"
    debootstrap --variant=minbase bookworm "$root" "$MIRROR" >/var/tmp/errata-debootstrap.log
    # What the public debian images also do: no apt caches, a plain sources list.
    echo "deb $MIRROR bookworm main" >"$root/etc/apt/sources.list"
    echo "deb $MIRROR bookworm-updates main" >>"$root/etc/apt/sources.list"
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | docker import --change 'CMD ["bash"]' - "$image" >/dev/null
    rm -rf "$root"
}

build() { # build IMAGE DOCKERFILE (context: docker/local plus host-ca/)
    have "$1" && return 0
    local context
    context="$(mktemp -d)"
    cp -r docker/local/. "$context/"
    mkdir -p "$context/host-ca"
    cp /usr/local/share/ca-certificates/*.crt "$context/host-ca/" 2>/dev/null || true
    docker build --network host --build-arg "DEBIAN_IMAGE=$PREFIX/debian:bookworm" \
        -t "$1" -f "$context/$(basename "$2")" "$context"
    rm -rf "$context"
}

# The harness env is ~6 GB of wheels: installed by `python -m repro.envs.build` in a
# container with a pip cache kept on the host, then committed (no BuildKit needed).
sglang_cpu_image() {
    local image="$PREFIX/sglang-cpu:${ENV_NAME#*-}" name="errata-build-$ENV_NAME-$$"
    have "$image" && return 0
    mkdir -p "$PIP_CACHE"
    docker rm -f "$name" >/dev/null 2>&1 || true
    if ! docker run --name "$name" --network host \
        -v "$PWD/repro:/src/repro:ro" -v "$PIP_CACHE:/root/.cache/pip" \
        -e ERRATA_ENV_DIR=/opt/errata/envs -e PYTHONPATH=/src -e PYTHONDONTWRITEBYTECODE=1 \
        -w /src "$PREFIX/python:3.11" python -m repro.envs.build "$ENV_NAME"; then
        docker rm "$name" >/dev/null
        return 1
    fi
    docker commit --change 'ENV ERRATA_ENV_DIR=/opt/errata/envs' \
        --change 'CMD ["python3"]' --change 'WORKDIR /' "$name" "$image" >/dev/null
    docker rm "$name" >/dev/null
}

timed debian_image "$PREFIX/debian:bookworm"
timed build "$PREFIX/python:3.11" docker/local/python.Dockerfile
timed build "$PREFIX/postgres:15" docker/local/postgres.Dockerfile
timed build "$PREFIX/redis:7" docker/local/redis.Dockerfile
timed sglang_cpu_image "$PREFIX/sglang-cpu"
say "ready: $(docker images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$PREFIX/*" | tr '\n' ' ')"
