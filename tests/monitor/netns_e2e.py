#!/usr/bin/env python3
"""tern-monitor across a 4-node namespace cluster (tests/monitor, root).

Run inside node 0's namespace (`ip netns exec PREFIX-n0 netns_e2e.py ...`),
where the server, a webhook receiver, an SMTP sink and a headless Chromium
live; an agent runs in each node's namespace and reads only its node's
ranks.  A 4-rank job (one rank a node) passes data around the ring while
nftables drops 5 % of the UDP datagrams node 1 sends to node 2.  Checked:
the page, read in Chromium, lists the job and shows a matrix whose cells
are the bytes the program sent and the n1 -> n2 rail marked bad; the
retransmission rule fires once, reaches the webhook receiver and the SMTP
sink, and resolves once the loss is removed while the job goes on.
Prints 'monitor netns: ok'.
"""
import argparse
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading

from monlib import fail, get, wait_for
from alerts import Hook, Smtp, serve

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools', 'tern-monitor', 'web'))
import check_page  # noqa: E402  (its DevTools client and Chromium start-up)

ROUNDS = 300                        # 64 KiB rounds of each phase


def nft_loss(ns, dst, percent):
    rule = ('table inet tnm_loss {\n chain out {\n  type filter hook output priority 0;\n'
            '  ip daddr %s meta l4proto udp numgen random mod 100 < %d drop\n }\n}\n' % (dst, percent))
    subprocess.run(['ip', 'netns', 'exec', ns, 'nft', '-f', '-'], input=rule, text=True, check=True)


def nft_noloss(ns):
    subprocess.run(['ip', 'netns', 'exec', ns, 'nft', 'delete', 'table', 'inet', 'tnm_loss'],
                   check=False, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--prog', required=True)
    ap.add_argument('--cluster', required=True)     # netns_cluster.sh
    ap.add_argument('--prefix', required=True)
    a = ap.parse_args()
    chromium = shutil.which('chromium') or shutil.which('chromium-browser')
    if chromium is None:
        fail('no chromium (scripts/deps.sh installs it)')
    nodes = ['%s-n%d' % (a.prefix, i) for i in range(4)]
    addr = [subprocess.run([a.cluster, 'addr', a.prefix, str(i)], capture_output=True, text=True,
                           check=True).stdout.strip() for i in range(4)]
    tmp = tempfile.mkdtemp(prefix='tern-mon-netns-')
    procs = []
    hook = serve(http.server.HTTPServer(('127.0.0.1', 0), Hook))
    smtp = serve(socketserver.ThreadingTCPServer(('127.0.0.1', 0), Smtp))
    browser = None
    try:
        mon = os.path.join(a.bin, 'tern-monitor')
        segs = os.path.join(tmp, 'segs')
        os.mkdir(segs)
        rules = os.path.join(tmp, 'rules')
        with open(rules, 'w') as f:
            f.write('TernRetransmissions window=3 hold=1\n')
        portf = os.path.join(tmp, 'port')
        token = os.path.join(tmp, 'token')
        with open(token, 'w') as f:
            f.write('netns-%d-secret\n' % os.getpid())
        procs.append(subprocess.Popen([
            mon, 'serve', '--listen', '%s:0' % addr[0], '--port-file', portf, '--rules', rules,
            '--token-file', token,
            '--db', os.path.join(tmp, 'monitor.db'),
            '--webhook', 'http://127.0.0.1:%d/hook' % hook.server_address[1],
            '--smtp', '127.0.0.1:%d' % smtp.server_address[1],
            '--mail-from', 'monitor@localhost', '--mail-to', 'ops@localhost']))
        port = int(wait_for('the server writes its port',
                            lambda: open(portf).read().strip() if os.path.exists(portf) else None))
        base = 'http://%s:%d' % (addr[0], port)

        def api(path):
            return json.loads(get_url(base + path))
        for ns in nodes:
            procs.append(subprocess.Popen(['ip', 'netns', 'exec', ns, mon, 'agent', '--server',
                                           '%s:%d' % (addr[0], port), '--token-file', token, '--node', ns, '--dir', segs,
                                           '--same-netns', '--reap', '--interval', '0.5']))
        nft_loss(nodes[1], addr[2], 5)
        mid, go = os.path.join(tmp, 'mid'), os.path.join(tmp, 'go')
        env = dict(os.environ, TERN_MONITOR='1', TERN_MONITOR_DIR=segs, TERN_MONITOR_LINGER='1')
        job = subprocess.Popen([os.path.join(a.bin, 'tern-run'), '--netns', ','.join(nodes), '-n', '4',
                                a.prog, go, str(ROUNDS), mid], env=env)
        procs.append(job)

        def listed():
            jobs = [j for j in api('/api/jobs')['jobs'] if j['program'] == 'monitor_traffic']
            return jobs[0] if jobs and jobs[0]['nodes'] == 4 else None
        jid = wait_for('the job appears with its 4 nodes', listed, 60)['id']

        # the page, in a real browser, open while the lossy phase runs: the
        # rail's retransmission rate is a recent window, so it must be read
        # before the job goes quiet at MIDDLE
        profile = os.path.join(tmp, 'chromium')
        browser, dt = check_page.start_chromium(chromium, profile)
        dt.call('Page.navigate', url=base + '/#/')
        dt.wait("document.querySelector('#jobs-table tr[data-job=\"%s\"]') !== null" % jid, 15)
        dt.call('Page.navigate', url=base + '/#/job/' + jid)
        dt.wait("document.querySelectorAll('#matrix-values [data-src]').length > 0", 30)

        # the lossy link fires the rule; the job then waits at MIDDLE
        def fired():
            return [b['alerts'][0] for b in Hook.bodies if b['status'] == 'firing' and
                    b['alerts'][0]['labels']['alertname'] == 'TernRetransmissions']
        al = wait_for('the retransmission alert reaches the webhook', fired, 90)[0]
        if (al['labels'].get('src'), al['labels'].get('dst')) != (nodes[1], nodes[2]):
            fail('the alert names %r -> %r, the loss is on %s -> %s'
                 % (al['labels'].get('src'), al['labels'].get('dst'), nodes[1], nodes[2]))
        bad = ("document.querySelector('.transport-cell[data-src=\"%s\"][data-dst=\"%s\"]"
               "[data-rail=\"0\"]')" % (nodes[1], nodes[2]))
        if not dt.wait(bad + " !== null && " + bad + ".getAttribute('data-state') !== 'ok'", 30):
            fail('the page does not mark the lossy rail %s -> %s' % (nodes[1], nodes[2]))
        wait_for('the alert reaches the SMTP sink',
                 lambda: [m for m in Smtp.mails if 'FIRING TernRetransmissions' in m], 30)

        # the page's matrix once the first phase is over
        def phase_done():
            d = api('/api/job?id=%s&class=p2p' % jid)
            want = [[((i + 1) * 1000 + ROUNDS * 65536) if j == (i + 1) % 4 else 0
                     for j in range(4)] for i in range(4)]
            return d if d['matrix']['cells'] == want else None
        wait_for('the first phase ends and its bytes reach the server', phase_done, 120)
        dt.eval("(function(){var s=document.querySelector('select[data-sel=\"class\"]');"
                "if(s){s.value='p2p';s.dispatchEvent(new Event('change'));}})()")
        for i in range(4):
            j = (i + 1) % 4
            want = (i + 1) * 1000 + ROUNDS * 65536
            expr = ("(function(){var c=document.querySelector('#matrix-values [data-src=\"%d\"]"
                    "[data-dst=\"%d\"]');return c?c.textContent.replace(/[^0-9]/g,''):null;})()" % (i, j))
            got = dt.wait(expr + " == '%d'" % want, 15) and dt.eval(expr)
            if got != str(want):
                fail('the page shows %r for %d -> %d, the program sent %d' % (got, i, j, want))
        shot = os.environ.get('TERN_MONITOR_SHOT')
        if shot:
            png = dt.call('Page.captureScreenshot')['data']
            import base64
            with open(shot, 'wb') as f:
                f.write(base64.b64decode(png))

        # loss removed, traffic goes on: the alert resolves
        nft_noloss(nodes[1])
        open(mid, 'w').close()

        def resolved():
            return [b for b in Hook.bodies if b['status'] == 'resolved' and
                    b['alerts'][0]['labels']['alertname'] == 'TernRetransmissions']
        wait_for('the alert resolves once the loss stops', resolved, 90)
        wait_for('the resolution reaches the SMTP sink',
                 lambda: [m for m in Smtp.mails if 'RESOLVED TernRetransmissions' in m], 30)
        firing = [b for b in Hook.bodies if b['status'] == 'firing' and
                  b['alerts'][0]['labels']['alertname'] == 'TernRetransmissions' and
                  b['alerts'][0]['labels']['src'] == nodes[1] and
                  b['alerts'][0]['labels']['dst'] == nodes[2]]
        if len(firing) != 1:
            fail('the lossy link fired %d times' % len(firing))
        open(go, 'w').close()
        if job.wait(timeout=120) != 0:
            fail('the job failed')
        wait_for('the job ends as finished',
                 lambda: [j for j in api('/api/jobs')['jobs'] if j['id'] == jid and
                          j['state'] == 'finished'], 30)
        print('monitor netns: ok')
    finally:
        nft_noloss(nodes[1])
        if browser is not None:
            browser.kill()
            browser.wait()
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        hook.shutdown()
        smtp.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


def get_url(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.read().decode()


if __name__ == '__main__':
    main()
