#!/usr/bin/env python3
"""tern-monitor end to end on this machine (tests/monitor/CMakeLists.txt).

A 4-rank job with known point-to-point traffic publishes into a private
directory; a node agent sends it to a server every 0.2 s.  While rank 0
holds the job outside MPI, the server's JSON must show the job, each
rank's current call and a matrix whose cells are the bytes sent; /metrics
must pass promtool (when installed); frames without the token are refused.
After the job ends the server must call it finished.  Then a job started
with tern-run --monitor=SERVER must reach the server through the agent that
tern-run starts.  Prints 'monitor e2e: ok'.
"""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

from monlib import args, Cluster, fail, get, wait_for


def main():
    a = args()
    tmp = tempfile.mkdtemp(prefix='tern-mon-e2e-')
    c = None
    try:
        c = Cluster(a.bin, tmp)
        port, segs = c.port, c.segs
        go = os.path.join(tmp, 'go')
        job = c.job(a.prog, [go])

        def job_listed():
            _, body = get(port, '/api/jobs')
            jobs = [j for j in json.loads(body)['jobs'] if j['program'] == 'monitor_traffic']
            return jobs[0] if jobs and jobs[0]['ranks'] == 4 else None
        jid = wait_for('the job appears', job_listed)['id']

        def job_ready():
            _, body = get(port, '/api/job?id=' + urllib.request.quote(jid) + '&class=p2p')
            d = json.loads(body)
            calls = [r['call'] for r in d['ranks']]
            if calls[1:] != ['MPI_Barrier'] * 3 or not all(r['in_call'] for r in d['ranks'][1:]):
                return None
            return d if d['matrix']['cells'][0][1] > 0 else None
        d = wait_for('ranks 1-3 in MPI_Barrier and the matrix filled', job_ready)
        cells = d['matrix']['cells']
        for i in range(4):
            for j in range(4):
                want = (i + 1) * 1000 if j == (i + 1) % 4 else 0
                if cells[i][j] != want:
                    fail('p2p matrix cell %d->%d is %d, the job sent %d' % (i, j, cells[i][j], want))
        if d['nodes'] != ['e2e-node'] or d['state'] != 'running':
            fail('job facts: %r %r' % (d['nodes'], d['state']))
        hist = {h['le']: h['count'] for h in d['hist']}
        if hist.get('1024', 0) < 1 or hist.get('4096', 0) < 2:
            fail('size histogram %r misses the sends of 1000, 2000-4000 bytes' % hist)
        status, metrics = get(port, '/metrics')
        line = 'tern_job_ranks{jobid="%s"} 4' % jid
        if line not in metrics.splitlines():
            fail('/metrics lacks ' + line)
        if a.promtool:
            r = subprocess.run([a.promtool, 'check', 'metrics'], input=metrics, text=True,
                               capture_output=True)
            if r.returncode != 0:
                fail('promtool check metrics: ' + r.stdout + r.stderr)
        # the page is served from the binary, with its policy
        with urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=5) as r:
            page = r.read().decode()
            ctype = r.headers.get('Content-Type')
            csp = r.headers.get('Content-Security-Policy') or ''
        if ctype != 'text/html; charset=utf-8' or 'src="app.js"' not in page or \
                "default-src 'none'" not in csp:
            fail('GET / is not the page: %s, %r, %r' % (ctype, csp, page[:80]))
        if get(port, '/app.js')[0] != 200:
            fail('GET /app.js')
        # a frame without the token is refused
        req = urllib.request.Request('http://127.0.0.1:%d/api/v1/ingest' % port, data=b'TMW1',
                                     method='POST')
        try:
            urllib.request.urlopen(req, timeout=5)
            fail('a frame without the token was taken')
        except urllib.error.HTTPError as e:
            if e.code != 401:
                fail('a frame without the token: %d, not 401' % e.code)
        open(go, 'w').close()
        if job.wait(timeout=60) != 0:
            fail('the job failed')

        def finished():
            _, body = get(port, '/api/jobs')
            j = [x for x in json.loads(body)['jobs'] if x['id'] == jid][0]
            return j if j['state'] != 'running' else None
        j = wait_for('the server sees the job end', finished)
        if j['state'] != 'finished':
            fail('the job ended as %s' % j['state'])
        wait_for('the agent removes the lingering segments', lambda: not os.listdir(segs), 10)

        _, body = get(port, '/api/job?id=' + urllib.request.quote(jid))
        states = [r['state'] for r in json.loads(body)['ranks']]
        if states != ['exited'] * 4:
            fail('rank states at the end: %r' % states)
        # history: a server started again on the same database still has the
        # job, with its final matrix
        final = json.loads(get(port, '/api/job?id=' + urllib.request.quote(jid) + '&class=p2p')[1])
        c.stop_server()
        c.start_server()
        port = c.port
        _, body = get(port, '/api/jobs')
        old = [x for x in json.loads(body)['jobs'] if x['id'] == jid]
        if not old or old[0]['state'] != 'finished' or not old[0].get('stored'):
            fail('the restarted server does not list the finished job: %s' % body)
        _, body = get(port, '/api/job?id=' + urllib.request.quote(jid) + '&class=p2p')
        if json.loads(body)['matrix']['cells'] != final['matrix']['cells']:
            fail('the stored matrix differs from the final one: %s' % body)

        # tern-run --monitor=SERVER: the node agent comes with the job
        segs2 = os.path.join(tmp, 'segs2')
        os.mkdir(segs2)
        env = dict(os.environ, TERN_MONITOR_DIR=segs2, TERN_MONITOR_TOKEN_FILE=c.token)
        go2 = os.path.join(tmp, 'go2')
        open(go2, 'w').close()
        r = subprocess.run([os.path.join(a.bin, 'tern-run'), '--monitor=127.0.0.1:%d' % port,
                            '-n', '3', a.prog, go2], env=env)
        if r.returncode != 0:
            fail('the --monitor job failed')

        def second():
            _, body = get(port, '/api/jobs')
            jobs = [x for x in json.loads(body)['jobs'] if x['id'] != jid and x['ranks'] == 3]
            return jobs[0] if jobs and jobs[0]['state'] == 'finished' else None
        j2 = wait_for('the --monitor job reaches the server and ends', second, 30)
        if j2['bytes'] < 6000:
            fail('the --monitor job: %r' % j2)
        wait_for("tern-run's agent removes the segments and leaves",
                 lambda: os.listdir(segs2) in ([], ['tern-monitor-agent.%d.lock' % os.getuid()]), 20)
        print('monitor e2e: ok')
    finally:
        if c is not None:
            c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
