/*
** fuzz_pack.c -- a scene pack whose answers are the fuzzer's (docs/fuzzing.md).
**
** Scene "fuzz/answers". Each of its functions writes the bytes the fuzz
** target last set for it, as they are, and returns what it was told: so
** that the runtime's checks of what a pack returns (states, view models,
** commands, errors, invariants) meet anything, not only what a well-behaved
** pack writes. The fuzz target loads this pack itself (the runtime's later
** dlopen of the same file finds it loaded) and sets the answers through the
** two functions exported below, before the requests that call the pack.
**
** Answer slots and what a function writes when its slot is unset:
**   open, restore   nothing (a fresh state); failing: NULL with the bytes as the error
**   reduce          the commands, "[]"       reduce_view  its view model, "{}"
**   check           nothing                  view_model   "{}"
**   state           "{}"                     invariants   "[]"
**   children        the children its state wants, "[]"
** A failing answer makes the function return non-zero (NULL for open and
** restore) with the bytes as its error; a failing "children" answer whose
** bytes are "same" answers YAIA_SCENE_SAME_CHILDREN instead.
**
** The scene has two child slots, both of its own type, so that children
** answered by the fuzzer have children too, down to the depth limit:
** "rows" (keyed, its output "done" mapped to the action "rowDone", its
** args changes sent as "args") and "detail" (optional, intercepting).
**
** The runtime may call the pack from its workers while the target sets an
** answer: the answers are read and written under a lock.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "yaia_scene.h"

#define EXPORT __attribute__((visibility("default")))

enum { OPEN, RESTORE, REDUCE, REDUCE_VIEW, CHECK, VIEW_MODEL, STATE, INVARIANTS, CHILDREN, SLOTS };

static const char *const slot_names[SLOTS] = {"open",  "restore",    "reduce", "reduce_view", "check",
                                              "view_model", "state", "invariants", "children"};
static const char *const defaults[SLOTS] = {"", "", "[]", "{}", "", "{}", "{}", "[]", "[]"};

static const char child_slots[] =
    "{\"rows\": {\"scene\": \"fuzz/answers\", \"kind\": \"keyed\", \"outputs\": {\"done\": \"rowDone\"}, \"argsAction\": \"args\"},"
    " \"detail\": {\"scene\": \"fuzz/answers\", \"kind\": \"optional\", \"intercept\": true}}";

typedef struct {
    int set, failing;
    char *bytes;
    size_t length;
} answer;

static answer answers[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const yaia_scene_host *host;

/* The pack's state is nothing but an allocation, so that the host's
** free_state() calls are checked by the sanitizer (one each, none after). */
typedef struct yaia_scene_state {
    int unused;
} fuzz_state;

/* Sets the answer of `slot` (a name above); an unknown slot is ignored. */
EXPORT void yaia_fuzz_answer(const char *slot, size_t slot_length, int failing, const char *bytes, size_t length)
{
    for (int i = 0; i < SLOTS; i++) {
        if (strlen(slot_names[i]) != slot_length || memcmp(slot_names[i], slot, slot_length) != 0)
            continue;
        char *copy = malloc(length ? length : 1);
        if (!copy)
            return;
        memcpy(copy, bytes, length);
        pthread_mutex_lock(&lock);
        free(answers[i].bytes);
        answers[i] = (answer){1, failing, copy, length};
        pthread_mutex_unlock(&lock);
        return;
    }
}

/* Back to the default answers: each input starts from them. */
EXPORT void yaia_fuzz_reset(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++) {
        free(answers[i].bytes);
        answers[i] = (answer){0, 0, NULL, 0};
    }
    pthread_mutex_unlock(&lock);
}

/* Writes the answer of `slot` into `out`; returns non-zero if it fails. */
static int give(int slot, yaia_scene_buffer *out)
{
    pthread_mutex_lock(&lock);
    answer a = answers[slot];
    if (a.set) {
        if (a.length)
            host->write(out, a.bytes, a.length);
    } else if (*defaults[slot]) {
        host->write(out, defaults[slot], strlen(defaults[slot]));
    }
    pthread_mutex_unlock(&lock);
    return a.set && a.failing;
}

static yaia_scene_state *fresh(int slot, yaia_scene_buffer *error)
{
    if (give(slot, error))
        return NULL;
    return calloc(1, sizeof(fuzz_state));
}

static yaia_scene_state *fuzz_open(const yaia_scene_type *type, const char *args, size_t n, yaia_scene_buffer *error)
{
    (void)type, (void)args, (void)n;
    return fresh(OPEN, error);
}

static yaia_scene_state *fuzz_restore(const yaia_scene_type *type, const char *json, size_t n, yaia_scene_buffer *error)
{
    (void)type, (void)json, (void)n;
    return fresh(RESTORE, error);
}

static int fuzz_reduce(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *out, yaia_scene_buffer *vm)
{
    (void)s, (void)action, (void)n;
    if (give(REDUCE, out))
        return 1;
    give(REDUCE_VIEW, vm);
    return 0;
}

static int fuzz_check(yaia_scene_state *s, const char *action, size_t n, yaia_scene_buffer *error)
{
    (void)s, (void)action, (void)n;
    return give(CHECK, error);
}

static int fuzz_view_model(yaia_scene_state *s, yaia_scene_buffer *out)
{
    (void)s;
    return give(VIEW_MODEL, out);
}

static int fuzz_state_json(yaia_scene_state *s, yaia_scene_buffer *out)
{
    (void)s;
    return give(STATE, out);
}

static void fuzz_free(yaia_scene_state *s) { free(s); }

static int fuzz_children(yaia_scene_state *s, yaia_scene_buffer *out)
{
    (void)s;
    pthread_mutex_lock(&lock);
    answer a = answers[CHILDREN];
    int same = a.set && a.failing && a.length == 4 && memcmp(a.bytes, "same", 4) == 0;
    pthread_mutex_unlock(&lock);
    return same ? YAIA_SCENE_SAME_CHILDREN : give(CHILDREN, out);
}

static int fuzz_invariants(const yaia_scene_type *type, const char *state, size_t n, yaia_scene_buffer *out)
{
    (void)type, (void)state, (void)n;
    return give(INVARIANTS, out);
}

static const yaia_scene_type answers_type = {
    sizeof(yaia_scene_type), "fuzz/answers", NULL, fuzz_open,       fuzz_restore,    fuzz_reduce,
    fuzz_check,              fuzz_view_model, fuzz_state_json, fuzz_free, 0, fuzz_invariants, NULL,
    child_slots, fuzz_children,
};

static const yaia_scene_type *const scenes[] = {&answers_type};

static const yaia_scene_pack pack = {
    sizeof(yaia_scene_pack), YAIA_SCENE_ABI_VERSION, "fuzz", "1.0.0", 1, scenes, 0, NULL,
};

EXPORT const yaia_scene_pack *yaia_scene_pack_init(const yaia_scene_host *h)
{
    if (!h || h->size < sizeof(yaia_scene_host))
        return NULL;
    host = h;
    return &pack;
}
