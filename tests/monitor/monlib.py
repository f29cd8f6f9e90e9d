"""What the tern-monitor tests share (e2e.py, alerts.py): a server, an
agent and a job on this machine, and waiting for what they show."""
import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request


def args():
    """--bin (tern-run, tern-monitor), --prog (monitor_traffic), --promtool."""
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--prog', required=True)
    ap.add_argument('--promtool', default='')
    return ap.parse_args()


def fail(msg):
    print('monitor test: FAIL: ' + msg)
    sys.exit(1)


def get(port, path):
    with urllib.request.urlopen('http://127.0.0.1:%d%s' % (port, path), timeout=5) as r:
        return r.status, r.read().decode()


def wait_for(what, fn, timeout=30.0):
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            last = fn()
            if last:
                return last
        except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError) as e:
            last = e
        time.sleep(0.1)
    fail('%s (last: %r)' % (what, last))


class Cluster:
    """A server, an agent (node 'e2e-node', 0.2 s) and the processes to stop."""

    def __init__(self, bin_dir, tmp, server_args=()):
        self.bin = bin_dir
        self.tmp = tmp
        self.procs = []
        self.segs = os.path.join(tmp, 'segs')
        os.mkdir(self.segs)
        self.token = os.path.join(tmp, 'token')
        with open(self.token, 'w') as f:
            f.write('test-%d-secret\n' % os.getpid())
        self.db = os.path.join(tmp, 'monitor.db')
        self.server_args = list(server_args)
        self.server = None
        self.start_server()
        mon = os.path.join(bin_dir, 'tern-monitor')
        self.start([mon, 'agent', '--server', '127.0.0.1:%d' % self.port, '--token-file', self.token,
                    '--dir', self.segs, '--interval', '0.2', '--node', 'e2e-node', '--reap'])

    def start_server(self):
        """The server (again, on a new port, with the same database)."""
        portf = os.path.join(self.tmp, 'port')
        if os.path.exists(portf):
            os.unlink(portf)
        mon = os.path.join(self.bin, 'tern-monitor')
        self.server = self.start([mon, 'serve', '--listen', '127.0.0.1:0', '--port-file', portf,
                                  '--token-file', self.token, '--db', self.db] + self.server_args)
        self.port = int(wait_for('the server writes its port',
                                 lambda: open(portf).read().strip() if os.path.exists(portf) else None))

    def stop_server(self):
        self.server.send_signal(signal.SIGTERM)
        self.server.wait(timeout=10)

    def start(self, argv, env=None):
        p = subprocess.Popen(argv, env=env)
        self.procs.append(p)
        return p

    def job(self, prog, args, nranks=4, extra_env=None):
        # lingering segments: the agent reads the final values and removes them
        env = dict(os.environ, TERN_MONITOR='1', TERN_MONITOR_DIR=self.segs, TERN_MONITOR_LINGER='1')
        env.update(extra_env or {})
        return self.start([os.path.join(self.bin, 'tern-run'), '-n', str(nranks), prog] + args, env)

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
