/*
** store.c -- an example Yaia plugin: "store", a key-value store of JSON
** documents on SQLite.
**
** OPS (args are JSON objects; members not listed are refused)
**
**   get     {"key": STRING}
**           -> {"key": KEY, "value": VALUE}
**           or the error {"code": "not_found", "message": ...}
**   put     {"key": STRING, "value": ANY JSON}
**           -> {"key": KEY}                 (inserts, or replaces the value)
**   delete  {"key": STRING}
**           -> {"key": KEY, "deleted": BOOL} (false when there was none)
**   list    {"prefix": STRING, "limit": N}   both optional; args may be null
**           -> {"items": [{"key": KEY, "value": VALUE}, ...]}
**           the keys that start with prefix (default ""), in key order (by
**           their UTF-8 bytes, as Yaia orders object keys), at most limit
**           of them (a whole number from 0 to 10000, default 100)
**
** Values are stored as the exact JSON text of args.value (the host hands
** compact canonical JSON, so equal values are stored as equal text) and come
** back unchanged. Keys are any JSON strings, stored as their UTF-8 bytes.
**
** ERRORS are {"code": CODE, "message": TEXT}, delivered as the effect's
** catch action (or as "detail" of a failed {"op": "perform"}):
**
**   bad_args       args are not an object, a member is missing, unknown or
**                  of the wrong type, or not valid JSON
**   not_found      get of a key that is not stored
**   unknown_op     an op other than the four above
**   sqlite_error   SQLite refused ("sqlite_code" holds its extended code),
**                  for example a read-only or full disk
**   out_of_memory  an allocation failed
**
** CONFIG (the plugin's "config" in the runtime config)
**
**   {"path": FILE}   the database file, created if missing; default
**                    ":memory:", a private in-memory database that lives as
**                    long as the registration. Files use WAL journaling
**                    (synchronous=NORMAL) and a 5 s busy timeout, so several
**                    runtimes or processes may share one file. Unknown keys
**                    fail the load, so typos show.
**
**   {"plugins": [{"path": ".../store.so", "config": {"path": "app.db"}}]}
**
** THREADS
**
** The service is YAIA_SERVICE_BLOCKING: the runtime calls perform() on its
** worker pool, several calls at once. Each registration (each runtime that
** loads the plugin) opens its own connection in setup() and prepares its
** statements once; one mutex per registration serializes their use (bind,
** step, reset), so the connection is opened SQLITE_OPEN_NOMUTEX. perform()
** completes the call before it returns, after releasing the mutex. There is
** no cancel hook: a call runs to completion once started (its completion is
** then stale and dropped by the host). release() finalizes the statements
** and closes the connection; a file keeps its data for the next runtime.
**
** Build: cc -std=c11 -Wall -Wextra -O2 -IInclude -fPIC -shared
**           -fvisibility=hidden -o store.so store.c -lsqlite3 -lpthread
** (store.c includes ../common/plugin_util.h: copy it along.)
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_plugin.h"

/* What every plugin needs (PLUGIN_HAS_FIELD, plugin_offers, writing a JSON
** string, the pieces of reading one): see the header. */
#include "../common/plugin_util.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 10000
#define MAX_DEPTH 512
#define BUSY_TIMEOUT_MS 5000

/* ---------------------------------------------------------------- buffer */

/* A growable byte buffer. On allocation failure it sets oom and ignores
** further appends, so callers check once at the end. */
typedef struct {
    char *bytes;
    size_t length, capacity;
    int oom;
} buffer;

static void buf_reserve(buffer *b, size_t more)
{
    if (b->oom)
        return;
    if (b->length + more + 1 <= b->capacity)
        return;
    size_t cap = b->capacity ? b->capacity : 64;
    while (cap < b->length + more + 1) {
        if (cap > ((size_t)-1) / 2) {
            b->oom = 1;
            return;
        }
        cap *= 2;
    }
    char *bigger = realloc(b->bytes, cap);
    if (!bigger) {
        b->oom = 1;
        return;
    }
    b->bytes = bigger;
    b->capacity = cap;
}

static void buf_add(buffer *b, const void *bytes, size_t n)
{
    buf_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->bytes + b->length, bytes, n);
    b->length += n;
    b->bytes[b->length] = '\0';
}

static void buf_str(buffer *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_byte(buffer *b, char c) { buf_add(b, &c, 1); }

/* Appends n bytes of UTF-8 as a JSON string literal. */
static void buf_json_string(buffer *b, const char *s, size_t n)
{
    buf_reserve(b, n + 2);
    buf_byte(b, '"');
    size_t run = 0; /* bytes that need no escape, copied in one go */
    for (size_t i = 0; i < n; i++) {
        char esc[6];
        size_t len = plugin_json_escape_byte(esc, (unsigned char)s[i]);
        if (!len)
            continue;
        buf_add(b, s + run, i - run);
        run = i + 1;
        buf_add(b, esc, len);
    }
    buf_add(b, s + run, n - run);
    buf_byte(b, '"');
}

/* ------------------------------------------------------------------ JSON */

/*
** A strict scanner for RFC 8259 text: it checks the grammar, the escapes,
** the UTF-8 and the nesting depth, and reports where each value ends, so the
** raw text of a member can be stored as it came. The host already sends valid
** JSON; checking again costs little and keeps a store from holding anything
** it could not hand back.
*/

/* The length of the valid UTF-8 sequence at s (2 to 4 bytes, s[0] >= 0x80),
** or 0: no overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c >= 0xC2 && c <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* Scans the string at p (on its opening quote); returns the byte after the
** closing quote, or NULL. With out, the decoded UTF-8 is appended there (it
** may hold NUL bytes from \u0000: use out->length, never strlen). */
static const char *scan_string(const char *p, buffer *out)
{
    if (*p++ != '"')
        return NULL;
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20) /* control characters, and the terminating NUL */
            return NULL;
        if (c >= 0x80) {
            int n = utf8_length((const unsigned char *)p);
            if (!n)
                return NULL;
            if (out)
                buf_add(out, p, (size_t)n);
            p += n;
            continue;
        }
        if (c != '\\') {
            if (out)
                buf_byte(out, (char)c);
            p++;
            continue;
        }
        char e = p[1];
        p += 2;
        char plain;
        switch (e) {
        case '"':  plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/':  plain = '/'; break;
        case 'b':  plain = '\b'; break;
        case 'f':  plain = '\f'; break;
        case 'n':  plain = '\n'; break;
        case 'r':  plain = '\r'; break;
        case 't':  plain = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (!plugin_hex4(p, &cp))
                return NULL;
            p += 4;
            /* Beyond the BMP: a high then a low surrogate; alone, neither
            ** is a character. */
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return NULL;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (p[0] != '\\' || p[1] != 'u' || !plugin_hex4(p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return NULL;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
            if (out) {
                char u[4];
                buf_add(out, u, plugin_put_utf8(u, cp));
            }
            continue;
        }
        default:
            return NULL;
        }
        if (out)
            buf_byte(out, plain);
    }
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static const char *scan_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (is_digit(*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (!is_digit(*++p))
            return NULL;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return NULL;
        while (is_digit(*p))
            p++;
    }
    return p;
}

/* Scans one value at p (no leading white space); returns its end or NULL. */
static const char *scan_value(const char *p, int depth)
{
    switch (*p) {
    case '"':
        return scan_string(p, NULL);
    case '{':
    case '[': {
        if (depth >= MAX_DEPTH)
            return NULL;
        char close = *p == '{' ? '}' : ']';
        p = plugin_skip_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                p = scan_string(p, NULL);
                if (!p || *(p = plugin_skip_ws(p)) != ':')
                    return NULL;
                p = plugin_skip_ws(p + 1);
            }
            p = scan_value(p, depth + 1);
            if (!p)
                return NULL;
            p = plugin_skip_ws(p);
            if (*p == close)
                return p + 1;
            if (*p != ',')
                return NULL;
            p = plugin_skip_ws(p + 1);
        }
    }
    case 't':
        return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
        return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
        return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default:
        return scan_number(p);
    }
}

/* ------------------------------------------------------------ arguments */

enum { ARG_KEY = 1, ARG_VALUE = 2, ARG_PREFIX = 4, ARG_LIMIT = 8 };

typedef struct {
    int present;       /* ARG_* bits */
    buffer key;        /* decoded */
    const char *value; /* raw text inside args_json */
    size_t value_length;
    buffer prefix; /* decoded */
    long limit;
} args;

static void args_free(args *a)
{
    free(a->key.bytes);
    free(a->prefix.bytes);
}

/* A whole number from 0 to MAX_LIMIT written as the host writes integers
** (digits, no fraction or exponent); -1 otherwise. */
static long read_limit(const char *p, const char *end)
{
    if (p < end && *p == '-' && end - p == 2 && p[1] == '0')
        return 0;
    long v = 0;
    if (p == end)
        return -1;
    for (; p < end; p++) {
        if (!is_digit(*p))
            return -1;
        v = v * 10 + (*p - '0');
        if (v > MAX_LIMIT)
            return -1;
    }
    return v;
}

/*
** Reads args_json for an op that allows the members in `allowed` and needs
** those in `required`. On failure returns 0 with a message in *why (static).
** A duplicate member: the last one counts, as in the host's parser.
*/
static int read_args(const char *json, int allowed, int required, args *a, const char **why)
{
    memset(a, 0, sizeof *a);
    a->limit = DEFAULT_LIMIT;
    const char *p = plugin_skip_ws(json ? json : "null");
    if (strncmp(p, "null", 4) == 0 && *plugin_skip_ws(p + 4) == '\0' && required == 0)
        return 1; /* no args at all: every member takes its default */
    if (*p != '{') {
        *why = "args must be a JSON object";
        return 0;
    }
    p = plugin_skip_ws(p + 1);
    if (*p == '}') {
        p++;
        goto done;
    }
    for (;;) {
        buffer name = {0};
        const char *after = scan_string(p, &name);
        if (!after || name.oom) {
            free(name.bytes);
            *why = name.oom ? "out of memory" : "args are not valid JSON";
            return 0;
        }
        int which = 0;
        if (name.length == 3 && memcmp(name.bytes, "key", 3) == 0) which = ARG_KEY;
        else if (name.length == 5 && memcmp(name.bytes, "value", 5) == 0) which = ARG_VALUE;
        else if (name.length == 6 && memcmp(name.bytes, "prefix", 6) == 0) which = ARG_PREFIX;
        else if (name.length == 5 && memcmp(name.bytes, "limit", 5) == 0) which = ARG_LIMIT;
        free(name.bytes);
        if (!(which & allowed)) {
            *why = "args hold a member this op does not take";
            return 0;
        }
        p = plugin_skip_ws(after);
        if (*p != ':') {
            *why = "args are not valid JSON";
            return 0;
        }
        p = plugin_skip_ws(p + 1);
        const char *end = scan_value(p, 1);
        if (!end) {
            *why = "args are not valid JSON";
            return 0;
        }
        switch (which) {
        case ARG_KEY:
        case ARG_PREFIX: {
            buffer *slot = which == ARG_KEY ? &a->key : &a->prefix;
            if (*p != '"') {
                *why = which == ARG_KEY ? "\"key\" must be a string" : "\"prefix\" must be a string";
                return 0;
            }
            slot->length = 0;
            scan_string(p, slot);
            buf_reserve(slot, 0); /* a non-NULL pointer, even for "" */
            if (slot->oom) {
                *why = "out of memory";
                return 0;
            }
            break;
        }
        case ARG_VALUE:
            a->value = p;
            a->value_length = (size_t)(end - p);
            break;
        case ARG_LIMIT:
            a->limit = read_limit(p, end);
            if (a->limit < 0) {
                *why = "\"limit\" must be a whole number from 0 to 10000";
                return 0;
            }
            break;
        }
        a->present |= which;
        p = plugin_skip_ws(end);
        if (*p == '}') {
            p++;
            break;
        }
        if (*p != ',') {
            *why = "args are not valid JSON";
            return 0;
        }
        p = plugin_skip_ws(p + 1);
    }
done:
    if (*plugin_skip_ws(p) != '\0') {
        *why = "args are not valid JSON";
        return 0;
    }
    if ((a->present & required) != required) {
        *why = (required & ~a->present & ARG_KEY) ? "this op needs a string \"key\""
                                                   : "put needs a \"value\"";
        return 0;
    }
    return 1;
}

/* -------------------------------------------------------------- service */

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS store ("
    " key BLOB PRIMARY KEY NOT NULL," /* the key's UTF-8 bytes: byte order */
    " value TEXT NOT NULL"            /* the value's JSON text */
    ") WITHOUT ROWID";

enum { ST_GET, ST_PUT, ST_DELETE, ST_LIST_FROM, ST_LIST_RANGE, ST_COUNT };

static const char *const statements[ST_COUNT] = {
    [ST_GET] = "SELECT value FROM store WHERE key = ?1",
    [ST_PUT] = "INSERT OR REPLACE INTO store (key, value) VALUES (?1, ?2)",
    [ST_DELETE] = "DELETE FROM store WHERE key = ?1",
    [ST_LIST_FROM] = "SELECT key, value FROM store WHERE key >= ?1 ORDER BY key LIMIT ?2",
    [ST_LIST_RANGE] = "SELECT key, value FROM store WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3",
};

/* One per registration: each runtime that loads the plugin gets its own. */
typedef struct store {
    pthread_mutex_t lock; /* guards db and every statement */
    sqlite3 *db;
    sqlite3_stmt *stmt[ST_COUNT];
    /* Copied from the API table, which is only promised during setup(). */
    yaia_host *host;
    int (*call_complete)(yaia_call *, const char *);
    int (*call_fail)(yaia_call *, const char *);
    void (*log)(yaia_host *, int, const char *);
} store;

static void logf_(store *s, int level, const char *fmt, ...)
{
    if (!s->log)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->log(s->host, level, msg);
}

/* An outcome to deliver: result text or error text, built under the lock
** and delivered after it is released. */
typedef struct {
    buffer text;
    int failed;
} outcome;

static void fail_with(outcome *o, const char *code, const char *message)
{
    o->text.length = 0;
    o->failed = 1;
    buf_str(&o->text, "{\"code\":");
    buf_json_string(&o->text, code, strlen(code));
    buf_str(&o->text, ",\"message\":");
    buf_json_string(&o->text, message, strlen(message));
    buf_byte(&o->text, '}');
}

/* Under the lock: the connection's last error. */
static void fail_sqlite(store *s, outcome *o, const char *what)
{
    int code = sqlite3_extended_errcode(s->db);
    const char *msg = sqlite3_errmsg(s->db);
    o->text.length = 0;
    o->failed = 1;
    char head[96];
    snprintf(head, sizeof head, "{\"code\":\"sqlite_error\",\"message\":");
    buf_str(&o->text, head);
    buffer m = {0};
    buf_str(&m, "store: ");
    buf_str(&m, what);
    buf_str(&m, ": ");
    buf_str(&m, msg ? msg : "unknown error");
    if (m.oom)
        buf_str(&o->text, "\"store: SQLite failed\"");
    else
        buf_json_string(&o->text, m.bytes, m.length);
    free(m.bytes);
    snprintf(head, sizeof head, ",\"sqlite_code\":%d}", code);
    buf_str(&o->text, head);
}

/* Binds bytes as a BLOB; a zero-length blob needs a non-NULL pointer, or
** SQLite binds NULL. */
static int bind_bytes(sqlite3_stmt *st, int i, const buffer *b)
{
    static const char empty[1] = {0};
    return sqlite3_bind_blob(st, i, b->length ? b->bytes : empty, (int)b->length, SQLITE_STATIC);
}

static void done_with(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st); /* bound buffers are about to be freed */
}

static void op_get(store *s, const args *a, outcome *o)
{
    sqlite3_stmt *st = s->stmt[ST_GET];
    if (bind_bytes(st, 1, &a->key) != SQLITE_OK) {
        fail_sqlite(s, o, "get");
        done_with(st);
        return;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        int n = sqlite3_column_bytes(st, 0);
        buf_str(&o->text, "{\"key\":");
        buf_json_string(&o->text, a->key.bytes, a->key.length);
        buf_str(&o->text, ",\"value\":");
        buf_add(&o->text, v ? (const char *)v : "null", v ? (size_t)n : 4);
        buf_byte(&o->text, '}');
    } else if (rc == SQLITE_DONE) {
        buffer m = {0};
        buf_str(&m, "no value stored under the key ");
        buf_json_string(&m, a->key.bytes, a->key.length);
        fail_with(o, "not_found", m.oom ? "no value stored under that key" : m.bytes);
        free(m.bytes);
    } else {
        fail_sqlite(s, o, "get");
    }
    done_with(st);
}

static void op_put(store *s, const args *a, outcome *o)
{
    sqlite3_stmt *st = s->stmt[ST_PUT];
    if (bind_bytes(st, 1, &a->key) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, a->value, (int)a->value_length, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE) {
        fail_sqlite(s, o, "put");
    } else {
        buf_str(&o->text, "{\"key\":");
        buf_json_string(&o->text, a->key.bytes, a->key.length);
        buf_byte(&o->text, '}');
    }
    done_with(st);
}

static void op_delete(store *s, const args *a, outcome *o)
{
    sqlite3_stmt *st = s->stmt[ST_DELETE];
    if (bind_bytes(st, 1, &a->key) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE) {
        fail_sqlite(s, o, "delete");
    } else {
        buf_str(&o->text, "{\"deleted\":");
        buf_str(&o->text, sqlite3_changes(s->db) > 0 ? "true" : "false");
        buf_str(&o->text, ",\"key\":");
        buf_json_string(&o->text, a->key.bytes, a->key.length);
        buf_byte(&o->text, '}');
    }
    done_with(st);
}

static void op_list(store *s, const args *a, outcome *o)
{
    /* The keys with the prefix are those in [prefix, upper), where upper is
    ** the prefix with its last byte below 0xFF incremented and the rest cut
    ** off; with no such byte (only "" in UTF-8) there is no upper bound. */
    buffer upper = {0};
    size_t cut = a->prefix.length;
    while (cut > 0 && (unsigned char)a->prefix.bytes[cut - 1] == 0xFF)
        cut--;
    if (cut > 0) {
        buf_add(&upper, a->prefix.bytes, cut);
        if (upper.oom) {
            fail_with(o, "out_of_memory", "store: out of memory");
            return;
        }
        upper.bytes[cut - 1] = (char)((unsigned char)upper.bytes[cut - 1] + 1);
    }
    sqlite3_stmt *st = s->stmt[cut > 0 ? ST_LIST_RANGE : ST_LIST_FROM];
    int ok = bind_bytes(st, 1, &a->prefix) == SQLITE_OK;
    if (cut > 0)
        ok = ok && bind_bytes(st, 2, &upper) == SQLITE_OK;
    ok = ok && sqlite3_bind_int64(st, cut > 0 ? 3 : 2, a->limit) == SQLITE_OK;
    if (!ok) {
        fail_sqlite(s, o, "list");
        done_with(st);
        free(upper.bytes);
        return;
    }
    buf_str(&o->text, "{\"items\":[");
    int rc, first = 1;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const void *k = sqlite3_column_blob(st, 0);
        size_t kn = (size_t)sqlite3_column_bytes(st, 0);
        const unsigned char *v = sqlite3_column_text(st, 1);
        size_t vn = (size_t)sqlite3_column_bytes(st, 1);
        buf_str(&o->text, first ? "{\"key\":" : ",{\"key\":");
        first = 0;
        buf_json_string(&o->text, k ? k : "", k ? kn : 0);
        buf_str(&o->text, ",\"value\":");
        buf_add(&o->text, v ? (const char *)v : "null", v ? vn : 4);
        buf_byte(&o->text, '}');
    }
    if (rc != SQLITE_DONE)
        fail_sqlite(s, o, "list");
    else
        buf_str(&o->text, "]}");
    done_with(st);
    free(upper.bytes);
}

static void report(store *s, int rc, const char *what)
{
    /* STALE is normal: the effect was cancelled or timed out meanwhile. */
    if (rc != YAIA_OK && rc != YAIA_ERR_STALE)
        logf_(s, YAIA_LOG_ERROR, "store: %s returned %d", what, rc);
}

static void store_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    store *s = ctx;
    static const struct {
        const char *name;
        int allowed, required;
        void (*run)(store *, const args *, outcome *);
    } ops[] = {
        {"get", ARG_KEY, ARG_KEY, op_get},
        {"put", ARG_KEY | ARG_VALUE, ARG_KEY | ARG_VALUE, op_put},
        {"delete", ARG_KEY, ARG_KEY, op_delete},
        {"list", ARG_PREFIX | ARG_LIMIT, 0, op_list},
    };
    outcome o = {{0}, 0};
    size_t i = 0;
    while (i < sizeof ops / sizeof ops[0] && strcmp(ops[i].name, op ? op : "") != 0)
        i++;
    if (i == sizeof ops / sizeof ops[0]) {
        buffer m = {0};
        buf_str(&m, "store has no op ");
        buf_json_string(&m, op ? op : "", op ? strlen(op) : 0);
        buf_str(&m, "; its ops are get, put, delete, list");
        fail_with(&o, "unknown_op", m.oom ? "unknown op" : m.bytes);
        free(m.bytes);
    } else {
        args a;
        const char *why = NULL;
        if (!read_args(args_json, ops[i].allowed, ops[i].required, &a, &why)) {
            char m[160];
            snprintf(m, sizeof m, "store.%s: %s", ops[i].name, why);
            fail_with(&o, strcmp(why, "out of memory") == 0 ? "out_of_memory" : "bad_args", m);
        } else {
            pthread_mutex_lock(&s->lock);
            ops[i].run(s, &a, &o);
            pthread_mutex_unlock(&s->lock);
        }
        args_free(&a);
    }
    if (o.text.oom || !o.text.bytes) {
        report(s, s->call_fail(call, "{\"code\":\"out_of_memory\",\"message\":\"store: out of memory\"}"),
               "call_fail");
    } else if (o.failed) {
        report(s, s->call_fail(call, o.text.bytes), "call_fail");
    } else {
        report(s, s->call_complete(call, o.text.bytes), "call_complete");
    }
    free(o.text.bytes);
}

/* Finalizes the statements and closes the connection; frees s. */
static void store_release(void *ctx)
{
    store *s = ctx;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->stmt[i]);
        s->stmt[i] = NULL;
    }
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        logf_(s, YAIA_LOG_ERROR, "store: closing the database failed: %s", sqlite3_errmsg(s->db));
    s->db = NULL;
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---------------------------------------------------------------- plugin */

/* Reads {"path": STRING}; *path is malloc'd (NULL: the default). */
static int read_config(const char *json, char **path, const char **why)
{
    *path = NULL;
    const char *p = plugin_skip_ws(json ? json : "{}");
    if (*p != '{') {
        *why = "the config must be an object";
        return 0;
    }
    p = plugin_skip_ws(p + 1);
    if (*p == '}')
        return 1;
    for (;;) {
        buffer name = {0};
        const char *after = scan_string(p, &name);
        int is_path = after && !name.oom && name.length == 4 && memcmp(name.bytes, "path", 4) == 0;
        free(name.bytes);
        if (!after) {
            *why = "the config is not valid JSON";
            return 0;
        }
        if (!is_path) {
            *why = "unknown config key (the store takes only \"path\")";
            return 0;
        }
        p = plugin_skip_ws(after);
        if (*p != ':') {
            *why = "the config is not valid JSON";
            return 0;
        }
        p = plugin_skip_ws(p + 1);
        buffer value = {0};
        const char *end = *p == '"' ? scan_string(p, &value) : NULL;
        buf_reserve(&value, 0);
        if (!end || value.oom || value.length == 0 || memchr(value.bytes, 0, value.length)) {
            free(value.bytes);
            *why = "\"path\" must be a non-empty string without NUL";
            return 0;
        }
        free(*path);
        *path = value.bytes;
        p = plugin_skip_ws(end);
        if (*p == '}')
            return 1;
        if (*p != ',') {
            *why = "the config is not valid JSON";
            return 0;
        }
        p = plugin_skip_ws(p + 1);
    }
}

/* One statement without results, for set-up. */
static int exec_simple(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

static int store_setup(yaia_host *host, const yaia_host_api *api, const char *config_json)
{
    if (!api || !PLUGIN_HAS_FIELD(api, yaia_host_api, set_error))
        return 1;
    char msg[512];
    const char *why = NULL;
    char *path = NULL;
    if (!read_config(config_json, &path, &why)) {
        snprintf(msg, sizeof msg, "store: %s", why);
        api->set_error(host, msg);
        return 1;
    }
    if (!sqlite3_threadsafe()) {
        free(path);
        api->set_error(host, "store: this SQLite library was built without thread support");
        return 1;
    }
    store *s = calloc(1, sizeof *s);
    if (!s) {
        free(path);
        api->set_error(host, "store: out of memory");
        return 1;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->host = host;
    s->call_complete = api->call_complete;
    s->call_fail = api->call_fail;
    s->log = api->log;

    const char *file = path ? path : ":memory:";
    int in_memory = strcmp(file, ":memory:") == 0;
    int rc = sqlite3_open_v2(file, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    const char *step = "open";
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(s->db, 1);
        sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
        step = "set up";
        if (!in_memory) {
            /* WAL lets readers in other connections work while one writes;
            ** NORMAL syncs at checkpoints, which WAL keeps consistent. */
            sqlite3_stmt *st = NULL;
            step = "switch to WAL journaling";
            rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st, NULL);
            if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
                /* Answered with the mode in force: a file system without
                ** shared memory keeps the old one, which still works. */
                const unsigned char *mode = sqlite3_column_text(st, 0);
                if (!mode || strcmp((const char *)mode, "wal") != 0)
                    logf_(s, YAIA_LOG_WARNING, "store: %s stays in journal mode %s (no WAL)", file,
                          mode ? (const char *)mode : "?");
                rc = SQLITE_OK;
            }
            if (rc != SQLITE_OK) /* the message before finalize, which may reset it */
                snprintf(msg, sizeof msg, "store: cannot %s for %s: %s", step, file, sqlite3_errmsg(s->db));
            sqlite3_finalize(st);
            if (rc == SQLITE_OK) {
                step = "set up";
                rc = exec_simple(s->db, "PRAGMA synchronous=NORMAL") ? SQLITE_OK : SQLITE_ERROR;
            } else {
                free(path);
                store_release(s);
                api->set_error(host, msg);
                return 1;
            }
        }
        if (rc == SQLITE_OK && !exec_simple(s->db, schema))
            rc = SQLITE_ERROR;
        for (int i = 0; rc == SQLITE_OK && i < ST_COUNT; i++) {
            step = "prepare its statements";
            rc = sqlite3_prepare_v3(s->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i], NULL);
        }
    }
    if (rc != SQLITE_OK) {
        snprintf(msg, sizeof msg, "store: cannot %s the database %s: %s", step, file,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        free(path);
        store_release(s);
        api->set_error(host, msg);
        return 1;
    }
    free(path);

    yaia_service service = {
        .size = sizeof service,
        .name = "store",
        .ctx = s,
        .perform = store_perform,
        .cancel = NULL,
        .release = store_release,
        .flags = YAIA_SERVICE_BLOCKING,
    };
    rc = api->add_service(host, &service);
    if (rc != YAIA_OK) {
        store_release(s); /* not registered: the host will not release it */
        api->set_error(host, rc == YAIA_ERR_EXISTS ? "store: a service named \"store\" exists already"
                                                   : "store: add_service failed");
        return 1;
    }
    return 0;
}

static const yaia_plugin descriptor = {
    .size = sizeof(yaia_plugin),
    .abi_version = 1,
    .name = "store",
    .version = "1.0.0",
    .description = "Key-value store of JSON documents on SQLite",
    .setup = store_setup,
};

YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer)
{
    return plugin_offers(offer, descriptor.abi_version) ? &descriptor : NULL;
}
