#!/usr/bin/env python3
"""tern-monitor with InfiniBand ports and a busy interface (tests/monitor).

This machine has no InfiniBand, so the agent reads a fake /sys and /proc
(--sysroot) laid out as the kernel does: an Ethernet interface of 1 Gb/s
and an InfiniBand port with its counters.  Checked: /metrics carries the
port's counters (data in bytes, 4 per word) and the interface's, the node's
JSON lists the port, and when the port's symbol errors grow the
InfiniBand rule fires; when the interface's traffic passes 95 % of its
speed the saturation rule fires.  Prints 'monitor ib: ok'.
"""
import json
import os
import shutil
import tempfile
import time

from monlib import Cluster, args, fail, get, wait_for

IB_CTRS = ['port_xmit_data', 'port_rcv_data', 'port_xmit_packets', 'port_rcv_packets',
           'symbol_error', 'link_error_recovery', 'link_downed', 'port_rcv_errors',
           'port_xmit_discards', 'port_xmit_wait', 'excessive_buffer_overrun_errors',
           'local_link_integrity_errors']
IF_CTRS = ['rx_bytes', 'tx_bytes', 'rx_packets', 'tx_packets', 'rx_errors', 'tx_errors',
           'rx_dropped', 'tx_dropped', 'rx_crc_errors', 'collisions']
SNMP = ('Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors\n'
        'Udp: 10 0 0 10 0 0 0\n')


def put(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.new'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)               # the agent never reads half a file


def main():
    a = args()
    tmp = tempfile.mkdtemp(prefix='tern-mon-ib-')
    c = None
    try:
        root = os.path.join(tmp, 'root')
        port = 'sys/class/infiniband/mlx5_0/ports/1/'
        put(root, port + 'state', '4: ACTIVE\n')
        put(root, port + 'rate', '100 Gb/sec (4X EDR)\n')
        for name in IB_CTRS:
            put(root, port + 'counters/' + name, '1000\n' if name == 'port_xmit_data' else '0\n')
        eth = 'sys/class/net/eth0/'
        for k, v in (('type', '1'), ('ifindex', '2'), ('mtu', '1500'), ('operstate', 'up'),
                     ('speed', '1000')):
            put(root, eth + k, v + '\n')
        for name in IF_CTRS:
            put(root, eth + 'statistics/' + name, '0\n')
        put(root, 'proc/net/snmp', SNMP)
        rules = os.path.join(tmp, 'rules')
        with open(rules, 'w') as f:
            f.write('TernInfinibandErrors window=2\nTernLinkSaturated hold=1\n')
        c = Cluster(a.bin, tmp, ['--rules', rules])
        # a second agent, for the fake node (the first one watches this machine)
        mon = os.path.join(a.bin, 'tern-monitor')
        c.start([mon, 'agent', '--server', '127.0.0.1:%d' % c.port, '--token-file', c.token,
                 '--dir', c.segs, '--interval', '0.5', '--node', 'ibnode', '--sysroot', root])

        def ported():
            _, m = get(c.port, '/metrics')
            want = ('tern_node_infiniband_port_xmit_data_bytes_total{node="ibnode",device="mlx5_0",'
                    'port="1"} 4000')
            return want in m.splitlines()
        wait_for('/metrics carries the port (data counted in bytes)', ported, 20)
        _, body = get(c.port, '/api/node?name=ibnode')
        node = json.loads(body)
        if [(p['device'], p['port'], p['state']) for p in node['ib']] != [('mlx5_0', 1, 'active')]:
            fail('/api/node lists %r' % node['ib'])
        # symbol errors grow: the rule fires
        time.sleep(1.5)
        put(root, port + 'counters/symbol_error', '7\n')

        def fired(rule):
            _, b = get(c.port, '/api/alerts')
            return [x for x in json.loads(b)['alerts'] if x['rule'] == rule and x['state'] == 'firing']
        al = wait_for('the InfiniBand rule fires', lambda: fired('TernInfinibandErrors'), 20)[0]
        if 'mlx5_0 port 1 on ibnode' not in al['target']:
            fail('the alert names %r' % al['target'])
        # the interface passes 95 % of 1 Gb/s (125 MB/s): about 124 MB a half second
        rx = 0
        end = time.time() + 20
        while time.time() < end and not fired('TernLinkSaturated'):
            rx += 62 * 1000 * 1000
            put(root, eth + 'statistics/rx_bytes', '%d\n' % rx)
            time.sleep(0.5)
        al = fired('TernLinkSaturated')
        if not al or 'eth0 on ibnode' not in al[0]['target']:
            fail('the saturation rule did not fire for eth0 on ibnode: %r' % al)
        print('monitor ib: ok')
    finally:
        if c is not None:
            c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
