/* tern-monitor's store: the schema, and the checks of a file opened:
 * new (the schema is made), ours (its version is checked), or anything
 * else (refused before a byte of it is changed). */
#include "mon_store_int.h"

#include <stdio.h>

/* Schema 1.  Sample rows: see mon_store_int.h; their BLOBs:
 * mon_store_codec.h.  series.last_ms is moved at most hourly: it only
 * tells when every row of a series is past retention.  Series ids are
 * given by the store (mon_store_series.c). */
static const char store_schema_sql[] =
    "BEGIN;"
    "PRAGMA application_id = 1414680141;"   /* TN_MON_STORE_APP_ID */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    "CREATE TABLE series(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
    "  first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL);"
    "CREATE INDEX series_last ON series(last_ms);"
    "CREATE TABLE samples_raw(k INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE samples_1m(k INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE samples_1h(k INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE job(id TEXT PRIMARY KEY, program TEXT, uid INTEGER, ranks INTEGER,"
    "  nodes INTEGER, state TEXT, start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL,"
    "  bytes INTEGER, msgs INTEGER);"
    "CREATE INDEX job_start ON job(start_ms);"
    "CREATE INDEX job_end ON job(end_ms) WHERE end_ms > 0;"
    "CREATE TABLE job_matrix(job_id TEXT NOT NULL, level TEXT NOT NULL, n INTEGER NOT NULL,"
    "  labels BLOB NOT NULL, cells BLOB NOT NULL, PRIMARY KEY(job_id, level));"
    "CREATE TABLE alert(id TEXT PRIMARY KEY, rule TEXT, severity TEXT, target TEXT, state TEXT,"
    "  since_ms INTEGER NOT NULL, resolved_ms INTEGER NOT NULL, value REAL, message TEXT);"
    "CREATE INDEX alert_since ON alert(since_ms);"
    "CREATE INDEX alert_resolved ON alert(resolved_ms) WHERE resolved_ms > 0;"
    "INSERT INTO meta(key, value) VALUES ('schema_version', 1);"
    "COMMIT;";

_Static_assert(TN_MON_STORE_APP_ID == 1414680141, "the schema's application_id");
_Static_assert(TN_MON_STORE_SCHEMA == 1, "store_schema_sql writes version 1");

int tn_mon_store_int(tn_mon_store_t *st, const char *sql, int64_t *v_p)
{
    sqlite3_stmt *s;
    int           rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);

    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            *v_p = sqlite3_column_int64(s, 0);
        }
    }
    if (rc != SQLITE_ROW) {
        tn_mon_store_fail(st, sql, 1);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : -1;
}

int tn_mon_store_schema(tn_mon_store_t *st, const char *path)
{
    int64_t app, tables, version = -1;
    char    what[512];

    if (tn_mon_store_int(st, "PRAGMA application_id", &app) != 0 ||
        tn_mon_store_int(st, "SELECT count(*) FROM sqlite_master", &tables) != 0) {
        return -1;
    }
    if (app == 0 && tables == 0) {
        if (sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, store_schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(what, sizeof(what), "%s: creating the schema", path);
            tn_mon_store_fail(st, what, 1);
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
        return 0;
    }
    if (app != TN_MON_STORE_APP_ID) {
        snprintf(what, sizeof(what),
                 "%s is not a tern-monitor database (application_id %#llx, %lld tables): refused",
                 path, (unsigned long long)app, (long long)tables);
        tn_mon_store_fail(st, what, 0);
        return -1;
    }
    if (tn_mon_store_int(st, "SELECT value FROM meta WHERE key = 'schema_version'", &version) != 0) {
        return -1;
    }
    if (version > TN_MON_STORE_SCHEMA) {
        snprintf(what, sizeof(what),
                 "%s has schema version %lld, this tern-monitor knows versions up to %d: "
                 "use a newer tern-monitor, or another file", path, (long long)version,
                 TN_MON_STORE_SCHEMA);
        tn_mon_store_fail(st, what, 0);
        return -1;
    }
    if (version < 1) {
        snprintf(what, sizeof(what), "%s: schema version %lld is not one there ever was: refused",
                 path, (long long)version);
        tn_mon_store_fail(st, what, 0);
        return -1;
    }
    return sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}
