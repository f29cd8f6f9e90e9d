/* Switch-by-time and link-by-time heatmaps (docs/sim.md, "Heatmaps"):
 * how full each link (or group of links) was in each time bin, and how
 * many bytes were queued at each switch (or group of switches) in each
 * bin, for link_util.csv / queue.csv and their SVG pictures.
 *
 * Rows.  At most TN_SIM_HEAT_ROWS of each.  Links (connected ports,
 * directed channels): one row per link when the fabric has that few;
 * else one row per switch (its output links) plus one for the endpoints'
 * up-links, when there are that few switches; else one row per link
 * class (endpoint up, endpoint down, fat-tree level and direction,
 * megafly leaf up / spine down, dragonfly local / global, torus
 * dimension and direction, graph switch-to-switch).  Switches: one row
 * each when there are that few, else ranges of consecutive switch
 * indices (the kinds number switches by level, group or coordinate, so a
 * range is a slice of one of those).
 *
 * Values.  Link rows: bytes carried in the bin; utilisation is bytes /
 * (the row's summed capacity x the bin's covered width).  The flow engine
 * integrates every flow's rate exactly (a rate is constant between rate
 * updates): it tells the row of each link of a flow's path when the
 * flow's rate changes (tn_sim_heat_rate, with the rows the engine
 * looked up once when the flow started); a row is brought up to date
 * only when its rate changes.  The packet engine spreads a packet's wire bytes (payload
 * and header) evenly over the time the link serializes it
 * (tn_sim_heat_carry).  Switch rows (packet level only): the largest
 * number of bytes queued at one switch's inputs (all its VOQs) held for
 * some time in the bin, the largest over the row's switches (a packet
 * that finds its output free leaves at the instant it arrives and is
 * not counted).
 *
 * Bins.  nbins of width bin_w from t = 0; when a time beyond the last
 * bin arrives, bins merge in pairs (bytes add, maxima take the larger)
 * and double their width, like the throughput bins (sim_stats.h), so
 * memory is rows x nbins whatever the run's length.
 *
 * Cost: nothing unless on; then O(hops) per flow rate change and O(1)
 * per packet sent or queued (plus O(bins crossed)). */
#ifndef TN_SIM_HEAT_H
#define TN_SIM_HEAT_H

#include <stdint.h>

#include "sim_status.h"
#include "sim_topo.h"

#define TN_SIM_HEAT_ROWS 64
#define TN_SIM_HEAT_BINS 200   /* at most this many bins (the `bins` key above it is cut) */
#define TN_SIM_HEAT_NAME 40

/* How the rows were made. */
typedef enum {
    TN_SIM_HEAT_PER_LINK,     /* links: one row each */
    TN_SIM_HEAT_PER_SWITCH,   /* links: a switch's output links; switches: one each */
    TN_SIM_HEAT_PER_CLASS,    /* links: by class and level */
    TN_SIM_HEAT_PER_RANGE,    /* switches: ranges of consecutive indices */
} tn_sim_heat_group_t;

typedef struct {
    /* what the engines touch, first */
    int on;
    int queues;                /* switch rows kept (packet level) */
    int32_t nbins_max, nbins;  /* bins in use: [0, nbins) */
    double bin_w;
    double t_max;              /* the run stops there (INFINITY: unknown) */
    int32_t cur_b;             /* flow level: the bin [cur_lo, cur_hi] of the latest flush */
    double cur_lo, cur_hi;
    int32_t *port_row;         /* [n_port] link row; -1: unconnected */
    double *lbytes;            /* [nlrow * nbins_max], row-major: bytes carried */
    int32_t *sw_row;           /* [n_sw] switch row */
    double *sw_q, *sw_t;       /* [n_sw] bytes queued now, since when */
    double *qmax;              /* [nqrow * nbins_max] */
    /* flow level: the row's rate now (bytes/ns), integrated up to lt,
     * and the number of (flow, hop) pairs on it */
    double lrate[TN_SIM_HEAT_ROWS], lt[TN_SIM_HEAT_ROWS];
    int64_t lfl[TN_SIM_HEAT_ROWS];
    double t_end;              /* tn_sim_heat_finish's time */
    /* link rows */
    int lgroup;                /* tn_sim_heat_group_t */
    int32_t nlrow;
    int32_t lrow_n[TN_SIM_HEAT_ROWS];        /* links in the row */
    double lrow_cap[TN_SIM_HEAT_ROWS];       /* their bandwidths summed, bytes/ns */
    char lrow_name[TN_SIM_HEAT_ROWS][TN_SIM_HEAT_NAME];
    char ldesc[96];            /* how the link rows were made, in words */
    /* switch rows */
    int qgroup;
    int32_t n_sw, nqrow;
    int32_t qrow_n[TN_SIM_HEAT_ROWS];
    char qrow_name[TN_SIM_HEAT_ROWS][TN_SIM_HEAT_NAME];
    char qdesc[96];            /* how the switch rows were made */
} tn_sim_heat_t;

/* Sets h up for fabric t (which must outlive it): nbins bins (at most
 * TN_SIM_HEAT_BINS; pairs merge, so even) of bin_w ns; queues: keep the
 * switch rows; t_max: where the run stops (INFINITY: when nothing is
 * left), what a packet carries after it is not counted.  on = 0 leaves h
 * off and allocates nothing. */
tn_sim_status_t tn_sim_heat_init(tn_sim_heat_t *h, const tn_sim_topo_t *t, int on, int32_t nbins,
                                 double bin_w, int queues, double t_max);
void tn_sim_heat_fini(tn_sim_heat_t *h);

/* Flow level: the link row of port (-1: none; rows fit a uint8_t). */
static inline int32_t tn_sim_heat_row(const tn_sim_heat_t *h, int32_t port)
{
    return h->port_row[port];
}
/* Link row r's rate integrated up to now (for tn_sim_heat_rate). */
void tn_sim_heat_flush(tn_sim_heat_t *h, int32_t r, double now);
/* Flow level: a flow whose hops cross the link rows row[0..n-1] changes
 * its rate by drate at now (a new flow: from 0, start = 1; an ending one:
 * to 0, start = -1; else 0).  Inline: it runs for every flow whose rate
 * moves; the common case (a row's last change in the current bin) is one
 * multiply-add per hop. */
static inline void tn_sim_heat_rate(tn_sim_heat_t *h, const uint8_t *row, int n, double now,
                                    double drate, int start)
{
    for (int k = 0; k < n; k++) {
        int32_t r = row[k];
        double lt = h->lt[r], rate = h->lrate[r];
        if (now > lt) {
            if (rate > 0 && lt >= h->cur_lo && now <= h->cur_hi) {
                h->lbytes[(size_t)r * (size_t)h->nbins_max + h->cur_b] += rate * (now - lt);
                h->lt[r] = now;
            } else {
                tn_sim_heat_flush(h, r, now);
            }
        }
        int64_t nfl = h->lfl[r] + start;
        h->lfl[r] = nfl;
        h->lrate[r] = nfl == 0 ? 0 : rate + drate;  /* no rounding left on an idle row */
    }
}
/* Packet level: port carries bytes evenly over [t0, t1] (cut at t_max). */
void tn_sim_heat_carry(tn_sim_heat_t *h, int32_t port, double t0, double t1, double bytes);
/* Packet level: switch sw's queued bytes change by dbytes at now. */
void tn_sim_heat_queue(tn_sim_heat_t *h, int32_t sw, double now, double dbytes);
/* The run ended at t: rates and queue levels are accounted up to t. */
void tn_sim_heat_finish(tn_sim_heat_t *h, double t);

/* After finish: link row r's utilisation in bin b (0 .. 1), the bin's
 * covered width (the last one ends at t_end). */
double tn_sim_heat_bin_width(const tn_sim_heat_t *h, int32_t b);
double tn_sim_heat_util(const tn_sim_heat_t *h, int32_t r, int32_t b);

#endif
