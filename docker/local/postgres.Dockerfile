# Local stand-in for the official postgres image: Debian 12's PostgreSQL 15, with an
# entrypoint that does what the official one does for POSTGRES_USER/PASSWORD/DB.
ARG DEBIAN_IMAGE=errata-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
ENV LANG=C.UTF-8 \
    PGDATA=/var/lib/postgresql/data \
    PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# No default cluster: the entrypoint initialises $PGDATA on first start.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
    && echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/no-main.conf \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p "$PGDATA" /var/run/postgresql \
    && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
