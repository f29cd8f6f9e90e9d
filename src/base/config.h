/* Configuration: the values of the table in config_table.h.
 *
 * tn_config_load() parses the environment once (at MPI_Init and in tools).
 * Afterwards only the variables whose access is LOCAL or ALL_EQ change, and
 * only through tn_config_set() (MPI_T_cvar_write); the code that reads them
 * while the job runs either reads tn_cfg each time or caches what it parsed
 * together with tn_config_generation.  Parse errors and unknown TERN_*
 * variables are reported as warnings and the default is kept. */
#ifndef TN_BASE_CONFIG_H
#define TN_BASE_CONFIG_H

#include <stdint.h>
#include "base/category_table.h"
#include "base/config_table.h"
#include "base/status.h"

typedef enum {
    TN_CFG_BOOL, TN_CFG_INT, TN_CFG_SIZE, TN_CFG_DOUBLE, TN_CFG_STRING
} tn_config_type_t;

#define TN_CFG_CTYPE_BOOL   int
#define TN_CFG_CTYPE_INT    int64_t
#define TN_CFG_CTYPE_SIZE   uint64_t
#define TN_CFG_CTYPE_DOUBLE double
#define TN_CFG_CTYPE_STRING const char *

/* Who a variable is for, and when it is read (config_table.h). */
typedef enum { TN_CFG_USER, TN_CFG_TUNER, TN_CFG_DEV } tn_config_verb_t;
typedef enum { TN_CFG_INIT, TN_CFG_LAUNCH, TN_CFG_LOCAL, TN_CFG_ALL_EQ } tn_config_access_t;

typedef struct {
#define TN_CFG_FIELD(field, name, type, def, valid, cat, verb, access, help) TN_CFG_CTYPE_##type field;
    TN_CONFIG_TABLE(TN_CFG_FIELD)
#undef TN_CFG_FIELD
} tn_config_t;

extern tn_config_t tn_cfg;

/* Description of one variable, for tools (tern-info, MPI_T). */
typedef struct {
    const char       *name;      /* "TERN_SHM_CELLS" */
    tn_config_type_t  type;
    const char       *def;       /* default, as written in the table */
    const char       *valid;     /* accepted values ("lo..hi", "a|b", "": any) */
    const char       *help;
    tn_category_t     category;
    tn_config_verb_t  verb;
    tn_config_access_t access;
    int               is_set;    /* came from the environment (or tn_config_set) */
} tn_config_desc_t;

/* Parse the environment into tn_cfg.  Idempotent; warns (once) about bad
 * values (unparsable, out of range or not a choice of the table, sizes that
 * overflow, a minimum above its maximum) and unknown TERN_* variables when
 * warn_unknown is set; a bad value keeps the default. */
void tn_config_load(int warn_unknown);

int tn_config_count(void);
/* The index of variable name ("TERN_SHM_CELLS"), or -1. */
int tn_config_index(const char *name);

/* Set variable i to str while the job runs (MPI_T_cvar_write).  Only
 * variables with access LOCAL or ALL_EQ: TN_ERR_UNSUPPORTED for the others;
 * TN_ERR_INVAL when str does not parse or is not valid (nothing changes).
 * Copies str; bumps tn_config_generation and reconfigures logging.  The
 * caller serialises it with the readers that cache (the runtime lock). */
tn_status_t tn_config_set(int i, const char *str);

/* Incremented by every tn_config_set: what was parsed from tn_cfg under
 * another generation is stale. */
extern unsigned tn_config_generation;
/* Describe variable i (0 <= i < tn_config_count()) and format its current
 * value into buf. */
void tn_config_describe(int i, tn_config_desc_t *desc_p, char *buf, int len);

/* Whether str is a valid value of variable i (parses, and within its
 * range or choices); exposed for tests. */
int tn_config_valid(int i, const char *str);

/* Parse "64k" style sizes (TN_ERR_INVAL for values beyond 2^64 - 1);
 * exposed for tests. */
tn_status_t tn_config_parse_size(const char *str, uint64_t *value_p);
tn_status_t tn_config_parse_bool(const char *str, int *value_p);

#endif
