#!/usr/bin/env python3
"""ABI consistency checks for Tern (run by ctest as abi.consistency and
abi.bindings; every check can also be run by hand).

Default mode (abi.consistency):
  1. tools/abi/*.tsv are the same as the shared tables (--shared-abi), when
     that directory exists;
  2. include/mpi.h is what tools/abi/gen_mpi_h.py makes of the tables now;
  3. include/mpi.h declares no data objects, and every constant of
     constants.tsv has its exact type and value, checked by compiling and
     running a C11 program (--cc) and a C++11 program (--cxx), which also
     check MPI_Status's layout and that each PMPI_X has MPI_X's type;
  4. the built library (--lib, read with --nm) exports every MPI_X of
     functions.tsv as a weak symbol (W) and every PMPI_X as a strong one (T),
     and exports no data symbols.
A check whose input is not given (no --cc, no --lib, ...) is skipped, said so.

--bindings-selftest (abi.bindings): runs tools/abi/gen_bindings.py over a
small made-up src/mpi, compiles the output with warnings stricter than the
library's (unused parameters included), links it into a shared library and
checks its exports, so a generator bug shows even when src/ does not build.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT_DEFAULT = os.path.dirname(os.path.dirname(HERE))
TABLES = ('constants.tsv', 'functions.tsv', 'types.tsv')
# Symbols the linker defines in every shared library.
LINKER_SYMBOLS = {'_edata', '_end', '__bss_start', '_init', '_fini',
                  '__end__', '_DYNAMIC', '_GLOBAL_OFFSET_TABLE_'}
DATA_KINDS = set('BbDdGgRrSsVvCu')

failures = []


def fail(msg):
    failures.append(msg)
    sys.stdout.write('FAIL: %s\n' % msg)


def note(msg):
    sys.stdout.write('%s\n' % msg)


def read_rows(path, ncols):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            cols = [c.strip() for c in line.split('\t')]
            if len(cols) != ncols:
                raise SystemExit('%s: bad row %r' % (path, line))
            rows.append(cols)
    return rows


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


# ---------------------------------------------------------------- 1. tables

def check_tables(root, shared):
    if not shared or not os.path.isdir(shared):
        note('skip: shared ABI tables not found (%s)' % shared)
        return
    names = set(TABLES) | {n for n in os.listdir(shared) if n.endswith('.tsv')}
    for n in sorted(names):
        a = os.path.join(root, 'tools', 'abi', n)
        b = os.path.join(shared, n)
        if not os.path.exists(a) or not os.path.exists(b):
            fail('tables: %s missing in %s' % (n, os.path.dirname(a if not os.path.exists(a) else b)))
            continue
        with open(a, 'rb') as fa, open(b, 'rb') as fb:
            if fa.read() != fb.read():
                fail('tables: tools/abi/%s differs from %s' % (n, b))
    note('ok: tools/abi tables match %s' % shared)


# ---------------------------------------------------------------- 2. mpi.h

def check_header_current(root, tmp):
    out = os.path.join(tmp, 'mpi.h')
    rc, text = run([sys.executable, os.path.join(root, 'tools', 'abi', 'gen_mpi_h.py'),
                    '--abi', os.path.join(root, 'tools', 'abi'), '--out', out])
    if rc != 0:
        fail('mpi.h: gen_mpi_h.py failed:\n%s' % text)
        return
    with open(out, 'rb') as f:
        want = f.read()
    with open(os.path.join(root, 'include', 'mpi.h'), 'rb') as f:
        have = f.read()
    if want != have:
        fail('mpi.h: include/mpi.h is stale; run tools/abi/gen_mpi_h.py')
    else:
        note('ok: include/mpi.h is up to date')


def check_no_data_decls(root):
    bad = []
    with open(os.path.join(root, 'include', 'mpi.h'), encoding='utf-8') as f:
        for i, line in enumerate(f, 1):
            s = line.strip()
            if re.match(r'^extern\b(?!\s*"C")', s) or re.match(r'^(static|__thread|_Thread_local)\b', s):
                bad.append('%d: %s' % (i, s))
    if bad:
        fail('mpi.h: declares data or static objects:\n  ' + '\n  '.join(bad[:10]))
    else:
        note('ok: mpi.h declares no data objects')


# ---------------------------------------------------------------- 3. constants

def enumerators(root):
    names = set()
    for name, definition in read_rows(os.path.join(root, 'tools', 'abi', 'types.tsv'), 2):
        m = re.match(r'^enum\s+\w+\s*\{(.*)\}', definition)
        if m:
            names.update(re.findall(r'([A-Za-z_]\w*)\s*=', m.group(1)))
    return names


def resolved_constants(root):
    """[(name, type, value)] with aliases resolved to their target's."""
    rows = read_rows(os.path.join(root, 'tools', 'abi', 'constants.tsv'), 3)
    by = {}
    out = []
    for name, t, v in rows:
        if t == 'alias':
            t, v = by[v]
        by[name] = (t, v)
        out.append((name, t, v))
    return out


def c_type(t):
    m = re.match(r'^(.*?)\s*(\**)$', t)
    return m.group(1) + (' ' + m.group(2) if m.group(2) else '')


def make_c_check(root):
    enums = enumerators(root)
    funcs = [r[0] for r in read_rows(os.path.join(root, 'tools', 'abi', 'functions.tsv'), 3)]
    o = ['#include <mpi.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n\n']
    o.append('typedef char chk_status_size[sizeof(MPI_Status) == 32 ? 1 : -1];\n')
    o.append('typedef char chk_status_src[offsetof(MPI_Status, MPI_SOURCE) == 0 ? 1 : -1];\n')
    o.append('typedef char chk_status_tag[offsetof(MPI_Status, MPI_TAG) == 4 ? 1 : -1];\n')
    o.append('typedef char chk_status_err[offsetof(MPI_Status, MPI_ERROR) == 8 ? 1 : -1];\n')
    o.append('typedef char chk_aint[sizeof(MPI_Aint) == sizeof(void *) ? 1 : -1];\n')
    o.append('typedef char chk_count[sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8 ? 1 : -1];\n')
    o.append('typedef char chk_handle[sizeof(MPI_Comm) == sizeof(void *) ? 1 : -1];\n\n')
    for name, t, v in resolved_constants(root):
        if t == 'int' and name not in enums:
            o.append('#if !defined(%s) || !(%s == %s)\n#error "%s"\n#endif\n'
                     % (name, name, v, name))
    o.append('\nstruct chk { const char *name; int type_ok; int value_ok; };\n')
    o.append('static const struct chk chks[] = {\n')
    for name, t, v in resolved_constants(root):
        if t in ('int', 'MPI_Offset'):
            value = '(%s) == (%s)' % (name, v)
        else:
            value = '(uintptr_t)(%s) == (uintptr_t)(%s)' % (name, v)
        o.append('    {"%s", _Generic((%s), %s: 1, default: 0), %s},\n'
                 % (name, name, c_type(t), value))
    o.append('};\n\n')
    o.append('static int twins(void)\n{\n    int bad = 0;\n')
    for f in funcs:
        o.append('    bad += !_Generic(&P%s, __typeof__(&%s): 1, default: 0);\n' % (f, f))
    o.append('    return bad;\n}\n\n')
    o.append('int main(void)\n{\n    int bad = twins();\n    size_t i;\n'
             '    if (bad)\n        printf("%d PMPI_ twins differ in type\\n", bad);\n'
             '    for (i = 0; i < sizeof(chks) / sizeof(chks[0]); i++) {\n'
             '        if (!chks[i].type_ok)\n            printf("%s: wrong type\\n", chks[i].name), bad++;\n'
             '        if (!chks[i].value_ok)\n            printf("%s: wrong value\\n", chks[i].name), bad++;\n'
             '    }\n    printf("%u constants checked\\n", (unsigned)i);\n'
             '    return bad != 0;\n}\n')
    return ''.join(o)


def make_cxx_check(root):
    enums = enumerators(root)
    funcs = [r[0] for r in read_rows(os.path.join(root, 'tools', 'abi', 'functions.tsv'), 3)]
    o = ['#include <mpi.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <type_traits>\n\n']
    o.append('static_assert(sizeof(MPI_Status) == 32, "MPI_Status size");\n')
    for f in funcs:
        o.append('static_assert(std::is_same<decltype(%s), decltype(P%s)>::value, "%s");\n'
                 % (f, f, f))
    o.append('\nint main()\n{\n    int bad = 0;\n')
    for name, t, v in resolved_constants(root):
        if name in enums:
            o.append('    static_assert(std::is_enum<decltype(%s)>::value && %s == %s, "%s");\n'
                     % (name, name, v, name))
        elif t in ('int', 'MPI_Offset'):
            o.append('    static_assert(std::is_same<decltype(%s), %s>::value && %s == %s, "%s");\n'
                     % (name, c_type(t), name, v, name))
        else:
            o.append('    static_assert(std::is_same<decltype(%s), %s>::value, "%s");\n'
                     % (name, c_type(t), name))
            o.append('    if (reinterpret_cast<uintptr_t>(%s) != (uintptr_t)(%s)) { printf("%s: wrong value\\n"); bad++; }\n'
                     % (name, v, name))
    o.append('    return bad != 0;\n}\n')
    return ''.join(o)


def compile_and_run(what, compiler, flags, src_name, text, root, tmp):
    src = os.path.join(tmp, src_name)
    exe = os.path.join(tmp, src_name + '.exe')
    with open(src, 'w', encoding='utf-8') as f:
        f.write(text)
    cmd = [compiler] + flags + ['-I', os.path.join(root, 'include'), src, '-o', exe]
    rc, out = run(cmd)
    if rc != 0:
        fail('%s: compile failed: %s\n%s' % (what, ' '.join(cmd), out[-4000:]))
        return
    rc, out = run([exe])
    if rc != 0:
        fail('%s: check program failed:\n%s' % (what, out[-4000:]))
        return
    note('ok: %s (%s)' % (what, ' '.join([os.path.basename(compiler)] + flags)))


def check_constants(root, cc, cxx, tmp):
    if cc:
        compile_and_run('constants in C', cc,
                        ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic'],
                        'chk_constants.c', make_c_check(root), root, tmp)
    else:
        note('skip: constants in C (no --cc)')
    if cxx:
        compile_and_run('constants in C++', cxx,
                        ['-std=c++11', '-Wall', '-Wextra', '-Werror', '-pedantic'],
                        'chk_constants.cpp', make_cxx_check(root), root, tmp)
    else:
        note('skip: constants in C++ (no --cxx)')


# ---------------------------------------------------------------- 4. exports

def dynamic_symbols(nm, lib):
    rc, out = run([nm, '-D', '--defined-only', lib])
    if rc != 0:
        fail('exports: %s -D --defined-only %s failed:\n%s' % (nm, lib, out))
        return None
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[-2]) == 1:
            name = parts[-1].split('@')[0]
            syms[name] = parts[-2]
    return syms


def check_exports(root, lib, nm, funcs=None):
    if not lib:
        note('skip: library exports (no --lib)')
        return
    syms = dynamic_symbols(nm, lib)
    if syms is None:
        return
    if funcs is None:
        funcs = [r[0] for r in read_rows(os.path.join(root, 'tools', 'abi', 'functions.tsv'), 3)]
    bad = []
    for f in funcs:
        if syms.get(f) != 'W':
            bad.append('%s is %s, want W' % (f, syms.get(f, 'missing')))
        if syms.get('P' + f) != 'T':
            bad.append('P%s is %s, want T' % (f, syms.get('P' + f, 'missing')))
    if bad:
        fail('exports: %d wrong:\n  %s' % (len(bad), '\n  '.join(bad[:40])))
    data = sorted('%s %s' % (k, n) for n, k in syms.items()
                  if k in DATA_KINDS and n not in LINKER_SYMBOLS)
    if data:
        fail('exports: data symbols exported:\n  ' + '\n  '.join(data[:40]))
    known = set(funcs) | {'P' + f for f in funcs}
    other = sorted(n for n, k in syms.items()
                   if n not in known and n not in LINKER_SYMBOLS and k not in DATA_KINDS)
    if other:
        note('note: %d other exported symbols: %s' % (len(other), ' '.join(other[:20])))
    if not bad and not data:
        note('ok: %s exports %d MPI_ (W) and PMPI_ (T) functions, no data'
             % (os.path.basename(lib), len(funcs)))


# ---------------------------------------------------------------- bindings self-test

SELFTEST_SOURCES = {
    'p2p.c': r'''
#include "tn_mpi_protos.h"
/* int tn_mpi_Recv(void) { a comment does not count } */
int tn_mpi_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm)
{
    (void)buf; (void)count; (void)datatype; (void)dest; (void)tag; (void)comm;
    return 1234;
}
int tn_mpi_Barrier(MPI_Comm comm);
static int tn_mpi_helper(int x) { return x; }
double tn_mpi_Wtime(void) { return 42.0; }
MPI_Comm tn_mpi_Comm_fromint(int comm) { (void)comm; return MPI_COMM_SELF; }
int tn_mpi_Group_range_excl(MPI_Group group, int n, int (*ranges)[3],
                            MPI_Group *newgroup)
{
    (void)group; (void)n; (void)ranges; (void)newgroup;
    return tn_mpi_helper(0);
}
''',
    'sub/spawn.c': r'''
#include "tn_mpi_protos.h"
int tn_mpi_Comm_spawn_multiple(int count, char **array_of_commands,
    char ***array_of_argv, const int *array_of_maxprocs,
    const MPI_Info *array_of_info, int root, MPI_Comm comm,
    MPI_Comm *intercomm, int *array_of_errcodes)
{
    (void)count; (void)array_of_commands; (void)array_of_argv;
    (void)array_of_maxprocs; (void)array_of_info; (void)root; (void)comm;
    (void)intercomm; (void)array_of_errcodes;
    return 0;
}
''',
    'coll.c': r'''
#include <string.h>
#include "tn_mpi_protos.h"
/* One core behind MPI_Bcast, _c, MPI_Ibcast, _c, MPI_Bcast_init, _c: the
 * result tells which member called it and with what. */
int tn_mpi_family_Bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                        MPI_Comm comm, const tn_mpi_call_t *call)
{
    (void)buffer; (void)datatype; (void)root; (void)comm;
    if (strncmp(call->fn, "MPI_", 4) != 0 || strstr(call->fn, "cast") == NULL ||
        (strstr(call->fn, "_c") != NULL) != call->wide)
        return -1;
    if ((call->kind == TN_MPI_CALL_BLOCKING) != (call->req == NULL))
        return -2;
    if (call->kind == TN_MPI_CALL_PERSISTENT) {
        if (call->info != MPI_INFO_ENV)
            return -3;
    } else if (call->info != MPI_INFO_NULL) {
        return -3;
    }
    return (int)(1000 * call->kind + 100 * call->wide + count);
}
''',
    'unsupported.c': r'''
#include <mpi.h>
#include <stddef.h>
int tn_mpi_unsupported(const char *fn, int obj_kind, const void *obj);
extern const char *const tn_mpi_unsupported_names[];
extern const int tn_mpi_unsupported_count;
extern const int tn_mpi_function_count;
int tn_mpi_unsupported(const char *fn, int obj_kind, const void *obj)
{
    (void)fn; (void)obj_kind; (void)obj;
    return MPI_ERR_UNSUPPORTED_OPERATION;
}
int tn_selftest_check(void);
__attribute__((visibility("default"))) int tn_selftest_check(void)
{
    int n = 0;
    while (tn_mpi_unsupported_names[n] != NULL)
        n++;
    if (n != tn_mpi_unsupported_count || tn_mpi_function_count != @NFUNC@)
        return 1;
    if (MPI_Send(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD) != 1234)
        return 2;
    if (MPI_Wtime() != 42.0 || MPI_Comm_fromint(0) != MPI_COMM_SELF)
        return 3;
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_ERR_UNSUPPORTED_OPERATION)
        return 4;
    if (MPI_Type_fromint(0) != MPI_DATATYPE_NULL)
        return 5;
    if (MPI_Wtick() != 0.0 || MPI_Pcontrol(1, 2, 3) != MPI_SUCCESS)
        return 6;
    MPI_Request r;
    if (MPI_Bcast(NULL, 7, MPI_INT, 0, MPI_COMM_WORLD) != 7 ||
        MPI_Bcast_c(NULL, 8, MPI_INT, 0, MPI_COMM_WORLD) != 108 ||
        MPI_Ibcast(NULL, 9, MPI_INT, 0, MPI_COMM_WORLD, &r) != 1009 ||
        MPI_Ibcast_c(NULL, 10, MPI_INT, 0, MPI_COMM_WORLD, &r) != 1110 ||
        MPI_Bcast_init(NULL, 11, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_ENV, &r) != 2011 ||
        MPI_Bcast_init_c(NULL, 12, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_ENV, &r) != 2112)
        return 7;
    return 0;
}
''',
}

SELFTEST_MAIN = r'''
#include <stdio.h>
int tn_selftest_check(void);
int main(void)
{
    int rc = tn_selftest_check();
    if (rc)
        printf("selftest check %d failed\n", rc);
    return rc;
}
'''


def bindings_selftest(root, cc, nm, tmp):
    if not cc:
        fail('--bindings-selftest needs --cc')
        return
    src = os.path.join(tmp, 'src')
    gen = os.path.join(tmp, 'gen')
    gen_py = os.path.join(root, 'tools', 'abi', 'gen_bindings.py')
    table = os.path.join(root, 'tools', 'abi', 'functions.tsv')
    nfunc = len(read_rows(table, 3))
    for rel, text in SELFTEST_SOURCES.items():
        p = os.path.join(src, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w', encoding='utf-8') as f:
            f.write(text.replace('@NFUNC@', str(nfunc)))
    out_c = os.path.join(gen, 'mpi_bindings.c')
    rc, out = run([sys.executable, gen_py, '--abi', table, '--src', src, '--out', out_c,
                   '--header', os.path.join(gen, 'tn_mpi_protos.h')])
    if rc != 0:
        fail('bindings: generator failed:\n%s' % out)
        return
    with open(out_c, encoding='utf-8') as f:
        first = f.read()
    rc, out = run([sys.executable, gen_py, '--abi', table, '--src', src, '--list'])
    impl = sorted(l.split()[1] for l in out.splitlines() if l.startswith('implemented'))
    want = sorted(['MPI_Bcast', 'MPI_Bcast_c', 'MPI_Bcast_init', 'MPI_Bcast_init_c',
                   'MPI_Ibcast', 'MPI_Ibcast_c', 'MPI_Comm_fromint',
                   'MPI_Comm_spawn_multiple', 'MPI_Group_range_excl', 'MPI_Send',
                   'MPI_Wtime'])
    if impl != want:
        fail('bindings: scanner found %s, want %s' % (impl, want))
    # Deterministic: a second run gives the same bytes.
    out_c2 = os.path.join(gen, 'again.c')
    run([sys.executable, gen_py, '--abi', table, '--src', src, '--out', out_c2])
    with open(out_c2, encoding='utf-8') as f:
        if f.read() != first:
            fail('bindings: output differs between two runs')
    # A signature that differs from the table must be refused.
    bad = os.path.join(tmp, 'badsrc')
    os.makedirs(bad)
    with open(os.path.join(bad, 'bad.c'), 'w', encoding='utf-8') as f:
        f.write('int tn_mpi_Recv(void *buf, int count)\n{\n    return 0;\n}\n')
    rc, out = run([sys.executable, gen_py, '--abi', table, '--src', bad,
                   '--out', os.path.join(gen, 'bad.c')])
    if rc == 0:
        fail('bindings: a tn_mpi_Recv with the wrong signature was accepted')
    # So must a family core with the wrong signature, a family that does not
    # exist, and a member defined both alone and through its family.
    for i, text in enumerate([
            'int tn_mpi_family_Bcast(void *buf, int count, MPI_Datatype dt, int root,\n'
            '    MPI_Comm comm, const tn_mpi_call_t *call)\n{\n    return 0;\n}\n',
            'int tn_mpi_family_Wtime(const tn_mpi_call_t *call)\n{\n    return 0;\n}\n',
            'int tn_mpi_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,\n'
            '    MPI_Comm comm, MPI_Request *request)\n{\n    return 0;\n}\n'
            + SELFTEST_SOURCES['coll.c'].split('*/', 1)[1]]):
        with open(os.path.join(bad, 'bad.c'), 'w', encoding='utf-8') as f:
            f.write(text)
        rc, out = run([sys.executable, gen_py, '--abi', table, '--src', bad,
                       '--out', os.path.join(gen, 'bad.c')])
        if rc == 0 or 'family' not in out:
            fail('bindings: bad family definition %d was accepted:\n%s' % (i, out))

    flags = ['-std=gnu11', '-O1', '-fPIC', '-fvisibility=hidden', '-Wall', '-Wextra',
             '-Werror', '-Wshadow', '-Wstrict-prototypes', '-Wmissing-prototypes',
             '-I', os.path.join(root, 'include'), '-I', gen]
    objs = []
    for rel in sorted(SELFTEST_SOURCES) + ['../gen/mpi_bindings.c']:
        obj = os.path.join(tmp, 'o%d.o' % len(objs))
        rc, out = run([cc] + flags + ['-c', os.path.join(src, rel), '-o', obj])
        if rc != 0:
            fail('bindings: compiling %s failed:\n%s' % (rel, out[-4000:]))
            return
        objs.append(obj)
    lib = os.path.join(tmp, 'libmpi_abi.so')
    rc, out = run([cc, '-shared', '-Wl,--no-undefined', '-o', lib] + objs)
    if rc != 0:
        fail('bindings: linking failed:\n%s' % out[-4000:])
        return
    check_exports(root, lib, nm)
    main_c = os.path.join(tmp, 'main.c')
    with open(main_c, 'w', encoding='utf-8') as f:
        f.write(SELFTEST_MAIN)
    exe = os.path.join(tmp, 'selftest')
    rc, out = run([cc, main_c, '-o', exe, lib, '-Wl,-rpath,' + tmp])
    if rc != 0:
        fail('bindings: linking the test program failed:\n%s' % out)
        return
    rc, out = run([exe])
    if rc != 0:
        fail('bindings: calls through the generated entry points failed:\n%s' % out)
    else:
        note('ok: generated bindings compile with %s, link and forward' % ' '.join(flags[:12]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--source-dir', default=ROOT_DEFAULT)
    ap.add_argument('--shared-abi', help='directory of the shared ABI tables')
    ap.add_argument('--lib', help='the built libmpi_abi.so')
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--cc', help='C compiler for the constant checks')
    ap.add_argument('--cxx', help='C++ compiler for the constant checks')
    ap.add_argument('--bindings-selftest', action='store_true')
    ap.add_argument('--keep', action='store_true', help='keep the temporary directory')
    args = ap.parse_args()
    root = os.path.abspath(args.source_dir)
    tmp = tempfile.mkdtemp(prefix='tern-abi-')
    try:
        if args.bindings_selftest:
            bindings_selftest(root, args.cc, args.nm, tmp)
        else:
            check_tables(root, args.shared_abi)
            check_header_current(root, tmp)
            check_no_data_decls(root)
            check_constants(root, args.cc, args.cxx, tmp)
            check_exports(root, args.lib, args.nm)
    finally:
        if args.keep:
            note('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        note('%d check(s) failed' % len(failures))
        return 1
    note('all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
