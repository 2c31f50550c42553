"""The WSGI entry for servers: the app, with its match index built as the worker starts
(so no request pays for it) and rebuilt in the background when the catalog changes."""

from app import create_app
from app.corpus.catalog import warm

app = create_app()
warm(app)
