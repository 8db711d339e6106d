"""gunicorn behind nginx (deploy/nginx.conf): `gunicorn ibirepo.wsgi -c deploy/gunicorn.conf.py`.

Threaded workers (gthread): a persistent URL held elsewhere waits for the other Archives (up to
IBI_RESOLVER_DEADLINE) in one thread of a worker, not in the whole worker, and at most half of a
worker's threads wait so (IBI_RESOLVER_MAX_WAITING), so readers stalled on a slow Archive never
occupy every thread. nginx buffers slow clients, so a thread is only busy while Django works.
Settings come from the environment, as gunicorn's own flags would:

    GUNICORN_BIND      where nginx's upstream points (default 127.0.0.1:8000)
    WEB_CONCURRENCY    worker processes (default 2 per core, at least 2)
    GUNICORN_THREADS   threads per worker (default 8)

Behind nginx every connection comes from nginx: NUM_PROXIES defaults to 1 here, so the rate
limits count the address nginx saw (X-Forwarded-For), not nginx's own.

The hooks of ibirepo/gunicorn.py switch the Archive on and off at its resolver when
IBI_SWITCHON_RESOLVER is set, and keep what a worker loaded out of the garbage collector's
full collections after its first request.
"""
import os

threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# Before Django reads its settings: nginx is the one proxy in front (deploy/nginx.conf), and
# readers waiting on other Archives may hold half the threads of a worker, never all of them
# (one more is answered 503 with Retry-After, archive/resolver/resolve.py).
os.environ.setdefault("NUM_PROXIES", "1")
os.environ.setdefault("IBI_RESOLVER_MAX_WAITING", str(max(1, threads // 2)))

from ibirepo.gunicorn import on_exit, post_request, when_ready  # noqa: E402, F401  (hooks)

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, 2 * (os.cpu_count() or 1))))
worker_class = "gthread"
timeout = 120  # a deposit of a large file, read by nginx first, still takes a while to store
graceful_timeout = 30
keepalive = 30  # nginx keeps upstream connections (upstream keepalive)
forwarded_allow_ips = "127.0.0.1,::1"  # only nginx on this machine sets X-Forwarded-*
accesslog = "-"
# The path, never the query (a secret link's ?token=…) nor the Referer (a landing page's
# address, token included): gunicorn's default format logs both. nginx's log (deploy/
# nginx.conf) has the query, a token withheld.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s "%(a)s" %(M)sms'
