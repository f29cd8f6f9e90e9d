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

Families.  Functions that differ only in the width of their counts (MPI_X
and MPI_X_c) and in how they complete (blocking MPI_X, nonblocking MPI_IX or,
where there is no MPI_IX, request-based MPI_RX, persistent MPI_X_init) form
the family of MPI_X (tn_mpi_family_X).  One definition
    int tn_mpi_family_X(<core parameters>, const tn_mpi_call_t *call)
implements every member: the generated PMPI_Y of a member fills a
tn_mpi_call_t (its name, kind, whether it is the _c form, its request and
info) and passes its own parameters through by name.  The core parameters
are the blocking member's, then any other member's except `request` and
`info` (which travel in the call); a parameter a member lacks is passed as 0
or NULL.  Where members disagree on a parameter's type, the core takes the
wider one: MPI_Count for int/MPI_Aint/MPI_Count values, `const void *` or
`void *` for pointers to them (call->wide says which the caller passed).
The header declares every family's core, so the compiler checks the
definition; a family member may not also be defined as tn_mpi_Y.

--header writes prototypes of every tn_mpi_X of the table (hidden visibility),
for implementation files to include so that the compiler checks them against
the standard signatures. The header depends on functions.tsv only.

--status-calls writes the table of published calls (tn_status_calls.h): the
functions whose entry point tells the rank's status slot (include/tern/
status.h) which call it is in and with what arguments, for hang reports.
PUBLISHED below chooses them (everything that communicates, waits or polls
for completion, plus init and finalize); their arguments are found by
parameter name (ROLE_NAMES).  Each PMPI_X of a published function calls
tn_rt_status_enter(...) before its implementation and tn_rt_status_leave() after
(src/runtime/status.h); MPI_Init and the like call tn_rt_status_init_call(id)
instead, since the slot is mapped only inside them.  The ids number the
published functions in table order from 1; TN_STATUS_CALLS_HASH names the
table, so that a reader built from another table can tell.  With
--constants, the header also names the predefined communicator, datatype,
window and session handles for readers.

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

# Published functions (see the docstring), by name without a _c suffix.
# Not published: queries, handle and datatype management, persistent
# initialisations (local set-up), one-sided operations (MPI_Put ... MPI_
# Compare_and_swap start an operation and return; their synchronisation
# calls wait and are published): a few stores would be a large share of a
# call that costs a few nanoseconds and never blocks.
_COLL = ('Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|'
         'Alltoall|Alltoallv|Alltoallw|Reduce|Allreduce|Reduce_scatter|'
         'Reduce_scatter_block|Scan|Exscan|Neighbor_allgather|Neighbor_allgatherv|'
         'Neighbor_alltoall|Neighbor_alltoallv|Neighbor_alltoallw')
PUBLISHED = re.compile(
    r'^MPI_(?:'
    # point to point
    r'Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend|Recv|Irecv|Sendrecv|'
    r'Sendrecv_replace|Isendrecv|Isendrecv_replace|Probe|Iprobe|Mprobe|Improbe|Mrecv|Imrecv|'
    # completion, starting, partitioned
    r'Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|'
    r'Request_get_status(?:_all|_any|_some)?|Start|Startall|Pready(?:_list|_range)?|Parrived|'
    # collectives, blocking and nonblocking
    r'(?:' + _COLL + r')|'
    r'I(?:' + '|'.join(c[0].lower() + c[1:] for c in _COLL.split('|')) + r')|'
    # communicators and windows made or freed collectively
    r'Comm_(?:dup|dup_with_info|idup|idup_with_info|split|split_type|create|create_group|'
    r'create_from_group|free|disconnect|spawn|spawn_multiple|accept|connect|join)|'
    r'Intercomm_(?:create|create_from_groups|merge)|Cart_create|Cart_sub|Graph_create|'
    r'Dist_graph_create|Dist_graph_create_adjacent|'
    r'Win_(?:create|allocate|allocate_shared|create_dynamic|free|fence|lock|lock_all|unlock|'
    r'unlock_all|flush|flush_all|flush_local|flush_local_all|sync|start|complete|post|wait|test)|'
    # buffered sends drained
    r'Buffer_detach|Buffer_flush|Buffer_iflush|Comm_detach_buffer|Comm_flush_buffer|'
    r'Comm_iflush_buffer|Session_detach_buffer|Session_flush_buffer|Session_iflush_buffer|'
    # the job's start and end
    r'Init|Init_thread|Finalize|Session_init|Session_finalize'
    r')(?:_c)?$')
# Published functions inside which the slot gets mapped.
INIT_FUNCTIONS = {'MPI_Init', 'MPI_Init_thread', 'MPI_Session_init'}

# Argument roles of the status record, by parameter name; the first
# parameter of the list found takes the role, peer2/tag2 take the second
# of their list.  Only by-value parameters count.
ROLE_NAMES = {
    'peer': ('dest', 'source', 'root', 'target_rank', 'local_leader', 'remote_leader'),
    'tag': ('tag', 'sendtag', 'recvtag'),
    'count': ('count', 'sendcount', 'origin_count', 'incount', 'recvcount'),
    'dtype': ('datatype', 'sendtype', 'origin_datatype', 'recvtype'),
}
# Object kinds of the status record (values are part of the call table).
STATUS_OBJ = {'MPI_Comm': 1, 'MPI_Win': 2, 'MPI_Session': 3}

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
    __slots__ = ('name', 'ret', 'params_text', 'params', 'impl', 'family')

    def __init__(self, name, ret, params_text, params):
        self.name = name
        self.ret = ret
        self.params_text = params_text
        self.params = params
        self.impl = None  # (relative path, line) of tn_mpi_X when found
        self.family = None  # (Family, kind, wide) when its family implements it


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


# ---------------------------------------------------------------- families

KIND_BLOCKING, KIND_NONBLOCKING, KIND_PERSISTENT = 0, 1, 2
KIND_NAMES = ('TN_MPI_CALL_BLOCKING', 'TN_MPI_CALL_NONBLOCKING', 'TN_MPI_CALL_PERSISTENT')
CALL_PARAMS = ('request', 'info')          # carried in tn_mpi_call_t
WIDE_VALUES = {'int', 'MPI_Aint', 'MPI_Count', 'MPI_Offset'}


class Family(object):
    __slots__ = ('base', 'members', 'params', 'impl')

    def __init__(self, base, members):
        self.base = base
        self.members = members  # [(Function, kind, wide)], the blocking one first
        self.params = []        # [Param] of the core, without the call
        self.impl = None        # (relative path, line) of tn_mpi_family_X


def member_names(base, names):
    """[(name, kind, wide)] of the family of MPI_<base> present in names."""
    low = base[0].lower() + base[1:]
    nb = 'I' + low if 'MPI_I' + low in names else 'R' + low
    out = []
    for stem, kind in ((base, KIND_BLOCKING), (nb, KIND_NONBLOCKING),
                       (base + '_init', KIND_PERSISTENT)):
        for suffix, wide in (('', 0), ('_c', 1)):
            if 'MPI_' + stem + suffix in names:
                out.append(('MPI_' + stem + suffix, kind, wide))
    return out


def core_param(name, members_params, where):
    """The core's Param for one parameter name, from the members' Params."""
    canons = {p.canon for p in members_params}
    if len(canons) == 1:
        return members_params[0]
    if canons <= WIDE_VALUES:
        text = 'MPI_Count %s' % name
    elif all(c.endswith('*') for c in canons):
        const = all(c.startswith('const ') for c in canons)
        text = '%svoid *%s' % ('const ' if const else '', name)
    else:
        raise BindError('%s: parameter %s has types %s' % (where, name, sorted(canons)))
    return parse_param(text, where)


def find_families(funcs):
    """{base: Family} of every family with at least two members, none of
    whose base is itself a member of another family."""
    by_name = {f.name: f for f in funcs}
    cand = {}
    for f in funcs:
        base = f.name[4:]
        if base.endswith('_c'):
            continue
        m = member_names(base, by_name)
        if len(m) > 1:
            cand[base] = m
    claimed = {n for m in cand.values() for n, _, _ in m[1:]}
    fams = {}
    for base, m in cand.items():
        if 'MPI_' + base in claimed:
            continue
        members = [(by_name[n], k, w) for n, k, w in m]
        where = 'family %s' % base
        rets = {f.ret for f, _, _ in members}
        if rets != {'int'}:
            continue  # only int-returning calls are forwarded this way
        fam = Family(base, members)
        order, seen = [], {}
        for f, kind, _ in members:
            for p in f.params:
                if p.text == '...':
                    raise BindError('%s: variadic member %s' % (where, f.name))
                if kind != KIND_BLOCKING and p.name in CALL_PARAMS and \
                        p.name not in seen:
                    continue
                if p.name not in seen:
                    seen[p.name] = []
                    order.append(p.name)
                seen[p.name].append(p)
        fam.params = [core_param(n, seen[n], where) for n in order]
        fams[base] = fam
    return fams


def family_params_text(fam):
    return ', '.join([p.text for p in fam.params] + ['const tn_mpi_call_t *call'])


def family_call(fam, f, kind, wide):
    """The body of PMPI_Y of member f: the call record and the core's call."""
    have = {p.name for p in f.params}
    args = []
    for p in fam.params:
        if p.name in have:
            args.append(p.name)
        else:
            args.append('NULL' if '*' in p.canon else '0')
    req = 'request' if 'request' in have and 'request' not in \
        {p.name for p in fam.params} else 'NULL'
    info = 'info' if 'info' in have and 'info' not in \
        {p.name for p in fam.params} else 'MPI_INFO_NULL'
    decl = ('    const tn_mpi_call_t tn_call = { %s, %s, %d, %s, %s };\n'
            % (c_string(f.name), KIND_NAMES[kind], wide, req, info))
    return decl, 'tn_mpi_family_%s(%s)' % (fam.base, ', '.join(args + ['&tn_call']))


CALL_TYPEDEF = """#ifndef TN_MPI_CALL_DEFINED
#define TN_MPI_CALL_DEFINED
/* How a member of a family was called (see tools/abi/gen_bindings.py). */
enum { TN_MPI_CALL_BLOCKING, TN_MPI_CALL_NONBLOCKING, TN_MPI_CALL_PERSISTENT };
typedef struct {
    const char  *fn;   /* the entry point's name, for error messages */
    int          kind; /* TN_MPI_CALL_BLOCKING, _NONBLOCKING or _PERSISTENT */
    int          wide; /* 1: the _c form (MPI_Count/MPI_Aint arrays and outputs) */
    MPI_Request *req;  /* nonblocking and persistent: where the request goes */
    MPI_Info     info; /* persistent: the info argument, else MPI_INFO_NULL */
} tn_mpi_call_t;
#endif
"""


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


def scan_family(fams, base, where, ret, got, errors):
    """Check a tn_mpi_family_<base> definition against its derived core."""
    fam = fams.get(base)
    if fam is None:
        errors.append('%s:%d: tn_mpi_family_%s: MPI_%s has no family (it needs an '
                      'MPI_%s_c, nonblocking or persistent form)' % (where + (base, base, base)))
        return
    if fam.impl is not None:
        errors.append('%s:%d: tn_mpi_family_%s already defined at %s:%d'
                      % (where + (base,) + fam.impl))
        return
    want = [p.canon for p in fam.params] + ['const tn_mpi_call_t *']
    if canon_ret(ret) != 'int' and not canon_ret(ret).endswith(' int'):
        errors.append('%s:%d: tn_mpi_family_%s must return int' % (where + (base,)))
    elif [p.canon for p in got] != want:
        errors.append('%s:%d: tn_mpi_family_%s(%s) does not match its core (%s)'
                      % (where + (base, ', '.join(p.canon for p in got), ', '.join(want))))
    else:
        fam.impl = where


def scan_sources(src_dir, funcs, warn, fams=None):
    fams = fams or {}
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
            if m.group(2).startswith('family_'):
                try:
                    got = parse_params(text[open_idx + 1:close], where)
                except BindError as e:
                    errors.append(str(e))
                    continue
                scan_family(fams, m.group(2)[len('family_'):], (rel, lineno), prefix,
                            got, errors)
                continue
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
    for fam in sorted(fams.values(), key=lambda x: x.base):
        if fam.impl is None:
            continue
        for f, kind, wide in fam.members:
            if f.impl is not None:
                errors.append('%s:%d: tn_mpi_%s: %s is a member of family %s (%s:%d)'
                              % (f.impl + (f.name[4:], f.name, fam.base) + fam.impl))
            f.impl = fam.impl
            f.family = (fam, kind, wide)
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


# ---------------------------------------------------------------- status

def status_calls(funcs):
    """The published functions in table order, each with its id (from 1)."""
    out = []
    for f in funcs:
        if PUBLISHED.match(f.name) and f.name not in NOOP_FUNCTIONS:
            if f.ret != 'int':
                raise BindError('%s: a published function must return int' % f.name)
            out.append(f)
    return {f.name: i + 1 for i, f in enumerate(out)}, out


def status_roles(fn):
    """{role: parameter name} of fn's status record, and its object kind."""
    roles = {}
    for role, names in ROLE_NAMES.items():
        want = ('int',) if role in ('peer', 'tag') else \
               ('int', 'MPI_Count') if role == 'count' else ('MPI_Datatype',)
        found = [p.name for p in fn.params if p.name in names and p.canon in want]
        if found:
            roles[role] = found[0]
        if role in ('peer', 'tag') and len(found) > 1:
            roles[role + '2'] = found[1]
    kind = 0
    for p in fn.params:
        if p.canon in STATUS_OBJ:
            roles['obj'] = p.name
            kind = STATUS_OBJ[p.canon]
            break
    return roles, kind


# Not traced (base/trace.h): handle conversions and the tools interface,
# which say nothing of the job's communication and run in loops of their own.
UNTRACED_PARTS = ('_f2c', '_c2f', '_f082', '_c2f08', '_toint', '_fromint')


def traced_call(f):
    """Whether PMPI_X opens a trace record: every implemented function that
    returns an error code, except conversions and MPI_T."""
    return (f.ret == 'int' and not f.name.startswith('MPI_T_') and
            not any(part in f.name for part in UNTRACED_PARTS))


def status_enter(fn, ident):
    roles, _ = status_roles(fn)
    if fn.name in INIT_FUNCTIONS:
        return '    tn_rt_status_init_call(%d);\n' % ident

    def arg(role, cast):
        return '(%s)%s' % (cast, roles[role]) if role in roles else '0'
    return ('    tn_rt_status_enter(%d, %s, %s, %s, %s, %s, %s, %s);\n'
            % (ident, arg('obj', 'uint64_t)(uintptr_t'), arg('peer', 'int32_t'),
               arg('tag', 'int32_t'), arg('peer2', 'int32_t'), arg('tag2', 'int32_t'),
               arg('count', 'int64_t'), arg('dtype', 'uint64_t)(uintptr_t')))


def fnv64(text):
    h = 0xcbf29ce484222325
    for b in text.encode('ascii'):
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def read_predefined(path):
    """[(type, name, value)] of the predefined handles readers name."""
    out = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if line.startswith('#') or len(cols) != 3:
                continue
            if cols[1] in STATUS_OBJ or cols[1] == 'MPI_Datatype':
                out.append((cols[1], cols[0], int(cols[2], 0)))
    return out


def emit_status_calls(funcs, table_label, predefined):
    ids, pub = status_calls(funcs)
    rows = []
    for f in pub:
        roles, kind = status_roles(f)
        cells = [roles.get(r) for r in ('peer', 'tag', 'peer2', 'tag2', 'count', 'dtype')]
        rows.append((f.name, kind, cells))
    text = ''.join('%s %d %s\n' % (n, k, ' '.join(c or '-' for c in cells))
                   for n, k, cells in rows)
    o = []
    w = o.append
    w('/* Generated by tools/abi/gen_bindings.py from %s. Do not edit.\n' % table_label)
    w(' * The calls a rank publishes in its status slot (include/tern/status.h):\n')
    w(' * ids, and for readers (#define TN_STATUS_CALL_TABLE first) their names,\n')
    w(' * what their record fields mean, and the predefined handles. */\n')
    w('#ifndef TN_STATUS_CALLS_H\n#define TN_STATUS_CALLS_H\n\n#include <stdint.h>\n\n')
    w('#define TN_STATUS_NCALLS %d\n' % len(pub))
    w('/* every function, for the calls counts of the stats segment\n'
      ' * (tn_mon_call_names in the generated bindings) */\n')
    w('#define TN_MON_NCALLS %d\n' % len(funcs))
    w('#define TN_STATUS_CALLS_HASH 0x%016xull\n\n' % fnv64(text))
    w('#ifdef TN_STATUS_CALL_TABLE\n')
    w('/* One published call: its name, the kind of its obj field (0 none, 1\n')
    w(' * communicator, 2 window, 3 session) and the parameter each of peer,\n')
    w(' * tag, peer2, tag2, count and dtype holds (NULL: not used). */\n')
    w('typedef struct {\n    const char *name;\n    int         obj_kind;\n')
    w('    const char *peer, *tag, *peer2, *tag2, *count, *dtype;\n} tn_status_call_desc_t;\n\n')
    w('static const tn_status_call_desc_t tn_status_calls[TN_STATUS_NCALLS + 1] = {\n')
    w('    { NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL },\n')
    for n, k, cells in rows:
        w('    { %s, %d, %s },\n' % (c_string(n), k, ', '.join(
            c_string(c) if c else 'NULL' for c in cells)))
    w('};\n\n')
    w('/* Predefined handles: kind (1 communicator, 2 window, 3 session, 4\n')
    w(' * datatype), value, name. */\n')
    w('typedef struct {\n    int         kind;\n    uint64_t    value;\n    const char *name;\n'
      '} tn_status_predef_t;\n\n')
    kinds = dict(STATUS_OBJ, MPI_Datatype=4)
    w('static const tn_status_predef_t tn_status_predef[] = {\n')
    for t, n, v in predefined:
        w('    { %d, 0x%xu, %s },\n' % (kinds[t], v, c_string(n)))
    w('    { 0, 0, NULL }\n};\n#endif\n\n#endif\n')
    return ''.join(o)


def emit_bindings(funcs, table_label, status=False, fams=None):
    impl = [f for f in funcs if f.impl is not None]
    cores = sorted((x for x in (fams or {}).values() if x.impl is not None),
                   key=lambda x: x.base)
    unsupported = sorted(f.name for f in funcs
                         if f.impl is None and f.name not in NOOP_FUNCTIONS)
    ids = status_calls(funcs)[0] if status else {}
    o = []
    w = o.append
    w('/* Generated by tools/abi/gen_bindings.py from %s and the\n' % table_label)
    w(' * tn_mpi_* definitions under src/mpi. Do not edit.\n')
    w(' * %d functions: %d implemented, %d generated (%s), %d unsupported. */\n'
      % (len(funcs), len(impl), len(NOOP_FUNCTIONS), ', '.join(sorted(NOOP_FUNCTIONS)),
         len(unsupported)))
    w('#include <stddef.h>\n#include <mpi.h>\n')
    if status:
        w('#include "runtime/status.h"\n#include "base/monitor.h"\n#include "base/trace.h"\n')
    w('\n#define TN_BIND_EXPORT __attribute__((visibility("default")))\n')
    w('#define TN_BIND_HIDDEN __attribute__((visibility("hidden")))\n\n')
    for k, v in OBJ_KINDS:
        w('#ifndef %s\n#define %s %d\n#endif\n' % (k, k, v))
    w('\nTN_BIND_HIDDEN int tn_mpi_unsupported(const char *fn, int obj_kind, '
      'const void *obj);\n\n')
    w(CALL_TYPEDEF)

    w('\n/* Implementations (hidden). */\n')
    for f in impl:
        if f.family is None:
            w('TN_BIND_HIDDEN %s tn_mpi_%s(%s); /* %s:%d */\n'
              % (f.ret, f.name[4:], f.params_text, f.impl[0], f.impl[1]))
    for fam in cores:
        w('TN_BIND_HIDDEN int tn_mpi_family_%s(%s); /* %s:%d */\n'
          % ((fam.base, family_params_text(fam)) + fam.impl))

    if status:
        # every function's calls are counted for the monitor (base/monitor.h)
        w('\n/* The functions the calls counts of the stats segment name, by id. */\n')
        w('TN_BIND_HIDDEN const char *const tn_mon_call_names[%d] = {\n' % len(funcs))
        for f in funcs:
            w('    %s,\n' % c_string(f.name))
        w('};\n_Static_assert(%d <= TN_CTR_CALLS, "TN_CTR_CALLS is too small");\n' % len(funcs))

    w('\n/* Entry points: PMPI_X, and MPI_X as a weak alias of it. */\n')
    for mon_id, f in enumerate(funcs):
        w('\nTN_BIND_EXPORT %s P%s(%s)\n{\n' % (f.ret, f.name, f.params_text))
        if status:
            w('    tn_mon_call(%d);\n' % mon_id)
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
            call = 'tn_mpi_%s(%s)' % (f.name[4:], ', '.join(named))
            if f.family is not None:
                decl, call = family_call(*f.family[:1], f, *f.family[1:])
                w(decl)
            traced = status and traced_call(f)
            if f.name in ids:
                w(status_enter(f, ids[f.name]))
            if traced:
                w('    const uint64_t tn_tr = tn_trace_enter(%d);\n' % mon_id)
            if f.name in ids or traced:
                w('    int tn_ret = %s;\n' % call)
                if traced:
                    w('    tn_trace_leave(tn_tr, tn_ret);\n')
                if f.name in ids:
                    w('    tn_rt_status_leave();\n')
                w('    return tn_ret;\n')
            else:
                w('    return %s;\n' % call)
        else:
            kind, obj = obj_of(f)
            for n in named:
                if n != obj:
                    w('    (void)%s;\n' % n)
            call = 'tn_mpi_unsupported(%s, %s, %s)' % (
                c_string(f.name), kind,
                '(const void *)%s' % obj if obj else 'NULL')
            if f.name in ids:
                # published: the unsupported call is what the rank is in
                w(status_enter(f, ids[f.name]))
                w('    int tn_ret = %s;\n    tn_rt_status_leave();\n    return tn_ret;\n' % call)
            elif f.ret == 'int':
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
    w(' * signature, defined in a .c file under src/mpi starting in column 0;\n')
    w(' * or, for the members of a family, one tn_mpi_family_X. */\n')
    w('#ifndef TN_MPI_PROTOS_H\n#define TN_MPI_PROTOS_H\n\n#include <mpi.h>\n\n')
    w(CALL_TYPEDEF + '\n')
    for f in funcs:
        if f.name in NOOP_FUNCTIONS:
            continue
        w('__attribute__((visibility("hidden"))) %s tn_mpi_%s(%s);\n'
          % (f.ret, f.name[4:], f.params_text))
    w('\n/* Family cores: one implements every member of its family. */\n')
    for fam in sorted(find_families(funcs).values(), key=lambda x: x.base):
        w('__attribute__((visibility("hidden"))) int tn_mpi_family_%s(%s);\n'
          % (fam.base, family_params_text(fam)))
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
    ap.add_argument('--status-calls', help='table of published calls to write '
                    '(and publish them in --out)')
    ap.add_argument('--constants', help='constants.tsv: predefined handles for '
                    '--status-calls')
    ap.add_argument('--list', action='store_true',
                    help='print "implemented|unsupported|noop NAME [file:line]" lines')
    args = ap.parse_args(argv)
    if not (args.out or args.header or args.list or args.status_calls):
        ap.error('nothing to do: give --out, --header, --status-calls or --list')
    if (args.out or args.list) and not args.src:
        ap.error('--out and --list need --src')

    def warn(msg):
        sys.stderr.write('gen_bindings.py: warning: %s\n' % msg)

    label = 'tools/abi/' + os.path.basename(args.abi)
    try:
        funcs = read_functions(args.abi)
        fams = find_families(funcs)
        if args.src:
            if not os.path.isdir(args.src):
                raise BindError('--src %s: not a directory' % args.src)
            scan_sources(args.src, funcs, warn, fams)
        if args.out:
            write_if_changed(args.out, emit_bindings(funcs, label,
                                                     status=bool(args.status_calls),
                                                     fams=fams))
        if args.status_calls:
            predefined = read_predefined(args.constants) if args.constants else []
            write_if_changed(args.status_calls,
                             emit_status_calls(funcs, label, predefined))
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
                print('implemented %s %s:%d%s' % (f.name, f.impl[0], f.impl[1],
                                                 ' family %s' % f.family[0].base
                                                 if f.family else ''))
            else:
                print('unsupported %s' % f.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
