# Local stand-in for python:3.11-slim: Debian 12's Python 3.11 with pip usable as root
# (Debian's "externally managed" guard removed, as in an image that owns its Python). It
# trusts the extra CAs of the host that built it (host-ca/: its /usr/local/share/
# ca-certificates), so pip reaches PyPI through the same TLS-inspecting proxy, if any.
ARG DEBIAN_IMAGE=errata-local/debian:bookworm
FROM ${DEBIAN_IMAGE}
ENV LANG=C.UTF-8 \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
COPY host-ca/ /usr/local/share/ca-certificates/
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-pip python3-venv python-is-python3 ca-certificates \
    && rm -rf /var/lib/apt/lists/* /usr/lib/python3*/EXTERNALLY-MANAGED \
    && update-ca-certificates
CMD ["python3"]
