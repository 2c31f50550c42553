# The buffering reverse proxy in front of gunicorn: Debian's nginx with docker/nginx.conf.
# DEBIAN_IMAGE: the public debian image, or the local one docker/base-images.sh imports.
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/*
COPY nginx.conf /etc/nginx/nginx.conf
RUN nginx -t
EXPOSE 8080
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
