# The tilecensus image used by docker-compose.yml: the CLI, the workers and the scheduler.
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . /src
RUN pip install --no-cache-dir -c constraints.txt . && apt-get purge -y gcc && apt-get autoremove -y
ENTRYPOINT []
CMD ["tilecensus", "--help"]
