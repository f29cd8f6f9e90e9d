#!/usr/bin/env python3
"""Seeds of fuzz_spawn: PMI-1 lines with mcmd=spawn blocks as the library's
client writes them (src/runtime/pmi1.c), and hostile ones; the input
format is in tests/fuzz/fuzz_spawn.c's header.  Usage: gen_spawn_corpus.py DIR"""
from corpus_files import write_seeds

WHOLE = 7 << 1          # whole lines
TWO = 1                 # two ranks


def block(exe, nprocs, tot, sofar, args=(), pre=(), info=()):
    out = f"mcmd=spawn\nnprocs={nprocs}\nexecname={exe}\ntotspawns={tot}\nspawnssofar={sofar}\n"
    for i, a in enumerate(args):
        out += f"arg{i + 1}={a}\n"
    out += f"argcnt={len(args)}\npreput_num={len(pre)}\n"
    for i, (k, v) in enumerate(pre):
        out += f"preput_key_{i}={k}\npreput_val_{i}={v}\n"
    out += f"info_num={len(info)}\n"
    for i, (k, v) in enumerate(info):
        out += f"info_key_{i}={k}\ninfo_val_{i}={v}\n"
    return out + "endcmd\n"


def one_rank(text, cfg=WHOLE):
    return bytes([cfg]) + text.encode()


def two_ranks(lines0, lines1, cfg=WHOLE | TWO):
    """Interleave: line i goes to rank i % 2."""
    a, b = lines0.splitlines(), lines1.splitlines()
    out = []
    for i in range(max(len(a), len(b))):
        out.append(a[i] if i < len(a) else "cmd=get_appnum")
        out.append(b[i] if i < len(b) else "cmd=get_appnum")
    return bytes([cfg]) + ("\n".join(out) + "\n").encode()


def seeds():
    pre = [("PARENT_PORT", "tcp://127.0.0.1:4000#1"), ("TN_SECRET", "0123abcd")]
    s = {}
    s["spawn-one"] = one_rank("cmd=init pmi_version=1 pmi_subversion=1\n" +
                              block("./child", 3, 1, 1, ["a", "b c"], pre, [("wdir", "/tmp")]))
    s["spawn-multiple"] = one_rank(block("./a", 1, 2, 1, ["x"], pre, [("host", "h1,h2")]) +
                                   block("./b", 2, 2, 2, [], pre, [("path", "/opt/bin")]))
    s["spawn-failed"] = one_rank(block("./child", 2, 1, 1), cfg=WHOLE | 16)
    s["spawn-chunked"] = one_rank(block("./child", 2, 1, 1, ["q"], pre), cfg=2 << 1)
    s["spawn-two-ranks"] = two_ranks(block("./a", 1, 1, 1, ["1"]), block("./b", 1, 1, 1))
    s["spawn-refused-mcmd"] = one_rank("mcmd=other\nfoo=bar\nendcmd\n" + block("./c", 1, 1, 1))
    s["spawn-bad-nprocs"] = one_rank(block("./c", 0, 1, 1) + block("./c", 1, 1, 1))
    s["spawn-args-before-argcnt"] = one_rank(
        "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\narg2=b\narg1=a\nargcnt=2\nendcmd\n")
    s["spawn-args-missing"] = one_rank(
        "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\nargcnt=3\narg1=a\nendcmd\n")
    s["spawn-info-missing"] = one_rank(
        "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\ninfo_num=2\ninfo_key_0=a\n"
        "info_val_0=b\nendcmd\n")
    # an argument past the argcnt the block declared
    s["regress-arg-past-argcnt"] = one_rank(
        "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\nargcnt=1\narg1=a\narg3=c\narg2=b\n"
        "endcmd\n")
    # info_num and preput_num sent twice: the first arrays leaked
    s["regress-info-num-twice"] = one_rank(
        "mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=1\ninfo_num=1\ninfo_key_0=a\n"
        "info_val_0=b\ninfo_num=1\ninfo_key_0=c\ninfo_val_0=d\npreput_num=1\n"
        "preput_key_0=k\npreput_val_0=v\npreput_num=1\npreput_key_0=k\npreput_val_0=v\n"
        "endcmd\n")
    # a second request while the first is ready and not yet carried out
    # (the launcher looks after lines 3, 7, 11: the block's argcnt=3 in
    # line 11 changed the ready request, whose arguments 2 and 3 are missing)
    s["regress-block-after-ready"] = one_rank(
        block("./c", 1, 1, 1, ["a"]) + "mcmd=spawn\nargcnt=3\ninfo_num=2\nendcmd\n",
        cfg=WHOLE | 32)
    # more blocks than 1024 that never add up to totspawns: the block past
    # the limit freed the request's commands and kept using them
    many = block("./c", 1, 2, 1) + "".join(
        "mcmd=spawn\nnprocs=1\nexecname=c\ntotspawns=1\nendcmd\n" for _ in range(1024))
    s["regress-blocks-past-limit"] = one_rank(many + "mcmd=spawn\nnprocs=1\nendcmd\n")
    return s


if __name__ == "__main__":
    write_seeds(seeds())
