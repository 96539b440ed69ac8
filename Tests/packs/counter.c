/*
** counter.c -- a scene pack written in C against yaia_scene.h: the second
** pack of the multi-pack tests, and proof that a pack needs no Swift.
**
** Scene "test/counter": state {"count": N, "step": S}; open args {"start"?,
** "step"?}. Actions:
**   increment            count += step
**   add       payload N  count += N (a whole number, else bad_payload)
**   login     payload E  route push "example/login" with {"email": E}: a
**                        scene of another pack
**   fetch                effect {"service":"echo","op":"echo","args":{"count":N},
**                        "then":"fetched"}
**   fetched   payload {"count": N}  count = N
**   done                 route pop with result {"count": N}
** View model {"count": N, "even": bool}. Invariant "belowThousand": count < 1000.
** It also ships a scene document, "test/toggle": state {"on": bool}, action
** "flip".
**
** Its JSON reading is only what these flat objects need; the FAULT macro
** builds the broken variants the loader refuses and the answers the runtime
** must refuse (see the Makefile).
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
/* The broken variants: */
#define FAULT_FUTURE_ABI 1   /* built for another scene-pack ABI version */
#define FAULT_REFUSES 2      /* the entry point answers NULL */
#define FAULT_NO_REDUCE 3    /* a scene type without reduce() */
#define FAULT_BAD_NAME 4     /* a scene name with a space */
#define FAULT_TWICE 5        /* one name twice in the pack */
#define FAULT_TAKES_LOGIN 6  /* defines example/login, as the examples pack does */
#define FAULT_GARBAGE 7      /* reduce() answers with commands that are no JSON */
#define FAULT_OLD_SIZE 8     /* a descriptor that ends before the documents */
#define FAULT_BAD_DOCUMENT 9 /* ships a scene document with a problem */
#define FAULT_DOCUMENT_TWICE 10 /* ships a document of a name it defines in C */
#define FAULT_OLD_TYPE 11    /* a scene type that ends before its invariants: loads, declares none */
/* Answers the runtime must refuse as it refuses any untrusted input: */
#define FAULT_STATE_GARBAGE 12  /* state() writes text that is no JSON */
#define FAULT_VIEW_GARBAGE 13   /* a count of 13 has a view model that is no JSON (and the scene claims canonical ones) */
#define FAULT_CODE_INTERNAL 14  /* every error has the code "internal", which only Yaia may give */
#define FAULT_CODE_MADE_UP 15   /* every error has the code "made_up", no stable code */
#define FAULT_INVARIANTS_GARBAGE 16 /* invariants() answers text that is no JSON */
#define FAULT_COMMANDS_OBJECT 17    /* commands written as an object: "{}" for none, {"effect": ...} for fetch */
/* Scene types with reduce_patch (the counter.so itself has none: a pack built before it): */
#define FAULT_PATCHES 18        /* the pack writes its view model's changes itself */
#define FAULT_PATCH_GARBAGE 19  /* reduce_patch answers an object, no list of operations */

static const yaia_scene_host *host;

typedef struct yaia_scene_state {
    long long count;
    long long step;
} counter;

static void put(yaia_scene_buffer *b, const char *text) { host->write(b, text, strlen(text)); }

static void fail(yaia_scene_buffer *b, const char *code, const char *message, const char *at)
{
    if (FAULT == FAULT_CODE_INTERNAL) code = "internal";
    if (FAULT == FAULT_CODE_MADE_UP) code = "made_up";
    char text[1024];
    if (at)
        snprintf(text, sizeof text, "{\"code\":\"%s\",\"message\":\"%s\",\"at\":\"%s\"}", code, message, at);
    else
        snprintf(text, sizeof text, "{\"code\":\"%s\",\"message\":\"%s\"}", code, message);
    put(b, text);
}

/* The value of top-level member `key` in a flat object: a pointer to its
** first byte, or NULL. Keys and strings hold no escapes here. */
static const char *member(const char *json, size_t n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k + 2 < n; i++) {
        if (json[i] == '"' && strncmp(json + i + 1, key, k) == 0 && json[i + 1 + k] == '"') {
            size_t j = i + k + 2;
            while (j < n && (json[j] == ' ' || json[j] == ':')) j++;
            return j < n ? json + j : NULL;
        }
    }
    return NULL;
}

static int whole(const char *v, const char *end, long long *out)
{
    if (!v) return 0;
    char *stop;
    long long x = strtoll(v, &stop, 10);
    if (stop == v || stop > end || (*stop != ',' && *stop != '}' && *stop != ' ')) return 0;
    *out = x;
    return 1;
}

/* Copies a string value (no escapes) into out; 0 when it is none. */
static int text(const char *v, const char *end, char *out, size_t size)
{
    if (!v || *v != '"') return 0;
    const char *q = memchr(v + 1, '"', (size_t)(end - v - 1));
    if (!q || (size_t)(q - v - 1) >= size) return 0;
    memcpy(out, v + 1, (size_t)(q - v - 1));
    out[q - v - 1] = 0;
    return strchr(out, '\\') == NULL;
}

static yaia_scene_state *make(const char *json, size_t n, yaia_scene_buffer *error, int restoring)
{
    if (n < 2 || json[0] != '{') {
        fail(error, restoring ? "bad_state" : "bad_args", "an object, please", NULL);
        return NULL;
    }
    const char *end = json + n;
    counter *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->step = 1;
    const char *v = member(json, n, restoring ? "count" : "start");
    if (v && !whole(v, end, &c->count)) {
        fail(error, restoring ? "bad_state" : "bad_args", "a whole number, please", restoring ? "/count" : "/start");
        free(c);
        return NULL;
    }
    if (restoring && !v) {
        fail(error, "bad_state", "a counter's state needs \\\"count\\\"", "/count");
        free(c);
        return NULL;
    }
    v = member(json, n, "step");
    if (v && !whole(v, end, &c->step)) {
        fail(error, restoring ? "bad_state" : "bad_args", "a whole number, please", "/step");
        free(c);
        return NULL;
    }
    return c;
}

static yaia_scene_state *counter_open(const yaia_scene_type *type, const char *args, size_t n, yaia_scene_buffer *error)
{
    (void)type;
    return make(args, n, error, 0);
}

static yaia_scene_state *counter_restore(const yaia_scene_type *type, const char *state, size_t n, yaia_scene_buffer *error)
{
    (void)type;
    return make(state, n, error, 1);
}

static void view(counter *c, yaia_scene_buffer *out)
{
    if (FAULT == FAULT_VIEW_GARBAGE && c->count == 13) {
        put(out, "{\"count\":13,");
        return;
    }
    char t[96];
    snprintf(t, sizeof t, "{\"count\":%lld,\"even\":%s}", c->count, c->count % 2 == 0 ? "true" : "false");
    put(out, t);
}

/* The commands of an action that emits none. */
#define NO_COMMANDS (FAULT == FAULT_COMMANDS_OBJECT ? "{}" : "[]")

/* Reads and applies (when apply is set) one action; 0 on success. */
static int act(counter *c, const char *action, size_t n, yaia_scene_buffer *out, int apply)
{
    const char *end = action + n;
    char type[64];
    if (!text(member(action, n, "type"), end, type, sizeof type)) {
        fail(out, "missing_action_type", "the action has no string \\\"type\\\"", "/type");
        return 1;
    }
    const char *payload = member(action, n, "payload");
    char t[512];
    if (strcmp(type, "increment") == 0) {
        if (apply) c->count += c->step;
        if (apply) put(out, NO_COMMANDS);
    } else if (strcmp(type, "add") == 0 || strcmp(type, "fetched") == 0) {
        long long x;
        const char *v = strcmp(type, "add") == 0 ? payload : (payload ? member(payload, (size_t)(end - payload), "count") : NULL);
        if (!whole(v, end, &x)) {
            fail(out, "bad_payload", "a whole number, please", strcmp(type, "add") == 0 ? "/payload" : "/payload/count");
            return 1;
        }
        if (apply) c->count = strcmp(type, "add") == 0 ? c->count + x : x;
        if (apply) put(out, NO_COMMANDS);
    } else if (strcmp(type, "login") == 0) {
        char email[128];
        if (!text(payload, end, email, sizeof email)) {
            fail(out, "bad_payload", "an email string, please", "/payload");
            return 1;
        }
        snprintf(t, sizeof t, "[{\"route\":{\"push\":\"example/login\",\"args\":{\"email\":\"%s\"}}}]", email);
        if (apply) put(out, t);
    } else if (strcmp(type, "fetch") == 0) {
        if (FAULT == FAULT_COMMANDS_OBJECT)
            snprintf(t, sizeof t, "{\"effect\":{\"service\":\"echo\",\"op\":\"echo\",\"args\":{\"count\":%lld},\"then\":\"fetched\"}}", c->count);
        else
            snprintf(t, sizeof t, "[{\"effect\":{\"service\":\"echo\",\"op\":\"echo\",\"args\":{\"count\":%lld},\"then\":\"fetched\"}}]", c->count);
        if (apply) put(out, t);
    } else if (strcmp(type, "done") == 0) {
        snprintf(t, sizeof t, "[{\"route\":{\"pop\":true,\"result\":{\"count\":%lld}}}]", c->count);
        if (apply) put(out, t);
    } else {
        snprintf(t, sizeof t, "unknown action type \\\"%s\\\"", type);
        fail(out, "unknown_action", t, "/type");
        return 1;
    }
    return 0;
}

__attribute__((unused)) static int counter_reduce(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *out, yaia_scene_buffer *vm)
{
    if (FAULT == FAULT_GARBAGE) {
        put(out, "[{\"effect\":");
        view(s, vm);
        return 0;
    }
    if (act(s, action, n, out, 1) != 0) return 1;
    view(s, vm);
    return 0;
}

/* The operations from the view model before the action to the one after. */
__attribute__((unused)) static int counter_reduce_patch(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *out,
                                                        yaia_scene_buffer *patch)
{
    long long before = s->count;
    if (act(s, action, n, out, 1) != 0) return 1;
    if (FAULT == FAULT_PATCH_GARBAGE) {
        put(patch, "{}");
        return 0;
    }
    if (s->count == before) {
        put(patch, "[]");
        return 0;
    }
    const char *even = (before % 2 == 0) == (s->count % 2 == 0) ? ""
                       : s->count % 2 == 0 ? ",{\"op\":\"replace\",\"path\":\"/even\",\"value\":true}"
                                           : ",{\"op\":\"replace\",\"path\":\"/even\",\"value\":false}";
    char t[160];
    snprintf(t, sizeof t, "[{\"op\":\"replace\",\"path\":\"/count\",\"value\":%lld}%s]", s->count, even);
    put(patch, t);
    return 0;
}

static int counter_check(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *error)
{
    return act(s, action, n, error, 0);
}

static int counter_view_model(yaia_scene_state *s, yaia_scene_buffer *out)
{
    view(s, out);
    return 0;
}

static int counter_state(yaia_scene_state *s, yaia_scene_buffer *out)
{
    if (FAULT == FAULT_STATE_GARBAGE) {
        put(out, "{\"count\":");
        return 0;
    }
    char t[96];
    snprintf(t, sizeof t, "{\"count\":%lld,\"step\":%lld}", s->count, s->step);
    put(out, t);
    return 0;
}

static void counter_free(yaia_scene_state *s) { free(s); }

/* One invariant, "belowThousand": count < 1000. */
static int counter_invariants(const yaia_scene_type *type, const char *state, size_t n, yaia_scene_buffer *out)
{
    (void)type;
    long long count;
    if (!whole(member(state, n, "count"), state + n, &count)) {
        fail(out, "bad_state", "a counter's state has a whole number count", "/count");
        return 1;
    }
    if (FAULT == FAULT_INVARIANTS_GARBAGE)
        put(out, "[\"belowThou");
    else
        put(out, count < 1000 ? "[]" : "[\"belowThousand\"]");
    return 0;
}


static const yaia_scene_type counter_type = {
#if FAULT == FAULT_OLD_TYPE
    offsetof(yaia_scene_type, invariants),
#else
    sizeof(yaia_scene_type),
#endif
#if FAULT == FAULT_BAD_NAME
    "test/count er",
#elif FAULT == FAULT_TAKES_LOGIN
    "example/login",
#else
    "test/counter",
#endif
    NULL,
    counter_open,
    counter_restore,
#if FAULT == FAULT_NO_REDUCE
    NULL,
#else
    counter_reduce,
#endif
    counter_check,
    counter_view_model,
    counter_state,
    counter_free,
#if FAULT == FAULT_VIEW_GARBAGE
    YAIA_SCENE_CANONICAL, /* so that the host would copy the text as it is */
#else
    0, /* not YAIA_SCENE_CANONICAL: the host re-reads what snprintf wrote */
#endif
    counter_invariants,
#if FAULT == FAULT_PATCHES || FAULT == FAULT_PATCH_GARBAGE
    counter_reduce_patch,
#else
    NULL, /* no reduce_patch: the host diffs the view models */
#endif
    NULL, /* no child slots */
    NULL,
};

static const yaia_scene_type *const scenes[] = {&counter_type, &counter_type};

/* A scene shipped as a document: "test/toggle", {"on": bool}, action "flip". */
static const char *const documents[] = {
#if FAULT == FAULT_BAD_DOCUMENT
    "{\"yaia\":1,\"scene\":\"test/toggle\",\"state\":{\"on\":false},"
    "\"actions\":{\"flip\":{\"set\":{\"on\":{\"!\":{\"var\":\"state.of\"}}}}}}",
#elif FAULT == FAULT_DOCUMENT_TWICE
    "{\"yaia\":1,\"scene\":\"test/counter\",\"state\":{\"on\":false},\"actions\":{}}",
#else
    "{\"yaia\":1,\"scene\":\"test/toggle\",\"state\":{\"on\":false},"
    "\"actions\":{\"flip\":{\"set\":{\"on\":{\"!\":{\"var\":\"state.on\"}}}}}}",
#endif
};

static const yaia_scene_pack pack = {
#if FAULT == FAULT_OLD_SIZE
    offsetof(yaia_scene_pack, document_count),
#else
    sizeof(yaia_scene_pack),
#endif
#if FAULT == FAULT_FUTURE_ABI
    YAIA_SCENE_ABI_VERSION + 1,
#else
    YAIA_SCENE_ABI_VERSION,
#endif
    "counter",
    "1.0.0",
#if FAULT == FAULT_TWICE
    2,
#else
    1,
#endif
    scenes,
    1,
    documents,
};

EXPORT const yaia_scene_pack *yaia_scene_pack_init(const yaia_scene_host *h)
{
    if (FAULT == FAULT_REFUSES || !h || h->size < sizeof(yaia_scene_host)) return NULL;
    host = h;
    return &pack;
}
