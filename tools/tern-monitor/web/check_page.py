#!/usr/bin/env python3
"""Check tern-monitor's page in a real browser, against mock_api.py.

    python3 tools/tern-monitor/web/check_page.py [--chromium PATH] [--shots DIR]

Starts the mock server and a headless Chromium, drives the page through
the DevTools protocol and checks what tests and users rely on: the element
ids and data attributes (#jobs-table rows, the #matrix canvas and its
#matrix-values mirror, .transport-cell states, #alerts-table rows), that
the matrix's tooltip names the cell under the pointer, that the selectors
change the query, that API text stays text (a program named like an HTML
tag), that a failing endpoint shows the banner and not a blank page, and
that nothing logs an error or breaks the content security policy the mock
sends.  --shots DIR also saves a screenshot of every page.

Exit status 0 when every check held, 1 otherwise, 77 when no Chromium is
installed (a skip).  Python's standard library only; nothing but loopback.
"""
import argparse
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, flush=True)
    return cond


# ---------------------------------------------------------------- DevTools

class DevTools:
    """The smallest WebSocket client that talks to one DevTools target."""

    def __init__(self, ws_url):
        u = urlsplit(ws_url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((
            "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (u.path, u.hostname, u.port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("DevTools refused the WebSocket: %r" % head[:200])
        self.next_id = 0
        self.events = []

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            buf += chunk
        return buf

    def _send(self, text):
        data = text.encode()
        head = bytearray([0x81])
        if len(data) < 126:
            head.append(0x80 | len(data))
        elif len(data) < 65536:
            head.append(0x80 | 126)
            head += struct.pack(">H", len(data))
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", len(data))
        mask = os.urandom(4)
        self.sock.sendall(bytes(head) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0, 1, 2):
                message += payload
                if b0 & 0x80:
                    return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self._send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            m = self._recv()
            if m.get("id") == my_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def eval(self, expr):
        """The value of a JavaScript expression (awaited when a promise)."""
        r = self.call("Runtime.evaluate", expression=expr, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def wait(self, expr, timeout=8.0):
        """Poll until expr is truthy; its value, or None after timeout."""
        end = time.time() + timeout
        while time.time() < end:
            v = self.eval(expr)
            if v:
                return v
            time.sleep(0.1)
        return None

    def errors(self):
        """Console errors, exceptions and security reports since last asked."""
        out = []
        for m in self.events:
            meth = m.get("method")
            p = m.get("params", {})
            if meth == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif meth == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append("console.error: " + json.dumps(p.get("args", []))[:300])
            elif meth == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: " + p["entry"].get("text", ""))
        self.events = []
        return out


# ---------------------------------------------------------------- set-up

def start_mock(extra):
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "mock_api.py"), "--port", "0"] + extra,
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if "http://127.0.0.1:" not in line:
        p.kill()
        raise RuntimeError("mock_api.py did not start: %r" % line)
    return p, line.strip().split("http://127.0.0.1:")[1].rstrip("/")


def start_chromium(exe, profile):
    p = subprocess.Popen([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--no-first-run", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                          "--user-data-dir=" + profile, "--window-size=1400,1000", "about:blank"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = os.path.join(profile, "DevToolsActivePort")
    end = time.time() + 30
    while time.time() < end and not os.path.exists(port_file):
        time.sleep(0.1)
    with open(port_file) as f:
        port = int(f.readline())
    with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10) as r:
        pages = [t for t in json.load(r) if t.get("type") == "page"]
    return p, DevTools(pages[0]["webSocketDebuggerUrl"])


def goto(dt, base, route, shots, name):
    dt.call("Page.navigate", url="http://127.0.0.1:%s/%s" % (base, route))
    dt.wait("document.readyState === 'complete'")


def shot(dt, shots, name):
    if not shots:
        return
    # the whole page, however tall
    h = dt.eval("document.documentElement.scrollHeight")
    dt.call("Emulation.setDeviceMetricsOverride", width=1400, height=max(1000, h), deviceScaleFactor=1,
            mobile=False)
    time.sleep(0.3)
    data = dt.call("Page.captureScreenshot", format="png")["data"]
    with open(os.path.join(shots, name + ".png"), "wb") as f:
        f.write(base64.b64decode(data))
    dt.call("Emulation.clearDeviceMetricsOverride")


# ---------------------------------------------------------------- checks

JOB = "tern-4242-a1b2c3"


def check_jobs(dt):
    n = dt.wait("document.querySelectorAll('#jobs-table tbody tr[data-job]').length")
    check(n == 5, "#jobs-table has 5 job rows (got %r)" % n)
    prog = dt.eval("document.querySelector('#jobs-table tr[data-job=\"tern-100-html\"] td:nth-child(2)').textContent")
    check(prog == "<img src=x onerror=alert(1)>", "a program named like a tag shows as text (%r)" % prog)
    check(dt.eval("document.querySelectorAll('#view img').length") == 0, "no element made of API text")
    check(dt.wait("document.getElementById('alert-count').textContent === '2'"), "the top bar counts 2 firing alerts")
    href = dt.eval("document.querySelector('#jobs-table tr[data-job=\"%s\"] a').getAttribute('href')" % JOB)
    check(href == "#/job/" + JOB, "a job's row links to its page (%r)" % href)


def cell(dt, src, dst):
    return dt.eval("(() => { const c = document.querySelector('#matrix-values td[data-src=\"%s\"][data-dst=\"%s\"]');"
                   " return c ? Number(c.textContent) : null; })()" % (src, dst))


def check_job(dt):
    n = dt.wait("document.querySelectorAll('#matrix-values td').length")
    check(n == 16, "#matrix-values mirrors 4 x 4 cells (got %r)" % n)
    check(dt.eval("document.getElementById('matrix') instanceof HTMLCanvasElement"), "#matrix is a canvas")
    v01 = cell(dt, "0", "1")
    check(v01 is not None and v01 > 1e8, "cell 0 -> 1 holds the bytes (%r)" % v01)
    check(cell(dt, "2", "2") == 0, "the diagonal is 0")

    # the tooltip names the cell under the pointer
    x, y = dt.eval("(() => { const c = document.getElementById('matrix'); const r = c.getBoundingClientRect();"
                   " const s = Number(c.dataset.cell);"
                   " return [r.left + Number(c.dataset.left) + 1.5 * s, r.top + Number(c.dataset.top) + 0.5 * s]; })()")
    dt.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
    tip = dt.wait("!document.getElementById('tooltip').hidden && document.getElementById('tooltip').textContent")
    check(tip is not None and tip.startswith("0 -> 1: ") and "MiB" in tip,
          "hovering cell (0, 1) shows '0 -> 1: value' (%r)" % tip)
    dt.call("Input.dispatchMouseEvent", type="mouseMoved", x=2, y=2)

    # a selector changes the query: messages are far fewer than bytes
    dt.eval("(() => { const s = document.querySelector('select[data-sel=\"what\"]'); s.value = 'msgs';"
            " s.dispatchEvent(new Event('change')); })()")
    check(dt.wait("location.hash.includes('what=msgs')"), "the choice is kept in the URL")
    m01 = dt.wait("(() => { const c = document.querySelector('#matrix-values td[data-src=\"0\"][data-dst=\"1\"]');"
                  " const v = c ? Number(c.textContent) : 0; return v > 0 && v < %r ? v : null; })()" % (v01 / 100))
    check(m01 is not None, "choosing messages redraws the matrix with counts (%r)" % m01)

    states = dt.eval("Array.from(document.querySelectorAll('.transport-cell')).map(c =>"
                     " [c.dataset.src, c.dataset.dst, c.dataset.rail, c.dataset.state])")
    want = {("n0", "n1", "0"): "ok", ("n0", "n1", "1"): "bad", ("n1", "n0", "0"): "ok", ("n1", "n0", "1"): "warn"}
    got = {tuple(s[:3]): s[3] for s in states or []}
    check(got == want, "transport cells and their states (%r)" % got)
    tip = dt.eval("document.querySelector('.transport-cell[data-rail=\"1\"][data-src=\"n0\"]').title")
    check("RTT" in tip and "errors 3" in tip, "a transport cell's tooltip has RTT and errors (%r)" % tip)
    check(dt.eval("Array.from(document.querySelectorAll('#ranks-table tr.stuck')).map(r => r.dataset.rank)") == ["3"],
          "rank 3, 95 s in MPI_Recv, is highlighted as stuck")
    check(dt.eval("document.querySelectorAll('.hist svg rect.barrect').length") == 25, "25 size buckets drawn")
    check(dt.eval("document.querySelectorAll('.barlist .name').length") == 9, "9 MPI functions listed")


def check_big_job(dt):
    n = dt.wait("document.querySelectorAll('#matrix-values td').length")
    check(n == 64, "a node-level matrix of 8 nodes mirrors 64 cells (got %r)" % n)
    check(cell(dt, "node000", "node001") not in (None, 0), "node-level cells are labelled by node")
    check(dt.eval("document.querySelectorAll('#ranks-table tbody tr').length") == 256, "256 ranks listed")
    # a refresh keeps where the reader is: the page and the ranks' box
    dt.eval("document.querySelector('.ranks-box').scrollTop = 300; window.scrollTo(0, 700);"
            " document.getElementById('updated').textContent = ''")
    check(dt.wait("document.getElementById('updated').textContent !== ''", 5), "the page refreshes")
    pos = dt.eval("[document.querySelector('.ranks-box').scrollTop, window.scrollY]")
    check(pos == [300, 700], "a refresh keeps the scroll positions (%r)" % pos)


def check_wide_job(dt):
    # 512 ranks: the mirror keeps only the nonzero cells (six neighbours each, fewer at the faces)
    n = dt.wait("document.querySelectorAll('#matrix-values td').length")
    check(n == 2688, "a 512-rank halo mirrors its 2688 nonzero cells (got %r)" % n)
    check(cell(dt, "0", "1") > 0 and cell(dt, "0", "8") > 0 and cell(dt, "0", "64") > 0, "a rank's neighbours")
    check(dt.eval("document.getElementById('matrix').width") >= 512, "at least a pixel per rank")
    cells = dt.eval("Array.from(document.querySelectorAll('.transport-cell')).map(c => c.dataset.src + '>' + c.dataset.dst)")
    check(cells == ["wide03>wide04", "wide09>wide02"], "of 240 node pairs only the two in trouble, worst first (%r)" % cells)
    check(dt.eval("document.querySelector('.view-job').textContent.includes('238 more node pairs not shown')"),
          "the page says how many pairs it leaves out")


def check_failed_job(dt):
    dead = dt.wait("Array.from(document.querySelectorAll('#ranks-table tr.dead')).map(r => r.dataset.rank)")
    check(dead == ["5"], "the dead rank is marked (%r)" % dead)


def check_node(dt):
    n = dt.wait("document.querySelectorAll('#nics-table tbody tr').length")
    check(n == 4, "node n0 lists 4 NICs (got %r)" % n)
    check(dt.eval("document.querySelectorAll('#nics-table .util .bar').length") == 2,
          "utilisation bars only where the speed is known")
    check(dt.eval("document.querySelectorAll('#nics-table svg.spark polyline').length") == 8, "a sparkline per NIC and way")


def check_network(dt):
    n = dt.wait("document.querySelectorAll('.netmap a.node').length")
    check(n == 17, "17 nodes drawn (got %r)" % n)
    check(dt.eval("document.querySelectorAll('.netmap g.switch').length") == 4, "3 switches and the unplaced group")
    check(dt.eval("document.querySelectorAll('.netmap path.link[data-state=\"bad\"]').length") == 1, "one bad link")
    rows = dt.eval("Array.from(document.querySelectorAll('#links-table tbody tr')).map(r =>"
                   " [r.dataset.a, r.dataset.b, r.dataset.state, r.lastChild.textContent])")
    check(rows is not None and len(rows) == 16, "16 node pairs, one row each (%r)" % (rows and len(rows)))
    check(rows is not None and rows[0] == ["n0", "n1", "bad", "0, 1"],
          "both directions and rails of n0-n1 merged, worst first (%r)" % (rows and rows[0]))
    check(dt.eval("document.querySelectorAll('.netmap path.link').length") == 16, "one line per pair")
    check(dt.eval("document.querySelector('.netmap a.node[data-node=\"n0\"]').getAttribute('href')") == "#/node/n0",
          "a node links to its page")


def check_alerts(dt):
    rows = dt.wait("(() => { const r = Array.from(document.querySelectorAll('#alerts-table tbody tr'));"
                   " return r.length ? r.map(x => [x.dataset.rule, x.dataset.state]) : null; })()")
    check(rows is not None and [r[1] for r in rows] == ["firing", "firing", "resolved", "resolved"],
          "alerts: firing first (%r)" % rows)
    check(rows is not None and rows[0][0] == "udp_retransmissions", "the critical one leads")
    msg = dt.eval("document.querySelector('#alerts-table tr[data-rule=\"agent_down\"] td:last-child').textContent")
    check(msg.startswith("<b>"), "an alert's message stays text (%r)" % msg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser")
                    or shutil.which("google-chrome"))
    ap.add_argument("--shots", help="save a screenshot of every page in this folder")
    a = ap.parse_args()
    if not a.chromium:
        print("check_page.py: no Chromium installed; skipped")
        return 77
    if a.shots:
        os.makedirs(a.shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="tern-check-page.")
    mock, port = start_mock([])
    browser = None
    try:
        browser, dt = start_chromium(a.chromium, profile)
        for domain in ("Page", "Runtime", "Log"):
            dt.call(domain + ".enable")
        pages = [("jobs", "#/", check_jobs), ("job", "#/job/" + JOB, check_job),
                 ("job-big", "#/job/tern-777-big", check_big_job),
                 ("job-wide", "#/job/tern-31337-wide", check_wide_job),
                 ("job-failed", "#/job/tern-99-fail", check_failed_job),
                 ("node", "#/node/n0", check_node), ("network", "#/network", check_network),
                 ("alerts", "#/alerts", check_alerts)]
        for name, route, fn in pages:
            goto(dt, port, route, a.shots, name)
            fn(dt)
            time.sleep(2.5)   # one refresh round too
            shot(dt, a.shots, name)
            errs = dt.errors()
            check(not errs, "%s: no errors in the console (%s)" % (name, "; ".join(errs)))

        goto(dt, port, "#/no/such/page", a.shots, "notfound")
        check(dt.wait("document.querySelector('#view h1').textContent === 'No such page'"), "an unknown route says so")
        dt.errors()

        # a server without alert rules: no count, no banner
        mock.terminate()
        mock.wait()
        mock, port = start_mock(["--no-alerts"])
        goto(dt, port, "#/", a.shots, "no-alerts")
        check(dt.wait("document.querySelectorAll('#jobs-table tbody tr').length"), "the jobs load")
        check(dt.wait("document.getElementById('alert-count').textContent === '–'"), "no alert count")
        check(dt.eval("document.getElementById('banner').hidden"), "and no banner for it")
        dt.errors()

        # a failing endpoint: the banner says why, the page is not blank
        mock.terminate()
        mock.wait()
        mock, port = start_mock(["--fail", "/api/jobs"])
        goto(dt, port, "#/", a.shots, "failing")
        text = dt.wait("!document.getElementById('banner').hidden && document.getElementById('banner').textContent")
        check(text is not None and "HTTP 500" in text, "a failing /api/jobs shows the banner (%r)" % text)
        check(dt.wait("document.getElementById('view').textContent.includes('No data: api/jobs: HTTP 500')"),
              "the view says why it has no data")
        shot(dt, a.shots, "failing")
    finally:
        if browser:
            browser.terminate()
            browser.wait()
        mock.terminate()
        mock.wait()
        shutil.rmtree(profile, ignore_errors=True)
    print("check_page.py: %s" % ("ok" if failures == 0 else "%d failures" % failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
