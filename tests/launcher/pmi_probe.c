/* pmi_probe: a rank for tern-run's tests that speaks PMI-1 itself over
 * PMI_FD (no MPI library involved), in one of several modes:
 *
 *   exchange             init, maxes, kvsname, universe size, appnum (0, or
 *                        PROBE_APPNUM), put a
 *                        key, barrier, get every rank's key, missing key,
 *                        finalize; prints "rank R: exchange ok (N ranks)";
 *                        PMI_process_mapping must be PROBE_MAPPING, or
 *                        all on one host when TERN_HOST_ID is not set
 *   fence                init, put a key, barrier, get the next rank's key,
 *                        finalize (the start-up of a job: a benchmark of
 *                        the launch tree, bench/launch_tree.sh); prints
 *                        nothing
 *   exit CODE RANK       RANK exits with CODE after init; others block
 *   signal SIG RANK      RANK raises SIG (name or number); others block
 *   nofinalize RANK      RANK exits 0 after init, without finalize
 *   abort CODE RANK      RANK sends cmd=abort exitcode=CODE ("none": the
 *                        PMI-1.1 form without a code), then blocks
 *   iabort CODE RANK     the same with internal=1 (Tern's own fatal error)
 *   spam LINES           every rank writes LINES lines to stdout and to
 *                        stderr, each in three write() calls
 *   hang                 init, then block
 *   env VAR...           print "VAR=value" or "VAR unset" for each VAR
 *   shm [SIG]            create /dev/shm/tern-<kvs>-probe<r> and
 *                        /dev/shm/<kvs>-probe<r>, barrier, then rank 0
 *                        raises SIG if given, or all finalize
 *   forkwait             fork a child; print "pids R <pid> <child>"; block
 *   ignoreterm           ignore SIGINT and SIGTERM, print "ready R", block
 *   stdin                rank 0 counts the bytes of stdin, prints
 *                        "stdin R <bytes> <sum>"
 *   initack              cmd=initack pmiid=R; expects the four replies
 *   closepmi             init, finalize, close PMI_FD, print, exit 0
 *   early RANK [SECS]    RANK exits 0 before any PMI (after SECS seconds);
 *                        the others init and block in a barrier
 *   afterfin RANK        RANK inits, finalizes and exits 0; the others
 *                        block in a barrier
 *   garbage KIND         rank 0 ignores SIGTERM, sends a malformed request
 *                        (KIND: nocmd, words, nokey, binary, nul, fields,
 *                        long, cutoff), prints "reply: <line>" and blocks;
 *                        the others block in a barrier
 *   flood N              rank 0 sends N requests without reading replies,
 *                        then blocks; the others block in a barrier
 *   kvsfill BYTES        rank 0 puts keys with values of BYTES bytes until
 *                        a put fails, prints "kvs full after N puts: <reply>"
 *                        and blocks; the others block in a barrier
 *   shmkeep              (an MPI job's rank 1 beside an MPI rank 0) put
 *                        node-1 as rank 0 computes it, pass one barrier,
 *                        print "fenced", block: rank 0 waits in its shm
 *                        set-up
 *   lastwords HOW LINES  every rank printf()s LINES lines "rank R word I"
 *                        and never flushes: stdout keeps C stdio's own
 *                        buffering (by line on a terminal, by block on a
 *                        pipe); then init, put its pid, barrier, and
 *                        (HOW) abort: rank 0 calls abort(); kill: the
 *                        last rank kills rank 0 with SIGKILL; hang:
 *                        nothing; every rank left blocks
 *   tty                  print "tty R out=A err=B opost=C" (isatty() of
 *                        stdout and stderr, OPOST of stdout's terminal)
 *   longlines N LEN      every rank writes N lines of about LEN bytes to
 *                        stdout, "rank R long I L <L letters> end", in
 *                        write()s of odd sizes
 *
 * Apart from lastwords, stdout is line-buffered.
 * "Block" is a read on a pipe nobody writes to: no timed sleeping.  A failed
 * check prints "probe rank R: FAIL ..." on stderr and exits 99. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static int  pmi_fd = -1;
static int  my_rank = -1;
static int  my_size = -1;
static char rbuf[8192];
static size_t rlen;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    char    msg[1024];
    va_list ap;
    int     n = snprintf(msg, sizeof(msg), "probe rank %d: FAIL ", my_rank);

    va_start(ap, fmt);
    n += vsnprintf(msg + n, sizeof(msg) - (size_t)n - 2, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(msg) - 2) {
        n = (int)sizeof(msg) - 2;
    }
    msg[n++] = '\n';
    (void)!write(2, msg, (size_t)n);
    exit(99);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            fail("write: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

static void block_forever(void)
{
    int  p[2];
    char c;

    if (pipe(p) != 0) {
        fail("pipe");
    }
    while (1) {
        (void)!read(p[0], &c, 1);
    }
}

/* Send one command, in two writes so the server sees split lines. */
static void pmi_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void pmi_send(const char *fmt, ...)
{
    char    line[2048];
    va_list ap;
    int     n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    line[n++] = '\n';
    write_all(pmi_fd, line, (size_t)n / 2);
    write_all(pmi_fd, line + n / 2, (size_t)n - (size_t)n / 2);
}

/* Read one reply line (without '\n') into out. */
static void pmi_recv(char *out, size_t cap)
{
    char *nl;

    while ((nl = memchr(rbuf, '\n', rlen)) == NULL) {
        ssize_t n = read(pmi_fd, rbuf + rlen, sizeof(rbuf) - rlen);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            fail("PMI connection closed (%s)", n < 0 ? strerror(errno) : "EOF");
        }
        rlen += (size_t)n;
    }
    *nl = '\0';
    size_t linelen = (size_t)(nl - rbuf);
    if (linelen >= cap) {
        linelen = cap - 1;
    }
    memcpy(out, rbuf, linelen);
    out[linelen] = '\0';
    rlen -= (size_t)(nl + 1 - rbuf);
    memmove(rbuf, nl + 1, rlen);
}

/* Value of key in a reply line, copied to out; fails when absent. */
static const char *field(const char *line, const char *key, char *out, size_t cap)
{
    size_t      klen = strlen(key);
    const char *p    = line;

    while (p != NULL && *p != '\0') {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t len = strcspn(p + klen + 1, " ");

            if (len >= cap) {
                len = cap - 1;
            }
            memcpy(out, p + klen + 1, len);
            out[len] = '\0';
            return out;
        }
        p = strchr(p, ' ');
        if (p != NULL) {
            p++;
        }
    }
    fail("no %s= in reply '%s'", key, line);
}

static void expect(const char *line, const char *key, const char *want)
{
    char got[1100];

    field(line, key, got, sizeof(got));
    if (strcmp(got, want) != 0) {
        fail("reply '%s': %s=%s, want %s", line, key, got, want);
    }
}

static void pmi_init(void)
{
    char line[2048];

    pmi_send("cmd=init pmi_version=1 pmi_subversion=1");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "response_to_init");
    expect(line, "rc", "0");
    expect(line, "pmi_version", "1");
}

static void pmi_barrier(void)
{
    char line[2048];

    pmi_send("cmd=barrier_in");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "barrier_out");
}

static void pmi_finalize(void)
{
    char line[2048];

    pmi_send("cmd=finalize");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "finalize_ack");
}

static void my_kvsname(char *kvs, size_t cap)
{
    char line[2048];

    pmi_send("cmd=get_my_kvsname");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "my_kvsname");
    field(line, "kvsname", kvs, cap);
}

static int env_int(const char *name)
{
    const char *s = getenv(name);

    if (s == NULL) {
        fail("%s is not set", name);
    }
    return atoi(s);
}

static void pmi_setup(void)
{
    pmi_fd  = env_int("PMI_FD");
    my_rank = env_int("PMI_RANK");
    my_size = env_int("PMI_SIZE");
    if (fcntl(pmi_fd, F_GETFD) < 0) {
        fail("PMI_FD %d is not open", pmi_fd);
    }
}

static void mode_exchange(void)
{
    char line[2048], kvs[300], want[400], num[32];

    pmi_init();
    pmi_send("cmd=get_maxes");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "maxes");
    expect(line, "kvsname_max", "256");
    expect(line, "keylen_max", "256");
    expect(line, "vallen_max", "1024");
    pmi_send("cmd=get_appnum");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "appnum");
    expect(line, "appnum", getenv("PROBE_APPNUM") ? getenv("PROBE_APPNUM") : "0");
    pmi_send("cmd=get_universe_size");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "universe_size");
    snprintf(num, sizeof(num), "%d", my_size);
    expect(line, "size", num);
    my_kvsname(kvs, sizeof(kvs));
    if (getenv("PMI_JOBID") == NULL || strcmp(getenv("PMI_JOBID"), kvs) != 0) {
        fail("PMI_JOBID %s != kvsname %s", getenv("PMI_JOBID"), kvs);
    }
    if (strncmp(kvs, "tern-", 5) != 0) {
        fail("kvsname %s does not start with tern-", kvs);
    }

    pmi_send("cmd=put kvsname=%s key=probe-%d value=v%d-%s", kvs, my_rank,
             my_rank, kvs);
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "put_result");
    expect(line, "rc", "0");
    pmi_barrier();
    for (int i = 1; i <= my_size; i++) {
        int r = (my_rank + i) % my_size;

        pmi_send("cmd=get kvsname=%s key=probe-%d", kvs, r);
        pmi_recv(line, sizeof(line));
        expect(line, "cmd", "get_result");
        expect(line, "rc", "0");
        snprintf(want, sizeof(want), "v%d-%s", r, kvs);
        expect(line, "value", want);
    }
    pmi_send("cmd=get kvsname=%s key=nokey", kvs);
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "get_result");
    expect(line, "rc", "-1");
    expect(line, "msg", "key_nokey_not_found");
    pmi_send("cmd=get kvsname=%s key=PMI_process_mapping", kvs);
    pmi_recv(line, sizeof(line));
    snprintf(want, sizeof(want), "(vector,(0,1,%d))", my_size);
    if (getenv("PROBE_MAPPING") != NULL) {
        expect(line, "value", getenv("PROBE_MAPPING"));
    } else if (getenv("TERN_HOST_ID") == NULL) {
        expect(line, "value", want);        /* one host */
    }
    pmi_send("cmd=frobnicate");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "frobnicate_result");
    expect(line, "rc", "-1");
    pmi_barrier();                 /* nobody finalizes before all got */
    pmi_finalize();
    printf("rank %d: exchange ok (%d ranks)\n", my_rank, my_size);
}

static void mode_fence(void)
{
    char line[2048], kvs[300], want[400];
    int  r = (my_rank + 1) % my_size;

    pmi_init();
    my_kvsname(kvs, sizeof(kvs));
    pmi_send("cmd=put kvsname=%s key=f-%d value=v%d", kvs, my_rank, my_rank);
    pmi_recv(line, sizeof(line));
    expect(line, "rc", "0");
    pmi_barrier();
    pmi_send("cmd=get kvsname=%s key=f-%d", kvs, r);
    pmi_recv(line, sizeof(line));
    snprintf(want, sizeof(want), "v%d", r);
    expect(line, "value", want);
    pmi_finalize();
}

static int parse_sig(const char *s)
{
    static const struct { const char *name; int sig; } sigs[] = {
        { "SEGV", SIGSEGV }, { "KILL", SIGKILL }, { "ABRT", SIGABRT },
        { "BUS", SIGBUS },   { "FPE", SIGFPE },   { "TERM", SIGTERM },
        { "INT", SIGINT },   { "USR1", SIGUSR1 },
    };

    if (strncmp(s, "SIG", 3) == 0) {
        s += 3;
    }
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        if (strcmp(s, sigs[i].name) == 0) {
            return sigs[i].sig;
        }
    }
    return atoi(s);
}

static void die_by(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
    fail("still alive after signal %d", sig);
}

/* Modes where one rank misbehaves while the others wait in a barrier that
 * can never complete. */
static void mode_one_rank(const char *mode, int argc, char **argv)
{
    int who = atoi(argv[argc - 1]);

    pmi_init();
    if (my_rank != who) {
        pmi_barrier();
        fail("barrier completed although rank %d left", who);
    }
    if (strcmp(mode, "exit") == 0) {
        exit(atoi(argv[2]));
    } else if (strcmp(mode, "signal") == 0) {
        die_by(parse_sig(argv[2]));
    } else if (strcmp(mode, "nofinalize") == 0) {
        exit(0);
    } else if (strcmp(mode, "abort") == 0 || strcmp(mode, "iabort") == 0) {
        fprintf(stderr, "rank %d: aborting\n", my_rank);
        if (mode[0] == 'i') {
            pmi_send("cmd=abort exitcode=%s internal=1", argv[2]);
        } else if (strcmp(argv[2], "none") == 0) {
            pmi_send("cmd=abort");
        } else {
            pmi_send("cmd=abort exitcode=%s", argv[2]);
        }
        block_forever();
    }
}

static void mode_spam(int lines)
{
    static char pad[200];

    memset(pad, 'x', sizeof(pad) - 1);
    pmi_init();
    for (int i = 0; i < lines; i++) {
        char   head[64];
        int    n   = snprintf(head, sizeof(head), "rank %d line %d ", my_rank, i);
        size_t len = (size_t)(i * 7 + my_rank * 13) % (sizeof(pad) - 1) + 1;

        for (int fd = 1; fd <= 2; fd++) {
            write_all(fd, head, (size_t)n);
            write_all(fd, pad, len);
            write_all(fd, " end\n", 5);
        }
    }
    pmi_barrier();
    pmi_finalize();
}

static void mode_shm(const char *sig)
{
    char kvs[300], path[600];

    pmi_init();
    my_kvsname(kvs, sizeof(kvs));
    for (int i = 0; i < 2; i++) {
        int fd;

        snprintf(path, sizeof(path), i == 0 ? "/dev/shm/tern-%s-probe%d"
                                            : "/dev/shm/%s-probe%d", kvs, my_rank);
        fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
        if (fd < 0) {
            fail("create %s: %s", path, strerror(errno));
        }
        close(fd);
        printf("created %s\n", path);
        fflush(stdout);
    }
    pmi_barrier();
    if (sig != NULL && my_rank == 0) {
        die_by(parse_sig(sig));
    }
    if (sig != NULL) {
        pmi_barrier();                  /* rank 0 never comes: block */
    }
    pmi_finalize();
}

static void mode_forkwait(void)
{
    pid_t child;

    pmi_init();
    child = fork();
    if (child < 0) {
        fail("fork: %s", strerror(errno));
    }
    if (child == 0) {
        block_forever();
    }
    printf("pids %d %d %d\n", my_rank, (int)getpid(), (int)child);
    fflush(stdout);
    block_forever();
}

static void mode_ignoreterm(void)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    pmi_init();
    printf("ready %d %d\n", my_rank, (int)getpid());
    fflush(stdout);
    block_forever();
}

static void mode_stdin(void)
{
    unsigned long long bytes = 0, sum = 0;
    char               buf[4096];
    ssize_t            n;

    pmi_init();
    while ((n = read(0, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail("read stdin: %s", strerror(errno));
        }
        for (ssize_t i = 0; i < n; i++) {
            sum = sum * 31 + (unsigned char)buf[i];
        }
        bytes += (unsigned long long)n;
    }
    printf("stdin %d %llu %llu\n", my_rank, bytes, sum);
    pmi_finalize();
}

static void mode_initack(void)
{
    char line[2048], num[32];

    pmi_send("cmd=initack pmiid=%d", my_rank);
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "initack");
    pmi_recv(line, sizeof(line));
    expect(line, "cmd", "set");
    snprintf(num, sizeof(num), "%d", my_size);
    expect(line, "size", num);
    pmi_recv(line, sizeof(line));
    snprintf(num, sizeof(num), "%d", my_rank);
    expect(line, "rank", num);
    pmi_recv(line, sizeof(line));
    expect(line, "debug", "0");
    pmi_init();
    pmi_finalize();
    printf("rank %d: initack ok\n", my_rank);
}

/* Send bytes as they are, ignoring failures (the server may have closed). */
static void raw_send(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(pmi_fd, p, n, MSG_NOSIGNAL);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void others_wait(void)
{
    pmi_init();
    pmi_barrier();
    fail("barrier completed although rank 0 misbehaved");
}

static void mode_garbage(const char *kind)
{
    char line[2048];

    if (my_rank != 0) {
        others_wait();
    }
    signal(SIGTERM, SIG_IGN);           /* live to read the reply */
    pmi_init();
    if (strcmp(kind, "nocmd") == 0) {
        raw_send("hello=world\n", 12);
    } else if (strcmp(kind, "words") == 0) {
        raw_send("hello world\n", 12);
    } else if (strcmp(kind, "nokey") == 0) {
        raw_send("cmd=put kvsname=x key value=1\n", 30);
    } else if (strcmp(kind, "binary") == 0) {
        raw_send("cmd=get_maxes \x01\xff\n", 17);
    } else if (strcmp(kind, "nul") == 0) {
        raw_send("cmd=get_maxes\0junk\n", 19);
    } else if (strcmp(kind, "fields") == 0) {
        static const char many[] = "cmd=put a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 "
                                   "i=9 j=10 k=11 l=12 m=13 n=14 o=15 p=16 q=17\n";

        raw_send(many, sizeof(many) - 1);
    } else if (strcmp(kind, "long") == 0) {
        static char big[70000];

        memset(big, 'a', sizeof(big));
        memcpy(big, "cmd=get key=", 12);
        raw_send(big, sizeof(big));
    } else if (strcmp(kind, "cutoff") == 0) {
        raw_send("cmd=get_maxes", 13);
        shutdown(pmi_fd, SHUT_WR);
    } else {
        fail("unknown garbage kind %s", kind);
    }
    pmi_recv(line, sizeof(line));
    printf("reply: %s\n", line);
    block_forever();
}

static void mode_flood(long n)
{
    if (my_rank != 0) {
        others_wait();
    }
    pmi_init();
    for (long i = 0; i < n; i++) {
        raw_send("cmd=get_my_kvsname\n", 19);
    }
    printf("flooded\n");
    block_forever();
}

static void mode_kvsfill(size_t bytes)
{
    char  line[2048], kvs[300];
    char *val = malloc(bytes + 1);

    if (my_rank != 0) {
        others_wait();
    }
    if (val == NULL) {
        fail("malloc");
    }
    memset(val, 'v', bytes);
    val[bytes] = '\0';
    pmi_init();
    my_kvsname(kvs, sizeof(kvs));
    for (int i = 0;; i++) {
        pmi_send("cmd=put kvsname=%s key=k%d value=%s", kvs, i, val);
        pmi_recv(line, sizeof(line));
        if (strstr(line, "rc=0") == NULL) {
            printf("kvs full after %d puts: %s\n", i, line);
            break;
        }
    }
    block_forever();
}

static void mode_early(int who, double secs)
{
    if (my_rank == who) {
        usleep((useconds_t)(secs * 1e6));
        exit(0);
    }
    if (secs == 0) {
        usleep(300000);              /* enter the barrier after it left */
    }
    others_wait();
}

static void mode_afterfin(int who)
{
    if (my_rank == who) {
        pmi_init();
        pmi_finalize();
        exit(0);
    }
    others_wait();
}

/* The node key of the MPI library (runtime/init.c): host name and the
 * network namespace's inode. */
static void mode_shmkeep(void)
{
    char        host[256] = "", kvs[300], line[2048];
    struct stat st;

    gethostname(host, sizeof(host) - 1);
    if (stat("/proc/self/ns/net", &st) != 0) {
        fail("stat /proc/self/ns/net");
    }
    pmi_init();
    my_kvsname(kvs, sizeof(kvs));
    pmi_send("cmd=put kvsname=%s key=node-%d value=%s:%llx", kvs, my_rank, host,
             (unsigned long long)st.st_ino);
    pmi_recv(line, sizeof(line));
    expect(line, "rc", "0");
    pmi_barrier();
    printf("fenced %d\n", (int)getpid());
    block_forever();
}

/* Lines left in stdio's buffer: lost with a pipe when the rank dies. */
static void mode_lastwords(const char *how, int lines)
{
    char kvs[300], line[2048], val[1100];

    for (int i = 0; i < lines; i++) {
        printf("rank %d word %d\n", my_rank, i);
    }
    pmi_init();
    my_kvsname(kvs, sizeof(kvs));
    pmi_send("cmd=put kvsname=%s key=pid-%d value=%d", kvs, my_rank,
             (int)getpid());
    pmi_recv(line, sizeof(line));
    expect(line, "rc", "0");
    pmi_barrier();                      /* every rank has printed */
    if (strcmp(how, "abort") == 0 && my_rank == 0) {
        abort();
    } else if (strcmp(how, "kill") == 0 && my_rank == my_size - 1) {
        pmi_send("cmd=get kvsname=%s key=pid-0", kvs);
        pmi_recv(line, sizeof(line));
        field(line, "value", val, sizeof(val));
        if (kill((pid_t)atoi(val), SIGKILL) != 0) {
            fail("kill %s: %s", val, strerror(errno));
        }
    } else if (strcmp(how, "abort") != 0 && strcmp(how, "kill") != 0 &&
               strcmp(how, "hang") != 0) {
        fail("unknown lastwords %s", how);
    }
    block_forever();
}

static void mode_tty(void)
{
    struct termios tio;
    int            opost = -1;

    if (tcgetattr(1, &tio) == 0) {
        opost = (tio.c_oflag & OPOST) != 0;
    }
    pmi_init();
    printf("tty %d out=%d err=%d opost=%d\n", my_rank, isatty(1), isatty(2),
           opost);
    pmi_finalize();
}

static void mode_longlines(int n, int len)
{
    static char buf[1 << 20];

    if (len < 2 || len > (int)sizeof(buf) - 100) {
        fail("longlines: LEN out of range");
    }
    pmi_init();
    for (int i = 0; i < n; i++) {
        int    l   = len / 2 + (my_rank * 7919 + i * 104729) % (len / 2);
        int    h   = snprintf(buf, sizeof(buf), "rank %d long %d %d ", my_rank,
                              i, l);
        size_t tot;

        memset(buf + h, 'a' + (my_rank + i) % 26, (size_t)l);
        memcpy(buf + h + l, " end\n", 5);
        tot = (size_t)h + (size_t)l + 5;
        for (size_t off = 0, k = 0; off < tot; k++) {
            size_t piece = 1000 + (k * 2654435761u + (size_t)my_rank) % 7000;

            piece = piece < tot - off ? piece : tot - off;
            write_all(1, buf + off, piece);
            off += piece;
        }
    }
    pmi_barrier();
    pmi_finalize();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (strcmp(mode, "lastwords") != 0) {
        setvbuf(stdout, NULL, _IOLBF, 0);
    }
    if (strcmp(mode, "env") == 0) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);

            if (v != NULL) {
                printf("%s=%s\n", argv[i], v);
            } else {
                printf("%s unset\n", argv[i]);
            }
        }
        return 0;
    }
    pmi_setup();
    if (strcmp(mode, "exchange") == 0) {
        mode_exchange();
    } else if (strcmp(mode, "fence") == 0) {
        mode_fence();
    } else if ((strcmp(mode, "exit") == 0 || strcmp(mode, "signal") == 0 ||
                strcmp(mode, "abort") == 0 || strcmp(mode, "iabort") == 0) && argc == 4) {
        mode_one_rank(mode, argc, argv);
    } else if (strcmp(mode, "nofinalize") == 0 && argc == 3) {
        mode_one_rank(mode, argc, argv);
    } else if (strcmp(mode, "spam") == 0 && argc == 3) {
        mode_spam(atoi(argv[2]));
    } else if (strcmp(mode, "hang") == 0) {
        pmi_init();
        block_forever();
    } else if (strcmp(mode, "shm") == 0) {
        mode_shm(argc > 2 ? argv[2] : NULL);
    } else if (strcmp(mode, "forkwait") == 0) {
        mode_forkwait();
    } else if (strcmp(mode, "ignoreterm") == 0) {
        mode_ignoreterm();
    } else if (strcmp(mode, "stdin") == 0) {
        mode_stdin();
    } else if (strcmp(mode, "initack") == 0) {
        mode_initack();
    } else if (strcmp(mode, "early") == 0 && argc >= 3) {
        mode_early(atoi(argv[2]), argc > 3 ? atof(argv[3]) : 0);
    } else if (strcmp(mode, "afterfin") == 0 && argc == 3) {
        mode_afterfin(atoi(argv[2]));
    } else if (strcmp(mode, "garbage") == 0 && argc == 3) {
        mode_garbage(argv[2]);
    } else if (strcmp(mode, "flood") == 0 && argc == 3) {
        mode_flood(atol(argv[2]));
    } else if (strcmp(mode, "kvsfill") == 0 && argc == 3) {
        mode_kvsfill((size_t)atol(argv[2]));
    } else if (strcmp(mode, "shmkeep") == 0) {
        mode_shmkeep();
    } else if (strcmp(mode, "lastwords") == 0 && argc == 4) {
        mode_lastwords(argv[2], atoi(argv[3]));
    } else if (strcmp(mode, "tty") == 0) {
        mode_tty();
    } else if (strcmp(mode, "longlines") == 0 && argc == 4) {
        mode_longlines(atoi(argv[2]), atoi(argv[3]));
    } else if (strcmp(mode, "closepmi") == 0) {
        pmi_init();
        pmi_finalize();
        close(pmi_fd);
        printf("rank %d: closed PMI\n", my_rank);
    } else {
        fprintf(stderr, "usage: pmi_probe MODE [args] (see the source)\n");
        return 2;
    }
    return 0;
}
