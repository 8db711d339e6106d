"""gunicorn behind nginx (deploy/nginx.conf): `gunicorn ibirepo.wsgi -c deploy/gunicorn.conf.py`.

Threaded workers (gthread): a persistent URL held elsewhere waits for the other Archives (up to
IBI_RESOLVER_DEADLINE) in one thread of a worker, not in the whole worker, so readers stalled
on a slow Archive never occupy every worker. nginx buffers slow clients, so a thread is only
busy while Django works. Settings come from the environment, as gunicorn's own flags would:

    GUNICORN_BIND      where nginx's upstream points (default 127.0.0.1:8000)
    WEB_CONCURRENCY    worker processes (default 2 per core, at least 2)
    GUNICORN_THREADS   threads per worker (default 8)

The hooks of ibirepo/gunicorn.py switch the Archive on and off at its resolver when
IBI_SWITCHON_RESOLVER is set.
"""
import os

from ibirepo.gunicorn import on_exit, when_ready  # noqa: F401  (gunicorn's hooks)

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, 2 * (os.cpu_count() or 1))))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
timeout = 120  # a deposit of a large file, read by nginx first, still takes a while to store
graceful_timeout = 30
keepalive = 30  # nginx keeps upstream connections (upstream keepalive)
forwarded_allow_ips = "127.0.0.1,::1"  # only nginx on this machine sets X-Forwarded-*
accesslog = "-"
