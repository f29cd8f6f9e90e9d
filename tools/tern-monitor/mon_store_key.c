/* Series keys in canonical form; see mon_store_codec.h, part 4.
 *
 * The store maps a key's bytes to a series, so two spellings of one
 * series must become one string before they reach it: labels sorted, no
 * trailing comma, no empty braces.  Escapes need no rewriting: the only
 * ones accepted (\\ \" \n) are the ones the canonical form uses, so a
 * value's bytes between its quotes are copied as they are. */
#include "mon_store_codec.h"

#include <string.h>

typedef struct {
    const char *name, *value;   /* value: between the quotes, escapes kept */
    size_t      name_len, value_len;
} key_label_t;

static int is_alpha_(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A name at in[*pos]: [a-zA-Z_:][a-zA-Z0-9_:]* (colons only in a
 * metric's name).  Its length, 0 when there is none. */
static size_t key_name(const char *in, size_t len, size_t *pos, int colon)
{
    size_t start = *pos;

    while (*pos < len) {
        char c = in[*pos];
        if (!(is_alpha_(c) || (colon && c == ':') || (*pos > start && is_digit(c)))) {
            break;
        }
        (*pos)++;
    }
    return *pos - start;
}

/* A quoted value at in[*pos], the quotes included. */
static int key_value(const char *in, size_t len, size_t *pos, key_label_t *l)
{
    if (*pos >= len || in[*pos] != '"') {
        return -1;
    }
    l->value = in + ++*pos;
    while (*pos < len) {
        char c = in[*pos];
        if (c == '"') {
            l->value_len = (size_t)(in + *pos - l->value);
            (*pos)++;
            return 0;
        }
        if (c == '\n' || c == '\0') {
            return -1;
        }
        if (c == '\\') {
            if (*pos + 1 >= len || (in[*pos + 1] != '\\' && in[*pos + 1] != '"' && in[*pos + 1] != 'n')) {
                return -1;
            }
            (*pos)++;
        }
        (*pos)++;
    }
    return -1;
}

static int label_cmp(const key_label_t *a, const key_label_t *b)
{
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int    c = memcmp(a->name, b->name, n);

    if (c != 0) {
        return c;
    }
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static int key_put(char *out, size_t cap, size_t *n, const char *s, size_t len)
{
    if (len > TN_MON_KEY_MAX - *n || len >= cap - *n) {
        return -1;
    }
    memcpy(out + *n, s, len);
    *n += len;
    return 0;
}

int tn_mon_key_canon(const char *in, size_t len, char *out, size_t cap)
{
    key_label_t labels[TN_MON_KEY_LABELS_MAX];
    size_t      pos = 0, nl = 0, n = 0, metric_len;

    if (cap == 0) {
        return -1;
    }
    metric_len = key_name(in, len, &pos, 1);
    if (metric_len == 0) {
        return -1;
    }
    if (pos < len) {
        if (in[pos++] != '{') {
            return -1;
        }
        while (pos < len && in[pos] != '}') {
            key_label_t l;
            l.name     = in + pos;
            l.name_len = key_name(in, len, &pos, 0);
            if (l.name_len == 0 || nl == TN_MON_KEY_LABELS_MAX || pos >= len || in[pos++] != '=' ||
                key_value(in, len, &pos, &l) != 0) {
                return -1;
            }
            /* insertion in name order; a name seen twice is an error */
            size_t i = nl;
            while (i > 0 && label_cmp(&labels[i - 1], &l) > 0) {
                labels[i] = labels[i - 1];
                i--;
            }
            if (i > 0 && label_cmp(&labels[i - 1], &l) == 0) {
                return -1;
            }
            labels[i] = l;
            nl++;
            if (pos < len && in[pos] == ',') {
                pos++;
            } else if (pos < len && in[pos] != '}') {
                return -1;
            }
        }
        if (pos + 1 != len) {   /* the closing brace, and nothing after it */
            return -1;
        }
    }
    if (key_put(out, cap, &n, in, metric_len) != 0) {
        return -1;
    }
    for (size_t i = 0; i < nl; i++) {
        if (key_put(out, cap, &n, i == 0 ? "{" : ",", 1) != 0 ||
            key_put(out, cap, &n, labels[i].name, labels[i].name_len) != 0 ||
            key_put(out, cap, &n, "=\"", 2) != 0 ||
            key_put(out, cap, &n, labels[i].value, labels[i].value_len) != 0 ||
            key_put(out, cap, &n, "\"", 1) != 0) {
            return -1;
        }
    }
    if (nl > 0 && key_put(out, cap, &n, "}", 1) != 0) {
        return -1;
    }
    out[n] = '\0';
    return (int)n;
}

int tn_mon_key_make(char *out, size_t cap, const char *metric, const char *const *names,
                    const char *const *values, size_t n)
{
    /* the escaped text may be longer than a key before canonical form
     * takes nothing away: one key's worth of room is enough */
    char   tmp[TN_MON_KEY_MAX + 1];
    size_t len = 0;

    if (key_put(tmp, sizeof(tmp), &len, metric, strlen(metric)) != 0) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (key_put(tmp, sizeof(tmp), &len, i == 0 ? "{" : ",", 1) != 0 ||
            key_put(tmp, sizeof(tmp), &len, names[i], strlen(names[i])) != 0 ||
            key_put(tmp, sizeof(tmp), &len, "=\"", 2) != 0) {
            return -1;
        }
        for (const char *v = values[i]; *v != '\0'; v++) {
            const char *esc = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : *v == '\n' ? "\\n" : NULL;
            if (key_put(tmp, sizeof(tmp), &len, esc != NULL ? esc : v, esc != NULL ? 2 : 1) != 0) {
                return -1;
            }
        }
        if (key_put(tmp, sizeof(tmp), &len, "\"", 1) != 0) {
            return -1;
        }
    }
    if (n > 0 && key_put(tmp, sizeof(tmp), &len, "}", 1) != 0) {
        return -1;
    }
    return tn_mon_key_canon(tmp, len, out, cap);
}
