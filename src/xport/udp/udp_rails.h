/* Which rails two ranks use between them (sans I/O).
 *
 * Every rank opens a socket on each of its candidate interfaces and
 * publishes a card in the job's key/value space: whether the list was
 * pinned (TERN_UDP_RAILS) or found (auto), and per candidate its address,
 * the prefix length of its subnet, its port, and up to TN_UDP_CAND_ROUTES
 * routes of the kernel's main table that leave through its interface
 * (not the default route).  After the fence every rank reads every card,
 * and the functions below turn the same cards into the same answer on
 * every rank, so both ends of a pair agree on the rails without another
 * exchange:
 *
 *  - Duplicated addresses.  An address that ranks on two different nodes
 *    publish (docker0's 172.17.0.1 on many hosts) is not unique in the
 *    job: a datagram sent to it stays on the sender's host, where any local
 *    process that binds the port reads it.  Auto drops such candidates for
 *    every pair; a pinned one is a fatal error.  Ranks on one node share
 *    their addresses legitimately.  "Node" is the runtime's node map
 *    (host name and network namespace), the same on every rank.
 *
 *  - Reach.  From candidate x of rank A, address y is reached when the
 *    longest of A's published prefixes (its candidates' subnets and
 *    routes) that holds y is one of x's: the kernel would send to y
 *    through x's interface.  A subnet or route of length 0 (the default
 *    route) reaches nothing.
 *
 *  - Pairs.  For ranks lo < hi, both auto (or one of them pinned): lo's
 *    candidates in its order, each with the first of hi's not yet taken
 *    that it reaches and that reaches it back, up to TN_UDP_MAX_RAILS
 *    pairs, skipping duplicated addresses.  Both pinned: rail i with rail
 *    i, as many as the shorter list has, used as given.  The pair list of
 *    (lo, hi) is the one list of the connection; rail i of a connection is
 *    pair i at both ends. */
#ifndef TN_XPORT_UDP_UDP_RAILS_H
#define TN_XPORT_UDP_UDP_RAILS_H

#include <stddef.h>
#include <stdint.h>
#include "base/status.h"
#include "xport/udp/udp_conn.h"     /* TN_UDP_MAX_RAILS */

#define TN_UDP_MAX_CANDS   8      /* interfaces one rank offers */
#define TN_UDP_CAND_ROUTES 3      /* routes published per interface */
/* A card's longest form: "p" and per candidate ",255.255.255.255/32:65535"
 * plus routes "+255.255.255.255/32"; fits a PMI value (1024). */
#define TN_UDP_CARD_LEN    (1 + TN_UDP_MAX_CANDS * (25 + TN_UDP_CAND_ROUTES * 19) + 1)

typedef struct {
    uint32_t net;                 /* network byte order, host bits zero */
    uint8_t  len;                 /* 1..32 */
} tn_udp_prefix_t;

typedef struct {
    uint32_t        addr;         /* IPv4, network byte order */
    uint16_t        port;         /* host byte order, 1..65535 */
    uint8_t         len;          /* prefix length of the interface's subnet, 0..32 */
    uint8_t         nroutes;
    tn_udp_prefix_t route[TN_UDP_CAND_ROUTES];
} tn_udp_cand_t;

typedef struct {
    int           pinned;         /* from TERN_UDP_RAILS, not auto */
    int           n;              /* 0..TN_UDP_MAX_CANDS */
    tn_udp_cand_t c[TN_UDP_MAX_CANDS];
} tn_udp_card_t;

/* One rail of a pair: the index of my candidate and of the peer's. */
typedef struct {
    uint8_t mine, peer;
} tn_udp_pair_t;

/* "a,10.1.2.3/24:40000+10.9.0.0/16,..." (a: auto, p: pinned; characters
 * that every PMI carries in a value) into buf (len >= TN_UDP_CARD_LEN
 * always fits).  Returns the length, 0 when it did not fit. */
size_t tn_udp_card_format(const tn_udp_card_t *card, char *buf, size_t len);
/* Parse a card that another rank published.  Anything but the exact form
 * above (known mode, at most TN_UDP_MAX_CANDS candidates and
 * TN_UDP_CAND_ROUTES routes each, prefix lengths in range, ports 1..65535,
 * routes with no host bits) is TN_ERR_PROTO; *card_p is then undefined. */
tn_status_t tn_udp_card_parse(const char *str, tn_udp_card_t *card_p);

/* Duplicated addresses: dup_p[r] bit i is set when candidate i of rank r
 * has an address that a rank on another node (node_of[], n ranks) also
 * publishes.  TN_ERR_NOMEM when no scratch memory. */
tn_status_t tn_udp_rails_dups(const tn_udp_card_t *cards, const int *node_of, int n,
                              uint32_t *dup_p);
/* A rank on another node than rank r that publishes the address of r's
 * candidate i (the lowest), or -1: for messages. */
int tn_udp_rails_dup_rank(const tn_udp_card_t *cards, const int *node_of, int n, int r, int i);

/* Whether candidate i of card reaches addr (see above). */
int tn_udp_rails_reach(const tn_udp_card_t *card, int i, uint32_t addr);

/* The rails between ranks me and peer (cards and dup bits of all ranks,
 * see above) into out[0..TN_UDP_MAX_RAILS), from me's side.  Returns how
 * many (0: none usable).  The same on both ranks, mirrored. */
int tn_udp_rails_between(const tn_udp_card_t *cards, const uint32_t *dup, int me, int peer,
                         tn_udp_pair_t *out);

/* The rails of one pair, from one side. */
typedef struct {
    int           n;
    tn_udp_pair_t pair[TN_UDP_MAX_RAILS];
} tn_udp_rails_t;

/* Rank me's plan, from the cards of all n ranks and node_of[]: dup_p[]
 * (n entries) as tn_udp_rails_dups, rails_p[r] for every rank r with
 * use[r] (the others are left alone), *used_p the mask of me's candidates
 * that some pair uses.  TN_ERR_INVAL, with why in msg (a sentence naming
 * ranks and addresses), when a pinned address is duplicated (checked on
 * every rank's card, so that every rank says the same) or when me and a
 * peer have no usable rail; TN_ERR_NOMEM. */
tn_status_t tn_udp_rails_plan(const tn_udp_card_t *cards, const int *node_of, int n, int me,
                              const unsigned char *use, uint32_t *dup_p,
                              tn_udp_rails_t *rails_p, unsigned *used_p, char *msg,
                              size_t msglen);

/* What became of me's candidates, for the log: "kept 10.1.2.3:40000 (eth0) for
 * 5 peers; dropped 172.17.0.1 (docker0): rank 4 on another node has it
 * too; dropped 10.9.0.1 (eth2): reaches no peer's rail".  ifname[i]: the
 * interface of candidate i, or NULL. */
void tn_udp_rails_summary(const tn_udp_card_t *cards, const int *node_of, int n, int me,
                          const uint32_t *dup, const tn_udp_rails_t *rails,
                          const unsigned char *use, const char (*ifname)[16], char *buf,
                          size_t len);

#endif
