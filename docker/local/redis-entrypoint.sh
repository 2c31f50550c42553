#!/bin/sh
# What the official redis entrypoint does: `-x`/`*.conf` arguments go to redis-server;
# as root, own /data and drop to the redis user; no config file -> protected mode off.
set -eu
case "${1:-}" in
-* | *.conf) set -- redis-server "$@" ;;
esac
if [ "${1:-}" = redis-server ]; then
    if [ "$(id -u)" = 0 ]; then
        find . \! -user redis -exec chown redis:redis '{}' +
        exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
    fi
    case "${2:-}" in
    *.conf) ;;
    *)
        shift
        set -- redis-server --protected-mode no "$@"
        ;;
    esac
fi
exec "$@"
