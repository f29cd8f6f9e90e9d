/* tern-monitor serve's notifications (mon_notify.h): a thread of their own,
 * so that a slow webhook or mail relay never holds up the server's loop. */
#include "mon_notify.h"
#include "mon_json.h"
#include "mon_listen.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NOTIFY_QUEUE_MAX 1000

typedef struct msg {
    struct msg *next;
    char       *webhook;            /* JSON body, or NULL */
    char       *subject, *text;     /* the mail, or NULL */
} msg_t;

struct tn_mon_notify {
    tn_mon_notify_opts_t o;
    char            wh_host[256], wh_path[512];
    uint16_t        wh_port;
    char            smtp_host[256];
    uint16_t        smtp_port;
    FILE           *log;
    pthread_t       thread;
    pthread_mutex_t lock;
    pthread_cond_t  cond;
    msg_t          *head, *tail;
    int             queued, stop, started;
    uint64_t        sent, failed, dropped;
};

static void rfc3339(uint64_t ms, char *buf, size_t len)
{
    time_t t = (time_t)(ms / 1000u);
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000u));
}

/* http://host[:port]/path; 0 or -1 (https is not spoken here). */
static int parse_url(const char *url, char *host, size_t hcap, uint16_t *port, char *path,
                     size_t pcap)
{
    if (strncmp(url, "http://", 7) != 0) {
        return -1;
    }
    const char *hp = url + 7, *slash = strchr(hp, '/');
    char hostport[300];
    size_t n = slash != NULL ? (size_t)(slash - hp) : strlen(hp);
    if (n == 0 || n >= sizeof(hostport)) {
        return -1;
    }
    memcpy(hostport, hp, n);
    hostport[n] = '\0';
    snprintf(path, pcap, "%s", slash != NULL ? slash : "/");
    return tn_mon_listen_parse(hostport, NULL, 80, host, hcap, port) == 0 && host[0] != '\0' ? 0 : -1;
}

static int tcp_connect(const char *host, uint16_t port)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *a;
    char p[8];
    snprintf(p, sizeof(p), "%u", (unsigned)port);
    if (getaddrinfo(host, p, &hints, &res) != 0) {
        return -1;
    }
    int fd = -1;
    for (a = res; a != NULL && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        struct timeval tv = { 10, 0 };
        if (fd >= 0) {
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        }
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One line of an answer into buf; its status code, -1 on failure. */
static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = recv(fd, buf + n, 1, 0);
        if (r <= 0) {
            return -1;
        }
        if (buf[n] == '\n') {
            break;
        }
        n++;
    }
    buf[n] = '\0';
    return atoi(buf);
}

static int post_webhook(tn_mon_notify_t *nt, const char *body)
{
    int fd = tcp_connect(nt->wh_host, nt->wh_port);
    if (fd < 0) {
        return -1;
    }
    char head[1024];
    int n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n", nt->wh_path, nt->wh_host,
                     strlen(body));
    char line[512];
    int ok = n > 0 && (size_t)n < sizeof(head) && send_all(fd, head, (size_t)n) == 0 &&
             send_all(fd, body, strlen(body)) == 0 && read_line(fd, line, sizeof(line)) >= 0 &&
             strncmp(line, "HTTP/1.", 7) == 0 && line[9] == '2';
    close(fd);
    return ok ? 0 : -1;
}

/* The SMTP dialogue with a relay that needs neither TLS nor a login (a
 * site's local relay). */
static int send_mail(tn_mon_notify_t *nt, const char *subject, const char *text)
{
    int fd = tcp_connect(nt->smtp_host, nt->smtp_port);
    if (fd < 0) {
        return -1;
    }
    char line[1024], cmd[1024];
    int ok = read_line(fd, line, sizeof(line)) == 220;
    const char *steps[4] = { "HELO tern-monitor\r\n", NULL, NULL, "DATA\r\n" };
    char from[300], to[300];
    snprintf(from, sizeof(from), "MAIL FROM:<%s>\r\n", nt->o.mail_from);
    snprintf(to, sizeof(to), "RCPT TO:<%s>\r\n", nt->o.mail_to);
    steps[1] = from;
    steps[2] = to;
    static const int want[4] = { 250, 250, 250, 354 };
    for (int i = 0; ok && i < 4; i++) {
        int code;
        ok = send_all(fd, steps[i], strlen(steps[i])) == 0;
        /* multi-line answers ("250-...") end with "250 " */
        do {
            code = ok ? read_line(fd, line, sizeof(line)) : -1;
        } while (ok && code > 0 && line[3] == '-');
        ok = ok && code == want[i];
    }
    if (ok) {
        int n = snprintf(cmd, sizeof(cmd), "From: tern-monitor <%s>\r\nTo: <%s>\r\nSubject: %s\r\n"
                         "Content-Type: text/plain; charset=utf-8\r\n\r\n", nt->o.mail_from,
                         nt->o.mail_to, subject);
        ok = n > 0 && (size_t)n < sizeof(cmd) && send_all(fd, cmd, (size_t)n) == 0;
        /* the text, with lines starting with '.' doubled (dot stuffing) */
        for (const char *p = text; ok && *p != '\0';) {
            size_t len = strcspn(p, "\n");
            if (*p == '.') {
                ok = send_all(fd, ".", 1) == 0;
            }
            ok = ok && send_all(fd, p, len) == 0 && send_all(fd, "\r\n", 2) == 0;
            p += len + (p[len] == '\n');
        }
        ok = ok && send_all(fd, ".\r\n", 3) == 0 && read_line(fd, line, sizeof(line)) == 250;
        (void)send_all(fd, "QUIT\r\n", 6);
    }
    close(fd);
    return ok ? 0 : -1;
}

static void *notify_main(void *arg)
{
    tn_mon_notify_t *nt = arg;
    pthread_mutex_lock(&nt->lock);
    for (;;) {
        while (nt->head == NULL && !nt->stop) {
            pthread_cond_wait(&nt->cond, &nt->lock);
        }
        if (nt->head == NULL) {
            break;                      /* stopped and drained */
        }
        msg_t *m = nt->head;
        nt->head = m->next;
        if (nt->head == NULL) {
            nt->tail = NULL;
        }
        nt->queued--;
        pthread_mutex_unlock(&nt->lock);
        int rc = 0;
        if (m->webhook != NULL) {
            rc |= post_webhook(nt, m->webhook);
        }
        if (m->subject != NULL) {
            rc |= send_mail(nt, m->subject, m->text);
        }
        if (rc != 0) {
            fprintf(stderr, "tern-monitor serve: a notification could not be delivered (%s)\n",
                    m->webhook != NULL ? "webhook" : "mail");
        }
        free(m->webhook);
        free(m->subject);
        free(m->text);
        free(m);
        pthread_mutex_lock(&nt->lock);
        if (rc == 0) {
            nt->sent++;
        } else {
            nt->failed++;
        }
    }
    pthread_mutex_unlock(&nt->lock);
    return NULL;
}

tn_mon_notify_t *tn_mon_notify_new(const tn_mon_notify_opts_t *o, char *why, size_t whylen)
{
    tn_mon_notify_t *nt = calloc(1, sizeof(*nt));
    if (nt == NULL) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    nt->o = *o;
    if (o->webhook != NULL && parse_url(o->webhook, nt->wh_host, sizeof(nt->wh_host),
                                        &nt->wh_port, nt->wh_path, sizeof(nt->wh_path)) != 0) {
        snprintf(why, whylen, "--webhook takes http://HOST[:PORT]/PATH (https is not spoken: "
                 "put a local relay in front)");
        free(nt);
        return NULL;
    }
    if (o->smtp != NULL && (tn_mon_listen_parse(o->smtp, NULL, 25, nt->smtp_host,
                                                sizeof(nt->smtp_host), &nt->smtp_port) != 0 ||
                            o->mail_to == NULL || o->mail_from == NULL)) {
        snprintf(why, whylen, "--smtp takes HOST[:PORT] and needs --mail-to and --mail-from");
        free(nt);
        return NULL;
    }
    if (o->alert_log != NULL && (nt->log = fopen(o->alert_log, "a")) == NULL) {
        snprintf(why, whylen, "cannot open %s: %s", o->alert_log, strerror(errno));
        free(nt);
        return NULL;
    }
    pthread_mutex_init(&nt->lock, NULL);
    pthread_cond_init(&nt->cond, NULL);
    if (o->webhook != NULL || o->smtp != NULL) {
        if (pthread_create(&nt->thread, NULL, notify_main, nt) != 0) {
            snprintf(why, whylen, "cannot start the notification thread");
            if (nt->log != NULL) {
                fclose(nt->log);
            }
            free(nt);
            return NULL;
        }
        nt->started = 1;
    }
    return nt;
}

void tn_mon_notify_free(tn_mon_notify_t *nt)
{
    if (nt == NULL) {
        return;
    }
    if (nt->started) {
        pthread_mutex_lock(&nt->lock);
        nt->stop = 1;
        pthread_cond_signal(&nt->cond);
        pthread_mutex_unlock(&nt->lock);
        pthread_join(nt->thread, NULL);
    }
    if (nt->log != NULL) {
        fclose(nt->log);
    }
    pthread_mutex_destroy(&nt->lock);
    pthread_cond_destroy(&nt->cond);
    free(nt);
}

/* The alert as JSON: Alertmanager's webhook payload, with Slack's "text". */
static char *alert_json(const tn_mon_alert_t *a, const tn_mon_rule_t *r, const char *text)
{
    tn_mon_buf_t b = { 0 };
    tn_mon_json_t j;
    char t0[40], t1[40];
    const char *status = a->state == TN_MON_ALERT_FIRING ? "firing" : "resolved";
    rfc3339(a->since_ms, t0, sizeof(t0));
    if (a->resolved_ms != 0) {
        rfc3339(a->resolved_ms, t1, sizeof(t1));
    } else {
        snprintf(t1, sizeof(t1), "0001-01-01T00:00:00Z");
    }
    tn_mon_json_init(&j, &b);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "text", text);
    tn_mon_json_kstr(&j, "version", "4");
    tn_mon_json_kstr(&j, "status", status);
    tn_mon_json_kstr(&j, "receiver", "tern-monitor");
    tn_mon_json_key(&j, "alerts");
    tn_mon_json_arr(&j);
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "status", status);
    tn_mon_json_key(&j, "labels");
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "alertname", r->name);
    tn_mon_json_kstr(&j, "severity", r->severity);
    for (int i = 0; i < a->nlabels; i++) {
        tn_mon_json_kstr(&j, a->lk[i], a->lv[i]);
    }
    tn_mon_json_obj_end(&j);
    tn_mon_json_key(&j, "annotations");
    tn_mon_json_obj(&j);
    tn_mon_json_kstr(&j, "summary", r->summary);
    tn_mon_json_kstr(&j, "description", a->target);
    tn_mon_json_obj_end(&j);
    tn_mon_json_kstr(&j, "startsAt", t0);
    tn_mon_json_kstr(&j, "endsAt", t1);
    char fp[32];
    snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)a->id);
    tn_mon_json_kstr(&j, "fingerprint", fp);
    tn_mon_json_obj_end(&j);
    tn_mon_json_arr_end(&j);
    tn_mon_json_obj_end(&j);
    char *out = tn_mon_json_done(&j) == 0 ? strndup(b.data, b.len) : NULL;
    tn_mon_buf_free(&b);
    return out;
}

void tn_mon_notify_alert(tn_mon_notify_t *nt, const tn_mon_alert_t *a, const tn_mon_rule_t *r)
{
    const char *status = a->state == TN_MON_ALERT_FIRING ? "FIRING" : "RESOLVED";
    char text[512];
    snprintf(text, sizeof(text), "[%s] %s (%s): %s - %s, value %g", status, r->name, r->severity,
             a->target, r->summary, a->value);
    fprintf(stderr, "tern-monitor serve: alert %s\n", text);
    char *json = alert_json(a, r, text);
    if (nt->log != NULL && json != NULL) {
        fprintf(nt->log, "%s\n", json);
        fflush(nt->log);
    }
    if (!nt->started || json == NULL) {
        free(json);
        return;
    }
    msg_t *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        free(json);
        return;
    }
    if (nt->o.webhook != NULL) {
        m->webhook = json;
    } else {
        free(json);
    }
    if (nt->o.smtp != NULL) {
        char subject[300];
        snprintf(subject, sizeof(subject), "[tern-monitor] %s %s: %s", status, r->name, a->target);
        m->subject = strdup(subject);
        m->text = strdup(text);
    }
    pthread_mutex_lock(&nt->lock);
    if (nt->queued >= NOTIFY_QUEUE_MAX) {
        nt->dropped++;                  /* a relay that is down: keep the newest */
        pthread_mutex_unlock(&nt->lock);
        free(m->webhook);
        free(m->subject);
        free(m->text);
        free(m);
        return;
    }
    if (nt->tail != NULL) {
        nt->tail->next = m;
    } else {
        nt->head = m;
    }
    nt->tail = m;
    nt->queued++;
    pthread_cond_signal(&nt->cond);
    pthread_mutex_unlock(&nt->lock);
}
