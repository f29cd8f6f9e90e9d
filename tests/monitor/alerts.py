#!/usr/bin/env python3
"""tern-monitor's alerts end to end on this machine (tests/monitor).

A 4-rank job over udp with Tern's fault injector dropping 5 % of the
datagrams; the server's retransmission rule (tuned to a 2 s window and a
1 s hold, so that the test is short) must fire once, reach a webhook
receiver and an SMTP sink that the test runs, show on /api/alerts and in
the alert log, and resolve once the job has ended.  The generated
Prometheus rules must pass promtool and the Grafana dashboard must only
name metrics that /metrics exports.  Prints 'monitor alerts: ok'.
"""
import http.server
import json
import os
import re
import shutil
import socketserver
import subprocess
import tempfile
import threading

from monlib import args, Cluster, fail, get, wait_for


class Hook(http.server.BaseHTTPRequestHandler):
    bodies = []

    def do_POST(self):
        n = int(self.headers.get('Content-Length', '0'))
        Hook.bodies.append(json.loads(self.rfile.read(n)))
        self.send_response(200)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


class Smtp(socketserver.StreamRequestHandler):
    """Enough of RFC 5321 to take a message: a sink, as a relay would be."""
    mails = []

    def say(self, line):
        self.wfile.write((line + '\r\n').encode())

    def handle(self):
        self.say('220 sink ready')
        data = None
        while True:
            line = self.rfile.readline()
            if not line:
                return
            text = line.decode(errors='replace').rstrip('\r\n')
            if data is not None:
                if text == '.':
                    Smtp.mails.append('\n'.join(data))
                    data = None
                    self.say('250 queued')
                else:
                    data.append(text[1:] if text.startswith('..') else text)
                continue
            verb = text[:4].upper()
            if verb == 'DATA':
                data = []
                self.say('354 go on')
            elif verb == 'QUIT':
                self.say('221 bye')
                return
            else:
                self.say('250 ok')


def serve(server):
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    return server


def main():
    a = args()
    tmp = tempfile.mkdtemp(prefix='tern-mon-alerts-')
    hook = serve(http.server.HTTPServer(('127.0.0.1', 0), Hook))
    smtp = serve(socketserver.ThreadingTCPServer(('127.0.0.1', 0), Smtp))
    c = None
    try:
        rules = os.path.join(tmp, 'rules')
        with open(rules, 'w') as f:
            f.write('# short windows for a test\nTernRetransmissions window=2 hold=1\n')
        alert_log = os.path.join(tmp, 'alerts.jsonl')
        c = Cluster(a.bin, tmp, ['--rules', rules, '--alert-log', alert_log,
                                 '--webhook', 'http://127.0.0.1:%d/hook' % hook.server_address[1],
                                 '--smtp', '127.0.0.1:%d' % smtp.server_address[1],
                                 '--mail-from', 'monitor@localhost', '--mail-to', 'ops@localhost'])
        go = os.path.join(tmp, 'go')
        job = c.job(a.prog, [go, '400'], extra_env={'TERN_XPORT': 'udp', 'TERN_UDP_FAULT_DROP': '5'})

        def fired():
            for b in Hook.bodies:
                al = b['alerts'][0]
                if b['status'] == 'firing' and al['labels']['alertname'] == 'TernRetransmissions':
                    return al
            return None
        al = wait_for('the retransmission alert reaches the webhook', fired, 40)
        if al['labels'].get('src') != 'e2e-node' or al['labels'].get('severity') != 'warning':
            fail('webhook labels %r' % al['labels'])
        wait_for('the alert reaches the SMTP sink',
                 lambda: [m for m in Smtp.mails if 'FIRING TernRetransmissions' in m], 20)
        _, body = get(c.port, '/api/alerts')
        if not [x for x in json.loads(body)['alerts']
                if x['rule'] == 'TernRetransmissions' and x['state'] == 'firing']:
            fail('/api/alerts does not show it firing: ' + body)
        open(go, 'w').close()
        if job.wait(timeout=60) != 0:
            fail('the job failed')

        def resolved():
            return [b for b in Hook.bodies
                    if b['status'] == 'resolved' and
                    b['alerts'][0]['labels']['alertname'] == 'TernRetransmissions']
        wait_for('the alert resolves once the job is over', resolved, 30)
        wait_for('the resolution reaches the SMTP sink',
                 lambda: [m for m in Smtp.mails if 'RESOLVED TernRetransmissions' in m], 20)
        # one firing per link and rail, however long the loss lasted
        keys = [json.dumps(b['alerts'][0]['labels'], sort_keys=True) for b in Hook.bodies
                if b['status'] == 'firing' and
                b['alerts'][0]['labels']['alertname'] == 'TernRetransmissions']
        if len(keys) != len(set(keys)):
            fail('an alert was sent twice: %r' % keys)
        with open(alert_log) as f:
            logged = [json.loads(line)['status'] for line in f]
        if 'firing' not in logged or 'resolved' not in logged:
            fail('alert log: %r' % logged)

        # the same rules for Prometheus; the dashboard names what /metrics has
        out = subprocess.run([os.path.join(a.bin, 'tern-monitor'), 'rules'], capture_output=True,
                             text=True, check=True).stdout
        _, metrics = get(c.port, '/metrics')
        exported = set(re.findall(r'^# TYPE (\S+)', metrics, re.M))
        if a.promtool:
            path = os.path.join(tmp, 'tern.rules.yml')
            with open(path, 'w') as f:
                f.write(out)
            r = subprocess.run([a.promtool, 'check', 'rules', path], capture_output=True, text=True)
            if r.returncode != 0:
                fail('promtool check rules: ' + r.stdout + r.stderr)
        dash = json.loads(subprocess.run([os.path.join(a.bin, 'tern-monitor'), 'grafana'],
                                         capture_output=True, text=True, check=True).stdout)
        for p in dash['panels']:
            for t in p['targets']:
                for name in re.findall(r'\b(tern_[a-z0-9_]+)', t['expr']):
                    base = re.sub(r'_(bucket|sum|count)$', '', name)
                    if name not in exported and base not in exported:
                        fail('dashboard panel %r names %s, which /metrics does not export'
                             % (p['title'], name))
        for name in re.findall(r'\b(tern_[a-z0-9_]+)', out):
            # a port's counters are exported where a node has InfiniBand
            if name not in exported and not name.startswith('tern_node_infiniband_'):
                fail('an alert rule names %s, which /metrics does not export' % name)
        print('monitor alerts: ok')
    finally:
        if c is not None:
            c.stop()
        hook.shutdown()
        smtp.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
