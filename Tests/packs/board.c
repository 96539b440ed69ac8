/*
** board.c -- a scene pack written in C whose scene has child scenes
** (yaia_scene.h: child_slots and children; docs/composition.md).
**
** Scene "test/board": state {"full": F, "intercepted": I, "keys": [K...],
** "last": K|null}, open args {}. Two slots:
**   cells   keyed, "test/cell" per key, args {"id": K}; a cell's output
**           "full" arrives as the action "cellFull"
**   header  one "test/cell", args {"id": 0}, intercepted: an action sent
**           to it arrives here as "header/willSend"
** Actions:
**   add       payload K  a cell for K (at most 16)
**   remove    payload K  its cell goes
**   poke      payload K  a "hit" for cell K, as a child command
**   cellFull  payload {"key": K, "output": {...}}  full += 1, last = K
**   header/willSend  payload {"action": {...}}  intercepted += 1, and the
**           header gets a "hit" in its place
** View model {"full": F, "intercepted": I, "last": K|null}; the runtime
** adds "cells" and "header".
**
** Scene "test/cell": state {"hits": H, "id": K}, open args {"id"?}.
** Action "hit": hits += 1; the third says the output {"type": "full",
** "payload": {"hits": 3, "id": K}}. View model {"hits": H, "id": K}.
**
** children() answers YAIA_SCENE_SAME_CHILDREN, writing nothing, while the
** board's keys are those of its last answer.
**
** The FAULT macro builds the variants the runtime must refuse, or that
** answer children() otherwise (see the Makefile).
*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_scene.h"

#define EXPORT __attribute__((visibility("default")))

#ifndef FAULT
#define FAULT 0
#endif
#define FAULT_BAD_SLOTS 1        /* slots with problems: an unknown kind and member, a name with "/", no scene */
#define FAULT_SLOTS_GARBAGE 2    /* child_slots that is no JSON */
#define FAULT_NO_CHILDREN 3      /* slots, and no children() */
#define FAULT_CHILDREN_GARBAGE 4 /* children() answers text that is no JSON */
#define FAULT_CHILDREN_OBJECT 5  /* children() answers an object, no list */
#define FAULT_SAME_STALE 6       /* children() answers "the same" after its first answer, whatever the keys */
#define FAULT_SAME_FIRST 7       /* children() answers "the same" before any answer */
#define FAULT_ALWAYS_WRITES 8    /* children() writes every time, as a pack built before "the same" */

#define MAX_KEYS 16

static const yaia_scene_host *host;

typedef struct yaia_scene_state {
    int is_board;
    /* the board's */
    long long keys[MAX_KEYS];
    int count;
    long long full, intercepted, last;
    int has_last;
    /* children() has answered for the keys as they are */
    int answered;
    /* the cell's */
    long long id, hits;
} state;

static void put(yaia_scene_buffer *b, const char *text) { host->write(b, text, strlen(text)); }

static void fail(yaia_scene_buffer *b, const char *code, const char *message, const char *at)
{
    char text[512];
    snprintf(text, sizeof text, "{\"code\":\"%s\",\"message\":\"%s\",\"at\":\"%s\"}", code, message, at);
    put(b, text);
}

/* The value of member `key` of the object `json` starts with: a pointer to
** its first byte, or NULL. Keys hold no escapes here. */
static const char *member(const char *json, size_t n, const char *key)
{
    size_t k = strlen(key);
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (json[i] == '"') {
            size_t j = i + 1;
            while (j < n && json[j] != '"') j += json[j] == '\\' ? 2 : 1;
            if (j >= n) return NULL;
            size_t v = j + 1;
            while (v < n && json[v] == ' ') v++;
            if (depth == 1 && v < n && json[v] == ':' && j - i - 1 == k && strncmp(json + i + 1, key, k) == 0) {
                for (v++; v < n && json[v] == ' '; v++) {}
                return v < n ? json + v : NULL;
            }
            i = j;
        } else if (json[i] == '{' || json[i] == '[') {
            depth++;
        } else if (json[i] == '}' || json[i] == ']') {
            depth--;
        }
    }
    return NULL;
}

static int whole(const char *v, const char *end, long long *out)
{
    if (!v || v >= end) return 0;
    char *stop;
    long long x = strtoll(v, &stop, 10);
    if (stop == v || stop > end || (stop < end && *stop != ',' && *stop != '}' && *stop != ']' && *stop != ' ')) return 0;
    *out = x;
    return 1;
}

/* Whether the string member "type" of `json` is `name`. */
static int is_type(const char *json, size_t n, const char *name)
{
    const char *v = member(json, n, "type");
    size_t k = strlen(name);
    return v && *v == '"' && (size_t)(json + n - v) > k + 1 && strncmp(v + 1, name, k) == 0 && v[k + 1] == '"';
}

static int find(const state *s, long long key)
{
    for (int i = 0; i < s->count; i++)
        if (s->keys[i] == key) return i;
    return -1;
}

static state *make_board(const char *json, size_t n, int restoring, yaia_scene_buffer *error)
{
    if (n < 2 || json[0] != '{') {
        fail(error, restoring ? "bad_state" : "bad_args", "an object, please", "");
        return NULL;
    }
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->is_board = 1;
    if (!restoring) return s;
    const char *end = json + n;
    const char *v = member(json, n, "keys");
    if (!whole(member(json, n, "full"), end, &s->full) || !whole(member(json, n, "intercepted"), end, &s->intercepted) || !v || *v != '[') {
        fail(error, "bad_state", "a board's state has full, intercepted and keys", "");
        free(s);
        return NULL;
    }
    for (v++; v < end && *v != ']';) {
        long long key;
        if (s->count == MAX_KEYS || !whole(v, end, &key)) {
            fail(error, "bad_state", "keys are at most 16 whole numbers", "/keys");
            free(s);
            return NULL;
        }
        s->keys[s->count++] = key;
        while (v < end && *v != ',' && *v != ']') v++;
        if (v < end && *v == ',') v++;
    }
    s->has_last = whole(member(json, n, "last"), end, &s->last);
    return s;
}

static state *make_cell(const char *json, size_t n, int restoring, yaia_scene_buffer *error)
{
    if (n < 2 || json[0] != '{') {
        fail(error, restoring ? "bad_state" : "bad_args", "an object, please", "");
        return NULL;
    }
    state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    const char *end = json + n;
    const char *id = member(json, n, "id");
    if ((id && !whole(id, end, &s->id)) || (restoring && !whole(member(json, n, "hits"), end, &s->hits))) {
        fail(error, restoring ? "bad_state" : "bad_args", "a cell has a whole number id (and hits)", "/id");
        free(s);
        return NULL;
    }
    return s;
}

static yaia_scene_state *board_open(const yaia_scene_type *t, const char *a, size_t n, yaia_scene_buffer *e) { (void)t; return make_board(a, n, 0, e); }
static yaia_scene_state *board_restore(const yaia_scene_type *t, const char *a, size_t n, yaia_scene_buffer *e) { (void)t; return make_board(a, n, 1, e); }
static yaia_scene_state *cell_open(const yaia_scene_type *t, const char *a, size_t n, yaia_scene_buffer *e) { (void)t; return make_cell(a, n, 0, e); }
static yaia_scene_state *cell_restore(const yaia_scene_type *t, const char *a, size_t n, yaia_scene_buffer *e) { (void)t; return make_cell(a, n, 1, e); }

static int view_model(yaia_scene_state *s, yaia_scene_buffer *out)
{
    char t[160];
    if (!s->is_board) {
        snprintf(t, sizeof t, "{\"hits\":%lld,\"id\":%lld}", s->hits, s->id);
    } else if (s->has_last) {
        snprintf(t, sizeof t, "{\"full\":%lld,\"intercepted\":%lld,\"last\":%lld}", s->full, s->intercepted, s->last);
    } else {
        snprintf(t, sizeof t, "{\"full\":%lld,\"intercepted\":%lld,\"last\":null}", s->full, s->intercepted);
    }
    put(out, t);
    return 0;
}

static int state_json(yaia_scene_state *s, yaia_scene_buffer *out)
{
    char t[160];
    if (!s->is_board) {
        snprintf(t, sizeof t, "{\"hits\":%lld,\"id\":%lld}", s->hits, s->id);
        put(out, t);
        return 0;
    }
    snprintf(t, sizeof t, "{\"full\":%lld,\"intercepted\":%lld,\"keys\":[", s->full, s->intercepted);
    put(out, t);
    for (int i = 0; i < s->count; i++) {
        snprintf(t, sizeof t, i ? ",%lld" : "%lld", s->keys[i]);
        put(out, t);
    }
    if (s->has_last)
        snprintf(t, sizeof t, "],\"last\":%lld}", s->last);
    else
        snprintf(t, sizeof t, "],\"last\":null}");
    put(out, t);
    return 0;
}

/* Reads and applies (when apply is set) one action of the board; 0 on success. */
static int board_act(state *s, const char *action, size_t n, yaia_scene_buffer *out, int apply)
{
    const char *end = action + n;
    const char *payload = member(action, n, "payload");
    long long key = 0;
    char t[256];
    if (is_type(action, n, "add") || is_type(action, n, "remove") || is_type(action, n, "poke")) {
        if (!whole(payload, end, &key)) {
            fail(out, "bad_payload", "a whole number, please", "/payload");
            return 1;
        }
        int at = find(s, key);
        if (is_type(action, n, "add") && at < 0 && s->count == MAX_KEYS) {
            fail(out, "bad_payload", "a board holds at most 16 cells", "/payload");
            return 1;
        }
        if (!apply) return 0;
        if (is_type(action, n, "add") && at < 0) {
            s->keys[s->count++] = key;
            s->answered = FAULT == FAULT_SAME_STALE && s->answered;
        }
        if (is_type(action, n, "remove") && at >= 0) {
            memmove(s->keys + at, s->keys + at + 1, sizeof *s->keys * (size_t)(s->count - at - 1));
            s->count--;
            s->answered = FAULT == FAULT_SAME_STALE && s->answered;
        }
        if (is_type(action, n, "poke")) {
            snprintf(t, sizeof t, "[{\"child\":{\"action\":{\"type\":\"hit\"},\"key\":%lld,\"slot\":\"cells\"}}]", key);
            put(out, t);
        } else {
            put(out, "[]");
        }
    } else if (is_type(action, n, "cellFull")) {
        if (!payload || !whole(member(payload, (size_t)(end - payload), "key"), end, &key)) {
            fail(out, "bad_payload", "cellFull needs the cell's key", "/payload/key");
            return 1;
        }
        if (!apply) return 0;
        s->full++;
        s->last = key;
        s->has_last = 1;
        put(out, "[]");
    } else if (is_type(action, n, "header/willSend")) {
        if (!apply) return 0;
        s->intercepted++;
        put(out, "[{\"child\":{\"action\":{\"type\":\"hit\"},\"slot\":\"header\"}}]");
    } else {
        fail(out, "unknown_action", "the board knows add, remove, poke, cellFull and header/willSend", "/type");
        return 1;
    }
    return 0;
}

static int cell_act(state *s, const char *action, size_t n, yaia_scene_buffer *out, int apply)
{
    if (!is_type(action, n, "hit")) {
        fail(out, "unknown_action", "a cell knows hit", "/type");
        return 1;
    }
    if (!apply) return 0;
    s->hits++;
    if (s->hits == 3) {
        char t[160];
        snprintf(t, sizeof t, "[{\"output\":{\"payload\":{\"hits\":3,\"id\":%lld},\"type\":\"full\"}}]", s->id);
        put(out, t);
    } else {
        put(out, "[]");
    }
    return 0;
}

static int reduce(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *out, yaia_scene_buffer *vm)
{
    if ((s->is_board ? board_act : cell_act)(s, action, n, out, 1) != 0) return 1;
    return view_model(s, vm);
}

static int check(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *error)
{
    return (s->is_board ? board_act : cell_act)(s, action, n, error, 0);
}

static void free_state(yaia_scene_state *s) { free(s); }

__attribute__((unused)) static int board_children(yaia_scene_state *s, yaia_scene_buffer *out)
{
    if (FAULT == FAULT_CHILDREN_GARBAGE) {
        put(out, "[{\"slot\":");
        return 0;
    }
    if (FAULT == FAULT_CHILDREN_OBJECT) {
        put(out, "{\"slot\":\"header\"}");
        return 0;
    }
    if (FAULT == FAULT_SAME_FIRST || (s->answered && FAULT != FAULT_ALWAYS_WRITES)) return YAIA_SCENE_SAME_CHILDREN;
    char t[96];
    put(out, "[{\"args\":{\"id\":0},\"slot\":\"header\"}");
    for (int i = 0; i < s->count; i++) {
        snprintf(t, sizeof t, ",{\"args\":{\"id\":%lld},\"key\":%lld,\"slot\":\"cells\"}", s->keys[i], s->keys[i]);
        put(out, t);
    }
    put(out, "]");
    s->answered = 1;
    return 0;
}

static const yaia_scene_type board_type = {
    .size = sizeof(yaia_scene_type),
    .name = "test/board",
    .open = board_open,
    .restore = board_restore,
    .reduce = reduce,
    .check = check,
    .view_model = view_model,
    .state = state_json,
    .free_state = free_state,
    .flags = YAIA_SCENE_CANONICAL,
#if FAULT == FAULT_BAD_SLOTS
    .child_slots = "{\"a/b\":{\"kind\":\"one\",\"scene\":\"test/cell\"},"
                   "\"cells\":{\"kind\":\"many\",\"scene\":\"test/cell\",\"size\":3},\"header\":{\"kind\":\"one\"}}",
#elif FAULT == FAULT_SLOTS_GARBAGE
    .child_slots = "{\"cells\":",
#else
    .child_slots = "{\"cells\":{\"kind\":\"keyed\",\"outputs\":{\"full\":\"cellFull\"},\"scene\":\"test/cell\"},"
                   "\"header\":{\"intercept\":true,\"kind\":\"one\",\"scene\":\"test/cell\"}}",
#endif
#if FAULT != FAULT_NO_CHILDREN
    .children = board_children,
#endif
};

/* A scene type built before the children fields: it has none. */
static const yaia_scene_type cell_type = {
    .size = offsetof(yaia_scene_type, child_slots),
    .name = "test/cell",
    .open = cell_open,
    .restore = cell_restore,
    .reduce = reduce,
    .check = check,
    .view_model = view_model,
    .state = state_json,
    .free_state = free_state,
    .flags = YAIA_SCENE_CANONICAL,
};

static const yaia_scene_type *const scenes[] = {&board_type, &cell_type};

static const yaia_scene_pack pack = {
    .size = sizeof(yaia_scene_pack),
    .abi_version = YAIA_SCENE_ABI_VERSION,
    .name = "board",
    .version = "1.0.0",
    .scene_count = 2,
    .scenes = scenes,
};

EXPORT const yaia_scene_pack *yaia_scene_pack_init(const yaia_scene_host *h)
{
    if (!h || h->size < sizeof(yaia_scene_host)) return NULL;
    host = h;
    return &pack;
}
