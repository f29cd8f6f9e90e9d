#!/usr/bin/env python3
"""Generate include/mpi.h from the MPI-5.0 standard ABI tables.

Inputs (default directory: the one holding this script, override with --abi):
  types.tsv      name<TAB>definition        (typedefs, in dependency order)
  constants.tsv  name<TAB>type<TAB>value    ('alias' rows name another constant)
  functions.tsv  name<TAB>return<TAB>params (each also gets a PMPI_ twin)

Output (default: include/mpi.h of the repository, override with --out, '-' for
stdout). The output is deterministic: the same tables give the same bytes; an
output file already holding them is left untouched. TERN_VERSION_* come from
project(... VERSION x.y.z) of the top-level CMakeLists.txt (or --tern-version).

The header holds types, macros and prototypes only: no extern data symbols.
Every constant is a macro with the table's exact value and type; integer
handle values are spelled as plain casts (`((MPI_Comm)0x00000101)`), which are
valid integer-to-pointer casts in C and C++ and draw no warning from gcc or
clang because the operand is an integer constant expression.
"""

import argparse
import os
import re
import sys

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(SCRIPT_DIR))

IDENT = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
INT_VALUE = re.compile(r'^-?(0[xX][0-9a-fA-F]+|[0-9]+)$')


class AbiError(Exception):
    pass


def read_tsv(path, ncols):
    """Rows of a table: comment lines (#) and blank lines are skipped."""
    rows = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip('\n').rstrip('\r')
            if not line.strip() or line.startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) != ncols:
                raise AbiError('%s:%d: expected %d columns, got %d'
                               % (path, lineno, ncols, len(cols)))
            rows.append([c.strip() for c in cols])
    return rows


def tern_version(cmake_lists):
    """(major, minor, patch) from project(... VERSION x.y.z ...)."""
    with open(cmake_lists, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'project\s*\([^)]*\bVERSION\s+(\d+)\.(\d+)\.(\d+)', text)
    if not m:
        raise AbiError('%s: no project(... VERSION x.y.z)' % cmake_lists)
    return tuple(int(x) for x in m.groups())


# ---------------------------------------------------------------- types

def parse_types(rows):
    """Returns (typedef lines, set of type names, {enumerator: value})."""
    lines = []
    names = set()
    enumerators = {}
    for name, definition in rows:
        if not IDENT.match(name):
            raise AbiError('types.tsv: bad type name %r' % name)
        # The definition must declare exactly `name`: it ends with it, or
        # (function types) it starts with `ret (name)(`.
        if not (re.search(r'\b%s$' % re.escape(name), definition)
                or re.search(r'\(\s*%s\s*\)\s*\(' % re.escape(name), definition)):
            raise AbiError('types.tsv: definition of %s does not declare it: %s'
                           % (name, definition))
        m = re.match(r'^enum\s+\w+\s*\{(.*)\}\s*%s$' % re.escape(name), definition)
        if m:
            for item in m.group(1).split(','):
                item = item.strip()
                if not item:
                    continue
                em = re.match(r'^([A-Za-z_]\w*)\s*=\s*(\S+)$', item)
                if not em:
                    raise AbiError('types.tsv: enumerator of %s not in the form '
                                   'NAME = VALUE: %r' % (name, item))
                enumerators[em.group(1)] = em.group(2)
        lines.append('typedef %s;' % definition)
        names.add(name)
    return lines, names, enumerators


# ---------------------------------------------------------------- constants

def c_type(t):
    """Spell a table type as C: 'char***' -> 'char ***'."""
    m = re.match(r'^([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\**)$', t)
    if not m:
        raise AbiError('constants.tsv: cannot read type %r' % t)
    base, stars = m.group(1), m.group(2)
    return base + (' ' + stars if stars else '')


def int_value(v, where):
    if not INT_VALUE.match(v):
        raise AbiError('%s: value %r is not an integer literal' % (where, v))
    return int(v, 0)


def parse_constants(rows, type_names, enumerators):
    """Returns the list of '#define' lines (blank line between groups)."""
    lines = []
    defined = set()
    prev_group = None
    for name, ctype, value in rows:
        where = 'constants.tsv: %s' % name
        if not IDENT.match(name):
            raise AbiError('%s: bad name' % where)
        if name in defined:
            raise AbiError('%s: defined twice' % where)
        if ctype == 'alias':
            if value not in defined:
                raise AbiError('%s: alias of %r, which is not defined before it'
                               % (where, value))
            lines.append('#define %s %s' % (name, value))
            defined.add(name)
            continue

        group = 'pointer' if ctype.endswith('*') else ctype
        if prev_group is not None and group != prev_group:
            lines.append('')
        prev_group = group

        if name in enumerators:
            # Declared by an enum of types.tsv; a macro with the bare value
            # would break the enum declaration and, in C++, lose the enum
            # type. The self-referential macro keeps #ifdef working.
            if int_value(value, where) != int_value(enumerators[name], where):
                raise AbiError('%s: value %s differs from the enumerator in '
                               'types.tsv (%s)' % (where, value, enumerators[name]))
            if ctype != 'int':
                raise AbiError('%s: enumerator constant must have type int' % where)
            lines.append('#define %s %s' % (name, name))
        elif ctype == 'int':
            n = int_value(value, where)
            lines.append('#define %s %s' % (name, value if n >= 0 else '(%s)' % value))
        else:
            base = ctype.rstrip('*').strip()
            if base not in type_names and base not in ('void', 'char', 'int'):
                raise AbiError('%s: unknown type %r' % (where, ctype))
            int_value(value, where)
            lines.append('#define %s ((%s)%s)' % (name, c_type(ctype), value))
        defined.add(name)
    return lines


# ---------------------------------------------------------------- functions

C_BASE_TYPES = {'void', 'int', 'char', 'double'}


def split_params(params):
    if params == 'void':
        return []
    return [p.strip() for p in params.split(',')]


def check_param_types(name, ret, params, type_names):
    known = C_BASE_TYPES | type_names
    words = re.findall(r'[A-Za-z_]\w*', ret)
    for p in split_params(params):
        if p == '...':
            continue
        p = re.sub(r'(\[[^]]*\])+$', '', p)
        toks = re.findall(r'[A-Za-z_]\w*', p)
        if len(toks) < 2:
            raise AbiError('functions.tsv: %s: parameter without a name: %r' % (name, p))
        words += toks[:-1]
    for w in words:
        if w not in known and w != 'const':
            raise AbiError('functions.tsv: %s: unknown type word %r' % (name, w))


def parse_functions(rows, type_names):
    protos = []
    seen = set()
    for name, ret, params in rows:
        if not name.startswith('MPI_') or not IDENT.match(name):
            raise AbiError('functions.tsv: bad function name %r' % name)
        if name in seen:
            raise AbiError('functions.tsv: %s listed twice' % name)
        seen.add(name)
        check_param_types(name, ret, params, type_names)
        protos.append((name, ret, params))
    return protos


# ---------------------------------------------------------------- output

HEADER_TOP = """\
/*
 * mpi.h: Tern's MPI interface, the MPI-5.0 standard ABI (ABI version {abi}).
 *
 * Generated by tools/abi/gen_mpi_h.py from tools/abi/types.tsv,
 * tools/abi/constants.tsv and tools/abi/functions.tsv. Do not edit: change
 * the tables or the generator and run it again.
 *
 * Handles are pointers to incomplete structs; predefined handles and other
 * constants are macros with the values fixed by the standard ABI, so a
 * program built against this header runs with any library of the same ABI.
 * The header declares no data objects.
 */
#ifndef TERN_MPI_H_INCLUDED
#define TERN_MPI_H_INCLUDED

#include <stdint.h>

/* Outside the standard: which library this header comes from. */
#define TERN_MPI 1
#define TERN_VERSION_MAJOR {major}
#define TERN_VERSION_MINOR {minor}
#define TERN_VERSION_PATCH {patch}

#ifdef __cplusplus
extern "C" {{
#endif

"""

HEADER_BOTTOM = """\

#ifdef __cplusplus
}
#endif

#endif /* TERN_MPI_H_INCLUDED */
"""


def generate(abi_dir, version):
    types_rows = read_tsv(os.path.join(abi_dir, 'types.tsv'), 2)
    const_rows = read_tsv(os.path.join(abi_dir, 'constants.tsv'), 3)
    func_rows = read_tsv(os.path.join(abi_dir, 'functions.tsv'), 3)

    typedefs, type_names, enumerators = parse_types(types_rows)
    defines = parse_constants(const_rows, type_names, enumerators)
    functions = parse_functions(func_rows, type_names)

    abi = '.'.join(v for n, t, v in const_rows
                   if n in ('MPI_ABI_VERSION', 'MPI_ABI_SUBVERSION')) or '?'

    out = [HEADER_TOP.format(abi=abi, major=version[0], minor=version[1],
                             patch=version[2])]
    out.append('/* ---------------------------------------------------------------- types */\n')
    out.extend(t + '\n' for t in typedefs)
    out.append('\n/* ---------------------------------------------------------------- constants */\n')
    out.extend(d + '\n' for d in defines)
    out.append('\n/* ---------------------------------------------------------------- functions */\n')
    for name, ret, params in functions:
        out.append('%s %s(%s);\n' % (ret, name, params))
    out.append('\n/* ---------------------------------------------------------------- profiling interface */\n')
    for name, ret, params in functions:
        out.append('%s P%s(%s);\n' % (ret, name, params))
    out.append(HEADER_BOTTOM)
    return ''.join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--abi', default=SCRIPT_DIR,
                    help='directory of types.tsv, constants.tsv, functions.tsv '
                         '(default: %(default)s)')
    ap.add_argument('--out', default=os.path.join(REPO_ROOT, 'include', 'mpi.h'),
                    help="output file, '-' for stdout (default: %(default)s)")
    ap.add_argument('--tern-version', metavar='X.Y.Z',
                    help='Tern version for TERN_VERSION_* (default: from the '
                         'project() of the top-level CMakeLists.txt)')
    args = ap.parse_args(argv)
    try:
        if args.tern_version:
            m = re.match(r'^(\d+)\.(\d+)\.(\d+)$', args.tern_version)
            if not m:
                raise AbiError('--tern-version: expected X.Y.Z')
            version = tuple(int(x) for x in m.groups())
        else:
            version = tern_version(os.path.join(REPO_ROOT, 'CMakeLists.txt'))
        text = generate(args.abi, version)
    except (AbiError, OSError) as e:
        sys.stderr.write('gen_mpi_h.py: error: %s\n' % e)
        return 1
    if args.out == '-':
        sys.stdout.write(text)
    else:
        try:
            with open(args.out, encoding='utf-8', newline='') as f:
                if f.read() == text:
                    return 0  # unchanged: keep the timestamp
        except OSError:
            pass
        d = os.path.dirname(os.path.abspath(args.out))
        os.makedirs(d, exist_ok=True)
        tmp = args.out + '.tmp'
        with open(tmp, 'w', encoding='utf-8', newline='\n') as f:
            f.write(text)
        os.replace(tmp, args.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
