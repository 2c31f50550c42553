FROM python:3.11-slim
WORKDIR /srv/errata
ENV FLASK_APP=app:create_app PYTHONUNBUFFERED=1
COPY pyproject.toml ./
COPY app ./app
COPY repro ./repro
COPY migrations ./migrations
COPY data ./data
RUN pip install --no-cache-dir .
EXPOSE 8000
