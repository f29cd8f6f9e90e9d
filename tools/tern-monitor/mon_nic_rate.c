/* Per-second rates between two samples of the node's network counters
 * (mon_nic.h).  Plain arithmetic on two samples; no I/O.
 *
 * Entries are matched by name: an interface by its name, an IB port by
 * device and port number.  One only in the newer sample gets no rates the
 * first time (NEW): it may have been created in the interval, or only
 * missed by the older sample (past the cap, a read that failed), and its
 * counters' whole lifetime over one second would be a spike on a chart
 * that never happened.  One only in the older sample is listed once as
 * GONE, so that the caller ends its series. */
#include "mon_nic.h"

#include <errno.h>
#include <string.h>

_Static_assert(TN_MON_NIC_IF_NCTR <= 32 && TN_MON_NIC_SNMP_NCTR <= 32 && TN_MON_NIC_IB_NCTR <= 32,
               "the have masks are 32 bits");

/* Rates of n counters; from_zero: the entry was made anew (another
 * ifindex), so the old values say nothing. */
static void ctr_rates(const uint64_t *o, uint32_t oh, const uint64_t *c, uint32_t ch, int n,
                      int from_zero, double dt, double *rate, uint32_t *have_p,
                      uint32_t *flags_p)
{
    uint32_t have = from_zero ? ch : oh & ch;

    for (int i = 0; i < n; i++) {
        rate[i] = 0;
        if (!(have & (1u << i))) {
            continue;
        }
        if (from_zero || c[i] < o[i]) {
            /* reset (driver reload, counters cleared): counted from zero since */
            rate[i] = (double)c[i] / dt;
            *flags_p |= TN_MON_NIC_RESET;
        } else {
            rate[i] = (double)(c[i] - o[i]) / dt;
        }
    }
    *have_p = have;
}

static int if_same(const tn_mon_nic_if_t *a, const tn_mon_nic_if_t *b)
{
    return strncmp(a->name, b->name, TN_MON_NIC_NAME_LEN) == 0;
}

static int ib_same(const tn_mon_nic_ib_t *a, const tn_mon_nic_ib_t *b)
{
    return a->port == b->port && strncmp(a->dev, b->dev, TN_MON_NIC_IBDEV_LEN) == 0;
}

static void if_entry(tn_mon_nic_if_rate_t *r, const tn_mon_nic_if_t *e, uint32_t flags)
{
    memset(r, 0, sizeof(*r));
    memcpy(r->name, e->name, TN_MON_NIC_NAME_LEN - 1);
    r->flags = flags;
}

static void ib_entry(tn_mon_nic_ib_rate_t *r, const tn_mon_nic_ib_t *e, uint32_t flags)
{
    memset(r, 0, sizeof(*r));
    memcpy(r->dev, e->dev, TN_MON_NIC_IBDEV_LEN - 1);
    r->port = e->port;
    r->flags = flags;
}

static void if_rates(const tn_mon_nic_sample_t *old, const tn_mon_nic_sample_t *cur, double dt,
                     tn_mon_nic_rates_t *r)
{
    unsigned char seen[TN_MON_NIC_IF_MAX] = { 0 };

    r->n_if = 0;
    for (uint32_t i = 0; i < cur->n_if; i++) {
        const tn_mon_nic_if_t *c = &cur->ifs[i];
        tn_mon_nic_if_rate_t  *out = &r->ifs[r->n_if++];
        uint32_t               j;

        for (j = 0; j < old->n_if && !(if_same(&old->ifs[j], c) && !seen[j]); j++) {
        }
        if (j == old->n_if) {
            if_entry(out, c, TN_MON_NIC_NEW);
            continue;
        }
        const tn_mon_nic_if_t *o = &old->ifs[j];
        seen[j] = 1;
        if_entry(out, c, 0);
        ctr_rates(o->ctr, o->have, c->ctr, c->have, TN_MON_NIC_IF_NCTR,
                  o->ifindex != 0 && c->ifindex != 0 && o->ifindex != c->ifindex, dt, out->rate,
                  &out->have, &out->flags);
    }
    for (uint32_t j = 0; j < old->n_if; j++) {
        if (!seen[j]) {
            if_entry(&r->ifs[r->n_if++], &old->ifs[j], TN_MON_NIC_GONE);
        }
    }
}

static void ib_rates(const tn_mon_nic_sample_t *old, const tn_mon_nic_sample_t *cur, double dt,
                     tn_mon_nic_rates_t *r)
{
    unsigned char seen[TN_MON_NIC_IB_MAX] = { 0 };

    r->n_ib = 0;
    for (uint32_t i = 0; i < cur->n_ib; i++) {
        const tn_mon_nic_ib_t *c = &cur->ib[i];
        tn_mon_nic_ib_rate_t  *out = &r->ib[r->n_ib++];
        uint32_t               j;

        for (j = 0; j < old->n_ib && !(ib_same(&old->ib[j], c) && !seen[j]); j++) {
        }
        if (j == old->n_ib) {
            ib_entry(out, c, TN_MON_NIC_NEW);
            continue;
        }
        const tn_mon_nic_ib_t *o = &old->ib[j];
        seen[j] = 1;
        ib_entry(out, c, 0);
        ctr_rates(o->ctr, o->have, c->ctr, c->have, TN_MON_NIC_IB_NCTR, 0, dt, out->rate,
                  &out->have, &out->flags);
    }
    for (uint32_t j = 0; j < old->n_ib; j++) {
        if (!seen[j]) {
            ib_entry(&r->ib[r->n_ib++], &old->ib[j], TN_MON_NIC_GONE);
        }
    }
}

int tn_mon_nic_delta(const tn_mon_nic_sample_t *old, const tn_mon_nic_sample_t *cur,
                     tn_mon_nic_rates_t *rates_p)
{
    if (cur->t_ns <= old->t_ns || old->n_if > TN_MON_NIC_IF_MAX ||
        cur->n_if > TN_MON_NIC_IF_MAX || old->n_ib > TN_MON_NIC_IB_MAX ||
        cur->n_ib > TN_MON_NIC_IB_MAX) {
        return -EINVAL;
    }
    double dt = (double)(cur->t_ns - old->t_ns) / 1e9;

    rates_p->dt_s = dt;
    rates_p->snmp_flags = 0;
    ctr_rates(old->snmp.ctr, old->snmp.have, cur->snmp.ctr, cur->snmp.have,
              TN_MON_NIC_SNMP_NCTR, 0, dt, rates_p->snmp, &rates_p->snmp_have,
              &rates_p->snmp_flags);
    if_rates(old, cur, dt, rates_p);
    ib_rates(old, cur, dt, rates_p);
    return 0;
}
