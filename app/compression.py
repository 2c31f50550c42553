"""gzip for text responses (JSON, problem documents, pages) when the client accepts it.

Bodies under ``MIN_SIZE`` bytes are sent as they are (gzip would save little); streamed,
file, partial and bodiless responses are left alone. Every response of a
compressible type says ``Vary: Accept-Encoding``, so a cache keeps both forms apart. A
strong ``ETag`` becomes weak on the gzipped form (the bytes differ); ``If-None-Match``
compares weakly, so a client sending it back still gets its 304.
"""

from __future__ import annotations

import gzip

from flask import Flask, Response, request

MIN_SIZE = 1024
COMPRESSIBLE = frozenset(
    {
        "application/json",
        "application/problem+json",
        "application/javascript",
        "image/svg+xml",
        "text/css",
        "text/html",
        "text/javascript",
        "text/plain",
    }
)


def gzip_response(response: Response) -> Response:
    if response.mimetype not in COMPRESSIBLE:
        return response
    response.vary.add("Accept-Encoding")
    if (
        response.direct_passthrough
        or response.is_streamed
        or response.status_code < 200
        or response.status_code in (204, 206, 304)
        or "Content-Encoding" in response.headers
        or request.method == "HEAD"
        or request.accept_encodings.quality("gzip") <= 0
    ):
        return response
    body = response.get_data()
    if len(body) < MIN_SIZE:
        return response
    response.set_data(gzip.compress(body, compresslevel=6, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag and not weak:
        response.set_etag(etag, weak=True)
    return response


def init_app(app: Flask) -> None:
    app.after_request(gzip_response)
