#!/usr/bin/env python3
"""Generate the MPI_/PMPI_ entry points of libmpi_abi from the ABI table.

    gen_bindings.py --abi tools/abi/functions.tsv --src src/mpi \\
                    --out build/gen/mpi_bindings.c [--header build/gen/tn_mpi_protos.h]

For every function MPI_X of functions.tsv the output defines PMPI_X (default
visibility) and makes MPI_X a weak alias of it, so a profiling library can
interpose MPI_X and call PMPI_X.

PMPI_X forwards to tn_mpi_X when an implementation is found under --src,
otherwise it reports the function as unsupported through
    int tn_mpi_unsupported(const char *fn, int obj_kind, const void *obj);
with the first by-value MPI_Comm/MPI_Win/MPI_File/MPI_Session parameter as the
object (its error handler is the one to call), and returns what that returns
(functions that do not return int return the matching null value instead).
MPI_Pcontrol is always a no-op returning MPI_SUCCESS.

Implementations are found by scanning every *.c under --src (recursively,
comments ignored) for a definition that starts in column 0 with its return
type on the same line as the name:
    int tn_mpi_Send(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm)
    {
A line starting with `static` or `extern`, or a declaration (`;` after the
parameter list), does not count. The implementation must have exactly the
signature of MPI_X (parameter names may differ, `T a[]` and `T *a` are the
same); a different return type or parameter list is an error.

--header writes prototypes of every tn_mpi_X of the table (hidden visibility),
for implementation files to include so that the compiler checks them against
the standard signatures. The header depends on functions.tsv only.

Outputs are deterministic and are rewritten only when their content changes.
"""

import argparse
import os
import re
import sys

# Object kinds passed to tn_mpi_unsupported (values are part of the contract
# with the code that implements it).
OBJ_KINDS = [('TN_OBJ_NONE', 0), ('TN_OBJ_COMM', 1), ('TN_OBJ_WIN', 2),
             ('TN_OBJ_FILE', 3), ('TN_OBJ_SESSION', 4)]
OBJ_KIND_OF_TYPE = {'MPI_Comm': 'TN_OBJ_COMM', 'MPI_Win': 'TN_OBJ_WIN',
                    'MPI_File': 'TN_OBJ_FILE', 'MPI_Session': 'TN_OBJ_SESSION'}

# What an unsupported function that does not return int returns.
NULL_OF_TYPE = {
    'MPI_Comm': 'MPI_COMM_NULL', 'MPI_Datatype': 'MPI_DATATYPE_NULL',
    'MPI_Errhandler': 'MPI_ERRHANDLER_NULL', 'MPI_File': 'MPI_FILE_NULL',
    'MPI_Group': 'MPI_GROUP_NULL', 'MPI_Info': 'MPI_INFO_NULL',
    'MPI_Message': 'MPI_MESSAGE_NULL', 'MPI_Op': 'MPI_OP_NULL',
    'MPI_Request': 'MPI_REQUEST_NULL', 'MPI_Session': 'MPI_SESSION_NULL',
    'MPI_Win': 'MPI_WIN_NULL', 'MPI_Aint': '0', 'MPI_Count': '0',
    'MPI_Offset': '0', 'double': '0.0',
}

# Functions whose body is generated here, never forwarded.
NOOP_FUNCTIONS = {'MPI_Pcontrol'}

# Identifiers that are types (or type qualifiers) when they end a parameter,
# i.e. the parameter has no name.
TYPE_WORDS = {'void', 'char', 'short', 'int', 'long', 'float', 'double',
              'signed', 'unsigned', 'const', 'volatile', 'struct', 'enum',
              'restrict', '__restrict', '__restrict__'}


class BindError(Exception):
    pass


# ---------------------------------------------------------------- parameters

class Param(object):
    __slots__ = ('text', 'name', 'ctype', 'canon')

    def __init__(self, text, name, ctype, canon):
        self.text = text      # as written
        self.name = name      # parameter name, or None
        self.ctype = ctype    # the text without the name ('int []')
        self.canon = canon    # canonical type for comparisons


def split_top(s, sep=','):
    """Split at `sep` outside parentheses and brackets."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append(''.join(cur))
    return [p.strip() for p in parts]


def canon_type(tokens, dims):
    """Canonical spelling of a parameter type after the C adjustments:
    the first array dimension becomes a pointer, top-level const goes."""
    toks = list(tokens)
    if dims:
        # T a[][3] -> T (*)[3] ; T a[] -> T *
        rest = ''.join('[%s]' % d.strip() for d in dims[1:])
        return ' '.join(toks) + (' (*)' + rest if rest else ' *')
    # top-level const: `int const`, `const int` with no pointer, `T * const`
    if '*' not in toks:
        toks = [t for t in toks if t != 'const']
    else:
        while toks and toks[-1] in ('const', 'restrict', '__restrict',
                                    '__restrict__', 'volatile'):
            toks.pop()
    return ' '.join(toks)


def parse_param(text, where):
    text = ' '.join(text.split())
    if text == '...':
        return Param('...', None, '...', '...')
    m = re.match(r'^(.*?)((?:\s*\[[^]]*\])*)$', text)
    body, arr = m.group(1).strip(), m.group(2)
    dims = re.findall(r'\[([^]]*)\]', arr)
    pa = re.match(r'^(.*?)\(\s*\*\s*([A-Za-z_]\w*)?\s*\)$', body)
    if pa and dims:
        # T (*name)[3]: a pointer to arrays, what T name[][3] adjusts to
        type_tokens = re.findall(r'[A-Za-z_]\w*|\*', pa.group(1))
        return Param(text, pa.group(2), text,
                     canon_type(type_tokens, [''] + dims))
    if '(' in body:
        raise BindError('%s: function-pointer parameter %r: use the typedef'
                        % (where, text))
    tokens = re.findall(r'[A-Za-z_]\w*|\*', body)
    if not tokens:
        raise BindError('%s: cannot read parameter %r' % (where, text))
    last = tokens[-1]
    named = (last != '*' and last not in TYPE_WORDS and not last.startswith('MPI_')
             and len(tokens) > 1)
    name = last if named else None
    type_tokens = tokens[:-1] if named else tokens
    ctype = ' '.join(type_tokens) + (' ' + arr.replace(' ', '') if arr else '')
    return Param(text, name, ctype, canon_type(type_tokens, dims))


def parse_params(params, where):
    params = ' '.join(params.split())
    if params in ('void', ''):
        return []
    return [parse_param(p, where) for p in split_top(params)]


def canon_ret(ret):
    return ' '.join(re.findall(r'[A-Za-z_]\w*|\*', ret))


# ---------------------------------------------------------------- table

class Function(object):
    __slots__ = ('name', 'ret', 'params_text', 'params', 'impl')

    def __init__(self, name, ret, params_text, params):
        self.name = name
        self.ret = ret
        self.params_text = params_text
        self.params = params
        self.impl = None  # (relative path, line) of tn_mpi_X when found


def read_functions(path):
    funcs = []
    seen = set()
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip('\n').rstrip('\r')
            if not line.strip() or line.startswith('#'):
                continue
            cols = [c.strip() for c in line.split('\t')]
            where = '%s:%d' % (path, lineno)
            if len(cols) != 3:
                raise BindError('%s: expected 3 columns' % where)
            name, ret, params = cols
            if not re.match(r'^MPI_\w+$', name) or name in seen:
                raise BindError('%s: bad or repeated name %r' % (where, name))
            seen.add(name)
            plist = parse_params(params, where)
            for i, p in enumerate(plist):
                if p.name is None and p.text != '...':
                    raise BindError('%s: parameter %d of %s has no name'
                                    % (where, i + 1, name))
                if p.text == '...' and i != len(plist) - 1:
                    raise BindError('%s: ... not last' % where)
            funcs.append(Function(name, ret, params, plist))
    return funcs


# ---------------------------------------------------------------- scanner

def strip_comments(text):
    """Blank out comments and string/char literals, keeping line structure."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == '/' and text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c
                       if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


DEF_START = re.compile(r'^([A-Za-z_][A-Za-z0-9_ \t\*]*?)[ \t\*]*?\btn_mpi_(\w+)[ \t]*\(',
                       re.MULTILINE)

BARE_START = re.compile(r'^tn_mpi_([A-Z]\w*)[ \t]*\(', re.MULTILINE)


def find_close(text, open_idx):
    depth = 0
    for i in range(open_idx, len(text)):
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                return i
    return -1


def scan_sources(src_dir, funcs, warn):
    by_name = {f.name: f for f in funcs}
    files = []
    for root, dirs, names in os.walk(src_dir):
        dirs.sort()
        for nm in names:
            if nm.endswith('.c'):
                files.append(os.path.join(root, nm))
    files.sort()
    errors = []
    for path in files:
        rel = os.path.relpath(path, src_dir).replace(os.sep, '/')
        with open(path, encoding='utf-8', errors='replace') as f:
            text = strip_comments(f.read())
        for m in BARE_START.finditer(text):
            warn('%s:%d: tn_mpi_%s: return type not on the line of the name; '
                 'not bound' % (path, text.count('\n', 0, m.start()) + 1, m.group(1)))
        for m in DEF_START.finditer(text):
            prefix = text[m.start():m.start(2) - len('tn_mpi_')]
            words = re.findall(r'[A-Za-z_]\w*', prefix)
            if not words or words[0] in ('static', 'extern', 'typedef', 'return'):
                continue
            lineno = text.count('\n', 0, m.start()) + 1
            where = '%s:%d' % (path, lineno)
            open_idx = m.end() - 1
            close = find_close(text, open_idx)
            if close < 0:
                continue
            after = text[close + 1:].lstrip()
            if not after.startswith('{'):
                continue  # a declaration, not a definition
            name = 'MPI_' + m.group(2)
            fn = by_name.get(name)
            if fn is None:
                if m.group(2)[:1].isupper():
                    warn('%s: tn_mpi_%s: %s is not in the ABI table; not bound'
                         % (where, m.group(2), name))
                continue
            if name in NOOP_FUNCTIONS:
                warn('%s: tn_mpi_%s is ignored: %s is generated as a no-op'
                     % (where, m.group(2), name))
                continue
            if fn.impl is not None:
                errors.append('%s: tn_mpi_%s already defined at %s:%d'
                              % (where, m.group(2), fn.impl[0], fn.impl[1]))
                continue
            # Return type: the words before the name must end with it
            # (leading attribute macros are allowed).
            got_ret = canon_ret(prefix)
            want_ret = canon_ret(fn.ret)
            if not (got_ret == want_ret or got_ret.endswith(' ' + want_ret)):
                errors.append('%s: tn_mpi_%s returns %r, %s returns %r'
                              % (where, m.group(2), got_ret, name, fn.ret))
                continue
            try:
                got = parse_params(text[open_idx + 1:close], where)
            except BindError as e:
                errors.append(str(e))
                continue
            got_sig = [p.canon for p in got]
            want_sig = [p.canon for p in fn.params]
            if got_sig != want_sig:
                errors.append('%s: tn_mpi_%s(%s) does not match %s(%s)'
                              % (where, m.group(2), ', '.join(got_sig), name,
                                 ', '.join(want_sig)))
                continue
            fn.impl = (rel, lineno)
    if errors:
        raise BindError('\n'.join(errors))


# ---------------------------------------------------------------- output

def c_string(s):
    return '"%s"' % s.replace('\\', '\\\\').replace('"', '\\"')


def obj_of(fn):
    for p in fn.params:
        if p.canon in OBJ_KIND_OF_TYPE:
            return OBJ_KIND_OF_TYPE[p.canon], p.name
    return 'TN_OBJ_NONE', None


def emit_bindings(funcs, table_label):
    impl = [f for f in funcs if f.impl is not None]
    unsupported = sorted(f.name for f in funcs
                         if f.impl is None and f.name not in NOOP_FUNCTIONS)
    o = []
    w = o.append
    w('/* Generated by tools/abi/gen_bindings.py from %s and the\n' % table_label)
    w(' * tn_mpi_* definitions under src/mpi. Do not edit.\n')
    w(' * %d functions: %d implemented, %d generated (%s), %d unsupported. */\n'
      % (len(funcs), len(impl), len(NOOP_FUNCTIONS), ', '.join(sorted(NOOP_FUNCTIONS)),
         len(unsupported)))
    w('#include <stddef.h>\n#include <mpi.h>\n\n')
    w('#define TN_BIND_EXPORT __attribute__((visibility("default")))\n')
    w('#define TN_BIND_HIDDEN __attribute__((visibility("hidden")))\n\n')
    for k, v in OBJ_KINDS:
        w('#ifndef %s\n#define %s %d\n#endif\n' % (k, k, v))
    w('\nTN_BIND_HIDDEN int tn_mpi_unsupported(const char *fn, int obj_kind, '
      'const void *obj);\n\n')

    w('/* Implementations (hidden). */\n')
    for f in impl:
        w('TN_BIND_HIDDEN %s tn_mpi_%s(%s); /* %s:%d */\n'
          % (f.ret, f.name[4:], f.params_text, f.impl[0], f.impl[1]))

    w('\n/* Entry points: PMPI_X, and MPI_X as a weak alias of it. */\n')
    for f in funcs:
        w('\nTN_BIND_EXPORT %s P%s(%s)\n{\n' % (f.ret, f.name, f.params_text))
        named = [p.name for p in f.params if p.name]
        if f.name in NOOP_FUNCTIONS:
            for n in named:
                w('    (void)%s;\n' % n)
            if f.ret != 'int':
                raise BindError('%s: no-op function must return int' % f.name)
            w('    return MPI_SUCCESS;\n')
        elif f.impl is not None:
            if any(p.text == '...' for p in f.params):
                raise BindError('%s: cannot forward a variadic function' % f.name)
            w('    return tn_mpi_%s(%s);\n' % (f.name[4:], ', '.join(named)))
        else:
            kind, obj = obj_of(f)
            for n in named:
                if n != obj:
                    w('    (void)%s;\n' % n)
            call = 'tn_mpi_unsupported(%s, %s, %s)' % (
                c_string(f.name), kind,
                '(const void *)%s' % obj if obj else 'NULL')
            if f.ret == 'int':
                w('    return %s;\n' % call)
            else:
                null = NULL_OF_TYPE.get(f.ret)
                if null is None:
                    raise BindError('%s: no null value known for return type %s'
                                    % (f.name, f.ret))
                w('    (void)%s;\n    return %s;\n' % (call, null))
        w('}\n')
        w('extern __typeof__(P%s) %s\n    __attribute__((weak, alias("P%s"), '
          'visibility("default")));\n' % (f.name, f.name, f.name))

    w('\n/* Functions that report MPI_ERR_UNSUPPORTED_OPERATION, sorted by strcmp. */\n')
    w('extern TN_BIND_HIDDEN const char *const tn_mpi_unsupported_names[];\n')
    w('extern TN_BIND_HIDDEN const int tn_mpi_unsupported_count;\n')
    w('extern TN_BIND_HIDDEN const int tn_mpi_function_count;\n')
    w('const char *const tn_mpi_unsupported_names[] = {\n')
    for n in sorted(unsupported, key=lambda s: s.encode('ascii')):
        w('    %s,\n' % c_string(n))
    w('    NULL\n};\n')
    w('const int tn_mpi_unsupported_count = %d;\n' % len(unsupported))
    w('const int tn_mpi_function_count = %d;\n' % len(funcs))
    return ''.join(o)


def emit_header(funcs, table_label):
    o = []
    w = o.append
    w('/* Generated by tools/abi/gen_bindings.py from %s. Do not edit.\n' % table_label)
    w(' * Prototypes of the tn_mpi_X implementations of the MPI functions: an\n')
    w(' * implementation of MPI_X is `RET tn_mpi_X(params)` with the standard\n')
    w(' * signature, defined in a .c file under src/mpi starting in column 0. */\n')
    w('#ifndef TN_MPI_PROTOS_H\n#define TN_MPI_PROTOS_H\n\n#include <mpi.h>\n\n')
    for f in funcs:
        if f.name in NOOP_FUNCTIONS:
            continue
        w('__attribute__((visibility("hidden"))) %s tn_mpi_%s(%s);\n'
          % (f.ret, f.name[4:], f.params_text))
    w('\n#endif\n')
    return ''.join(o)


def write_if_changed(path, text):
    try:
        with open(path, encoding='utf-8', newline='') as f:
            if f.read() == text:
                return
    except OSError:
        pass
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8', newline='\n') as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description='Generate the MPI/PMPI entry points from functions.tsv.')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--abi', default=os.path.join(here, 'functions.tsv'),
                    help='functions.tsv (default: %(default)s)')
    ap.add_argument('--src', help='directory scanned for tn_mpi_* definitions')
    ap.add_argument('--out', help='C file of the entry points to write')
    ap.add_argument('--header', help='header of tn_mpi_* prototypes to write')
    ap.add_argument('--list', action='store_true',
                    help='print "implemented|unsupported|noop NAME [file:line]" lines')
    args = ap.parse_args(argv)
    if not (args.out or args.header or args.list):
        ap.error('nothing to do: give --out, --header or --list')
    if (args.out or args.list) and not args.src:
        ap.error('--out and --list need --src')

    def warn(msg):
        sys.stderr.write('gen_bindings.py: warning: %s\n' % msg)

    label = 'tools/abi/' + os.path.basename(args.abi)
    try:
        funcs = read_functions(args.abi)
        if args.src:
            if not os.path.isdir(args.src):
                raise BindError('--src %s: not a directory' % args.src)
            scan_sources(args.src, funcs, warn)
        if args.out:
            write_if_changed(args.out, emit_bindings(funcs, label))
        if args.header:
            write_if_changed(args.header, emit_header(funcs, label))
    except (BindError, OSError) as e:
        sys.stderr.write('gen_bindings.py: error: %s\n' % e)
        return 1
    if args.list:
        for f in funcs:
            if f.name in NOOP_FUNCTIONS:
                print('noop %s' % f.name)
            elif f.impl:
                print('implemented %s %s:%d' % (f.name, f.impl[0], f.impl[1]))
            else:
                print('unsupported %s' % f.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
