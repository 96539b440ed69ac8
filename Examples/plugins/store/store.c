/*
** store.c -- an example Yaia plugin: "store", a key-value store of JSON
** documents on SQLite, written on the host API of yaia_plugin.h: the host
** reads the args, builds the results and runs the calls in turn.
**
** OPS (args are JSON objects; members not listed are refused)
**
**   get     {"key": STRING} -> {"key": KEY, "value": VALUE}, or the error
**           {"code": "not_found", "message": ...}
**   put     {"key": STRING, "value": ANY JSON} -> {"key": KEY}
**           (inserts, or replaces the value)
**   delete  {"key": STRING} -> {"key": KEY, "deleted": BOOL}
**   list    {"prefix": STRING, "limit": N} (both optional; args may be null)
**           -> {"items": [{"key": KEY, "value": VALUE}, ...]}: the keys that
**           start with prefix (default ""), in the order of their UTF-8
**           bytes (as Yaia orders object keys), at most limit of them (a
**           whole number from 0 to 10000, default 100)
**
** Values are stored as the compact, canonical JSON text the host hands out
** for args.value; keys as their UTF-8 bytes.
**
** ERRORS are {"code": CODE, "message": TEXT}, the effect's catch action (or
** "detail" of a failed {"op": "perform"}): bad_args (args not an object, a
** member missing, unknown or of the wrong type), not_found, unknown_op,
** sqlite_error (SQLite refused; "sqlite_code" holds its extended code).
**
** CONFIG {"path": FILE}: the database file, created if missing; default
** ":memory:", private to the registration. Files use WAL journaling
** (synchronous=NORMAL) and a 5 s busy timeout, so several runtimes or
** processes may share one. Unknown keys fail the load, so typos show:
**   {"plugins": [{"path": ".../store.so", "config": {"path": "app.db"}}]}
**
** THREADS. perform() only queues the call, so the service is not blocking.
** A host call queue runs the calls one at a time: a scene's on the host's
** plugin pool, a direct call's ({"op": "perform"}) on the thread that waits
** for it. Each registration (each runtime that loads the plugin) opens its
** own connection (SQLITE_OPEN_NOMUTEX) and prepares its statements once. A call
** runs to completion once started (no cancel hook). release() waits for the
** call running and closes the connection; a file keeps its data.
**
** Build: cc -std=c11 -Wall -Wextra -O2 -IInclude -fPIC -shared
**           -fvisibility=hidden -o store.so store.c -lsqlite3
** (store.c includes ../common/plugin_util.h: copy it along.)
*/
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"
#include "../common/plugin_util.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 10000
#define BUSY_TIMEOUT_MS 5000

/* The host API table: valid for the life of the process. */
static const yaia_host_api *api;

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS store ("
    " key BLOB PRIMARY KEY NOT NULL," /* the key's UTF-8 bytes: byte order */
    " value TEXT NOT NULL"            /* the value's JSON text */
    ") WITHOUT ROWID";

/* The ops, and the statement of each. */
enum { GET, PUT, DELETE, LIST, OP_COUNT };

static const struct {
    const char *name, *sql;
    int allowed, required; /* the members it takes and needs, as below */
} ops[OP_COUNT] = {
    [GET] = {"get", "SELECT value FROM store WHERE key = ?1", 1, 1},
    [PUT] = {"put", "INSERT OR REPLACE INTO store (key, value) VALUES (?1, ?2)", 1 | 2, 1 | 2},
    [DELETE] = {"delete", "DELETE FROM store WHERE key = ?1", 1, 1},
    [LIST] = {"list", "SELECT key, value FROM store WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3", 4 | 8, 0},
};

/* One per registration: each runtime that loads the plugin gets its own. */
typedef struct store {
    sqlite3 *db;
    sqlite3_stmt *stmt[OP_COUNT];
    yaia_queue *queue; /* runs the calls one at a time: the only users of db */
} store;

/* An op's args, borrowed from the host: members 1 key, 2 value, 4 prefix, 8 limit. */
typedef struct {
    const char *key, *value, *prefix;
    size_t key_length, value_length, prefix_length;
    int64_t limit;
} args;

/* Reads the args of op; returns NULL, or why they do not fit it. */
static const char *read_args(yaia_call *call, int op, args *a)
{
    static const char *const wrong[] = {"\"key\" must be a string", "", "\"prefix\" must be a string",
                                        "\"limit\" must be a whole number from 0 to 10000"};
    memset(a, 0, sizeof *a);
    a->limit = DEFAULT_LIMIT;
    int type = api->arg_type(call, NULL);
    if (type == YAIA_JSON_NULL && ops[op].required == 0)
        return NULL; /* no args at all: every member takes its default */
    if (type != YAIA_JSON_OBJECT)
        return "args must be a JSON object";
    size_t taken = 0;
    for (int m = 0; m < 4; m++) {
        if (!(ops[op].allowed & 1 << m))
            continue; /* if it is there, the count below tells */
        int rc = m == 0 ? api->arg_string(call, "key", &a->key, &a->key_length)
                 : m == 1 ? api->arg_json(call, "value", &a->value, &a->value_length)
                 : m == 2 ? api->arg_string(call, "prefix", &a->prefix, &a->prefix_length)
                          : api->arg_int(call, "limit", &a->limit);
        if (rc == YAIA_ERR_MISSING && (ops[op].required & 1 << m))
            return m == 0 ? "this op needs a string \"key\"" : "put needs a \"value\"";
        if (rc == YAIA_ERR_MISSING)
            continue;
        if (rc != YAIA_OK || (m == 3 && (a->limit < 0 || a->limit > MAX_LIMIT)))
            return wrong[m];
        taken++;
    }
    return api->arg_count(call, NULL) == taken ? NULL : "args hold a member this op does not take";
}

/* Binds bytes as a BLOB; a zero-length blob needs a non-NULL pointer, or SQLite binds NULL. */
static int bind_bytes(sqlite3_stmt *st, int i, const char *bytes, size_t n)
{
    return sqlite3_bind_blob(st, i, n ? bytes : "", (int)n, SQLITE_STATIC);
}

/* A stored value's text; "null" stands in for one SQLite could not hand out. */
static void put_value(yaia_call *call, sqlite3_stmt *st, int column)
{
    const unsigned char *v = sqlite3_column_text(st, column);
    api->result_json(call, "value", v ? (const char *)v : "null", v ? (size_t)sqlite3_column_bytes(st, column) : 4);
}

/* A queued call: the only code that touches the connection. */
static void store_job(void *ctx, yaia_call *call)
{
    store *s = ctx;
    const char *name = api->call_op(call);
    int op = 0;
    while (name && op < OP_COUNT && strcmp(ops[op].name, name) != 0)
        op++;
    if (op == OP_COUNT)
        return; /* the call ended while it waited */
    args a;
    const char *why = read_args(call, op, &a);
    char message[512];
    if (why) {
        snprintf(message, sizeof message, "store.%s: %s", ops[op].name, why);
        api->call_error(call, "bad_args", message);
        return;
    }
    sqlite3_stmt *st = s->stmt[op];
    char *upper = NULL;
    int rc;
    if (op == LIST) {
        /* The keys with the prefix are those in [prefix, prefix "\xFF"): UTF-8 has no byte 0xFF. */
        upper = malloc(a.prefix_length + 1);
        rc = upper ? bind_bytes(st, 1, a.prefix, a.prefix_length) : SQLITE_NOMEM;
        if (rc == SQLITE_OK) {
            memcpy(upper, a.prefix, a.prefix_length);
            upper[a.prefix_length] = (char)0xFF;
            rc = bind_bytes(st, 2, upper, a.prefix_length + 1);
        }
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int64(st, 3, a.limit);
    } else {
        rc = bind_bytes(st, 1, a.key, a.key_length);
        if (rc == SQLITE_OK && op == PUT)
            rc = sqlite3_bind_text(st, 2, a.value, (int)a.value_length, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (op == LIST && (rc == SQLITE_ROW || rc == SQLITE_DONE)) {
        api->result_open(call, "items", YAIA_JSON_ARRAY);
        for (; rc == SQLITE_ROW; rc = sqlite3_step(st)) {
            const char *key = sqlite3_column_blob(st, 0);
            api->result_open(call, NULL, YAIA_JSON_OBJECT);
            api->result_string(call, "key", key ? key : "", (size_t)sqlite3_column_bytes(st, 0));
            put_value(call, st, 1);
            api->result_close(call);
        }
    }
    if (op == GET && rc == SQLITE_DONE) {
        snprintf(message, sizeof message, "no value stored under the key \"%.256s\"", a.key);
        api->call_error(call, "not_found", message);
    } else if (rc == SQLITE_DONE || (op == GET && rc == SQLITE_ROW)) {
        if (op == GET)
            put_value(call, st, 0);
        if (op == DELETE)
            api->result_bool(call, "deleted", sqlite3_changes(s->db) > 0);
        if (op != LIST)
            api->result_string(call, "key", a.key, a.key_length);
        api->call_finish(call);
    } else {
        snprintf(message, sizeof message, "store: %s: %s", ops[op].name, sqlite3_errmsg(s->db));
        api->result_reset(call);
        api->result_int(call, "sqlite_code", sqlite3_extended_errcode(s->db));
        api->call_error(call, "sqlite_error", message);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st); /* the bound args are the call's */
    free(upper);
}

static void store_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)args_json; /* read through the host instead */
    store *s = ctx;
    int known = 0;
    for (int i = 0; i < OP_COUNT; i++)
        known |= strcmp(ops[i].name, op) == 0;
    if (!known) {
        char message[320];
        snprintf(message, sizeof message, "store has no op \"%.200s\"; its ops are get, put, delete, list", op);
        api->call_error(call, "unknown_op", message);
    } else if (api->queue_submit(s->queue, call, store_job, s) == YAIA_ERR_RESOURCE) {
        api->call_error(call, "sqlite_error", "store: no worker thread could start");
    }
}

/* Waits for the call running, then finalizes the statements and closes the connection. */
static void store_release(void *ctx)
{
    store *s = ctx;
    api->queue_free(s->queue);
    for (int i = 0; i < OP_COUNT; i++)
        sqlite3_finalize(s->stmt[i]);
    sqlite3_close(s->db);
    free(s);
}

/* Says why setup fails, in msg. */
static store *refuse(char *msg, size_t size, const char *why)
{
    snprintf(msg, size, "store: %s", why);
    return NULL;
}

/* Opens and prepares the database the config names; NULL, or why not in msg. */
static store *open_store(yaia_host *host, char *msg, size_t size)
{
    yaia_call *config = api->setup_config(host);
    const char *file = ":memory:", *step = "open";
    size_t n = 0;
    int rc = api->arg_string(config, "path", &file, &n);
    if (api->arg_count(config, NULL) != (rc == YAIA_ERR_MISSING ? 0u : 1u))
        return refuse(msg, size, "unknown config key (the store takes only \"path\")");
    if (rc != YAIA_ERR_MISSING && (rc != YAIA_OK || n == 0 || strlen(file) != n))
        return refuse(msg, size, "\"path\" must be a non-empty string without NUL");
    if (!sqlite3_threadsafe()) /* the queue's jobs run on several threads, in turn */
        return refuse(msg, size, "this SQLite library was built without thread support");
    store *s = calloc(1, sizeof *s);
    if (!s || !(s->queue = api->queue_new())) {
        free(s);
        return refuse(msg, size, "out of memory");
    }
    rc = sqlite3_open_v2(file, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(s->db, 1);
        sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
        /* WAL lets readers in other connections work while one writes; NORMAL
        ** syncs at checkpoints, which WAL keeps consistent. A file system
        ** without shared memory keeps its journal mode, which still works. */
        step = "set up";
        if (strcmp(file, ":memory:") != 0)
            rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(s->db, schema, NULL, NULL, NULL);
        for (int i = 0; rc == SQLITE_OK && i < OP_COUNT; i++) {
            step = "prepare its statements";
            rc = sqlite3_prepare_v3(s->db, ops[i].sql, -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i], NULL);
        }
    }
    if (rc == SQLITE_OK)
        return s;
    snprintf(msg, size, "store: cannot %s the database %s: %s", step, file, s->db ? sqlite3_errmsg(s->db) : "out of memory");
    store_release(s);
    return NULL;
}

static int store_setup(yaia_host *host, const yaia_host_api *host_api, const char *config_json)
{
    (void)config_json; /* read through the host instead */
    if (!plugin_host_has_calls(host, host_api))
        return 1;
    api = host_api;
    char msg[512];
    store *s = open_store(host, msg, sizeof msg);
    yaia_service service = {
        .size = sizeof service,
        .name = "store",
        .ctx = s,
        .perform = store_perform,
        .release = store_release,
    };
    int rc = s ? api->add_service(host, &service) : YAIA_ERR_ARGUMENT;
    if (s && rc != YAIA_OK) {
        store_release(s); /* not registered: the host will not release it */
        snprintf(msg, sizeof msg, rc == YAIA_ERR_EXISTS ? "store: a service named \"store\" exists already"
                                                        : "store: add_service failed");
    }
    if (rc != YAIA_OK)
        api->set_error(host, msg);
    return rc != YAIA_OK;
}

PLUGIN_ENTRY(1, "store", "1.0.0", "Key-value store of JSON documents on SQLite", store_setup)
