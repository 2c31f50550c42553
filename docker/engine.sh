#!/usr/bin/env bash
# Make a Docker engine and a compose command answer for the docker tests (tests/docker),
# then build the local base images once (docker/base-images.sh keeps them). When no
# engine answers and this runs as root: install Debian's docker.io, docker-compose and
# debootstrap, and start dockerd (overlay2) in the background. Otherwise it says why
# the docker tests cannot run (they skip, or fail under CI=true) and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "[docker-engine] $*" >&2; }
LOG="${ERRATA_DOCKERD_LOG:-/var/log/errata-dockerd.log}"

if ! docker info >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        say "no Docker engine answers and this is not root: the docker tests cannot run"
        exit 0
    fi
    missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v docker-compose >/dev/null || missing+=(docker-compose)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]} (apt)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    say "starting dockerd (log: $LOG)"
    setsid nohup dockerd --storage-driver overlay2 >"$LOG" 2>&1 </dev/null &
    for _ in $(seq 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || {
        say "dockerd did not answer within 60 s; last lines of $LOG:"
        tail -20 "$LOG" >&2
        exit 1
    }
fi
if ! command -v docker-compose >/dev/null && ! docker compose version >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
    else
        say "no compose command (docker compose or docker-compose): the docker tests cannot run"
        exit 0
    fi
fi
# Stacks left by an interrupted test session: errata-test-<pid> of a pytest that is gone.
for project in $(docker ps -a --format '{{.Label "com.docker.compose.project"}}' | sort -u); do
    case "$project" in
    errata-test-*)
        [ -d "/proc/${project#errata-test-}" ] && continue
        say "removing the leftover test stack $project"
        docker ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r docker rm -f >/dev/null
        docker volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker volume rm >/dev/null
        docker network ls -q --filter "label=com.docker.compose.project=$project" | xargs -r docker network rm >/dev/null
        ;;
    esac
done
exec docker/base-images.sh
