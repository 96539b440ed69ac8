/*
** stress.c -- one runtime under load from many threads, through the C ABI.
**
** THREADS senders (8) each send SENDS actions (10,000) to example/jobs
** scenes shared by all of them; EFFECTS (10,000) of those actions are "run"s
** whose effect a host service ("work", registered with yaia_add_service)
** hands to COMPLETERS (2) threads of its own, which complete them (every 7th
** fails). One receiver thread takes the outcomes with yaia_receive(). Checked:
**
**   - every send is accepted, every completion answers YAIA_OK;
**   - every update is accounted for: for each scene, the seqs seen in the
**     responses and the received events are exactly 0..N, each once (no gap,
**     no duplicate), N being the actions plus the outcomes sent to it;
**   - seqs grow strictly per scene in the event stream and per sending thread;
**   - every emitted effect's outcome is received exactly once, and nothing
**     else is; the notifier was called once per event;
**   - each scene's final state has seq N and logs its outcomes;
**   - no crash (the watchdog, STRESS_TIMEOUT, reports a hang); no leak (run it under valgrind,
**     see Tests/c/valgrind-swift.supp; smaller counts keep that quick).
**
** Two scene packs are loaded: besides the example/jobs scenes of the examples
** pack (Swift), COUNTERS (16) test/counter scenes of the counter pack (C,
** Tests/packs/counter.c) take an "increment" from every sender on every
** other send. A counter's view model must then show as many increments as
** its seq, and its final count must be exactly the increments sent to it.
**
** With STRESS_JOURNAL=PATH, the runtime journals to PATH (no quotes or
** backslashes in it), and the journal must then hold every input (the
** opens, the sends, the outcomes) and replay identically: the order it
** recorded under load is an order the runtime can re-run.
**
** Environment: STRESS_THREADS, STRESS_SENDS (per thread), STRESS_EFFECTS,
** STRESS_SCENES (64), STRESS_COMPLETERS, STRESS_TIMEOUT (seconds before a
** run counts as hung, 300),
** STRESS_JOURNAL, STRESS_COUNTERS; YAIA_EXAMPLES_PACK, the examples pack
** with example/jobs (.build/release/libyaia-examples.so); YAIA_TEST_PACK_DIR,
** where counter.so is (.build/yaia/test-packs).
** Prints a summary and "N passed, N failed"; exit status 1 on failures.
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

#include "harness.h"

/* ================================================================ harness (more in harness.h) */

static long env_long(const char *name, long fallback, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    long n = strtol(v, NULL, 10);
    return n < lo ? lo : n > hi ? hi : n;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "stress: out of memory\n");
        exit(2);
    }
    return p;
}

/* The id of the first effect an update lists: {"effects":[{"args":{"n":N},"id":ID */
static long long effect_id(const char *update)
{
    const char *p = update ? strstr(update, "\"effects\":[{\"args\":{\"n\":") : NULL;
    if (!p)
        return -1;
    p = strchr(p + 20, '}');
    if (!p || strncmp(p, "},\"id\":", 7) != 0)
        return -1;
    return strtoll(p + 7, NULL, 10);
}

/* ================================================================ setup */

static long threads_n, sends_n, effects_n, scenes_n, completers_n, counters_n;
static int64_t *counter_ids;     /* by counter index */
static long *counter_expected;   /* by counter index: the increments sent to it */
static atomic_int **counter_seen; /* [counter][seq] */
static atomic_long bad_counts;
static yaia_runtime *rt;
static int64_t *scene_ids;    /* by scene index */
static long *expected_seq;    /* by scene index: actions + outcomes */
static atomic_int **seen;     /* [scene][seq]: how often that seq was seen */
static long long max_effect;  /* effect ids are below this */
static atomic_int *emitted;   /* by effect id */
static atomic_int *delivered; /* by effect id */
static atomic_long events_received, bad_responses, bad_events, order_errors, completion_errors;
/* Notifier calls; the notifier runs after its event is queued, so the
** checks wait on this count rather than on the events. */
static long notified;
static pthread_mutex_t notified_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t notified_changed = PTHREAD_COND_INITIALIZER;

/* Which scene and action the i-th send of thread t is: deterministic, so
** the expected counts are known before anything runs. Effects are spread
** evenly over every thread's sends. */
static long scene_of(long t, long i) { return (t * 7 + i * 13) % scenes_n; }

/* The counter the i-th send of thread t increments, or -1 (every other send). */
static long counter_of(long t, long i) { return i % 2 == 0 ? (t * 5 + i * 3) % counters_n : -1; }

static long effects_of_thread(long t)
{
    return effects_n / threads_n + (t < effects_n % threads_n ? 1 : 0);
}

static int is_effect(long t, long i)
{
    long k = effects_of_thread(t);
    if (k == 0)
        return 0;
    /* the sends i where floor(i * k / sends) steps up: exactly k of them */
    return (i * k) / sends_n != ((i + 1) * k) / sends_n;
}

static long scene_index(int64_t id)
{
    for (long s = 0; s < scenes_n; s++)
        if (scene_ids[s] == id)
            return s;
    return -1;
}

/* Marks a seq of a scene as seen; false when out of range. */
static int see(long s, long long seq)
{
    if (s < 0 || seq < 0 || seq > expected_seq[s])
        return 0;
    atomic_fetch_add(&seen[s][seq], 1);
    return 1;
}

/* ================================================================ the work service */

typedef struct job {
    struct job *next;
    yaia_call *call;
    char *args;
} job;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *head, *tail;
    int stopping;
    pthread_t thread;
    long completed;
} completer;

static completer *completers;
static atomic_long next_completer, released;

static void *completer_main(void *arg)
{
    completer *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->head && !c->stopping)
            pthread_cond_wait(&c->wake, &c->lock);
        if (!c->head)
            break;
        job *j = c->head;
        c->head = j->next;
        if (!c->head)
            c->tail = NULL;
        pthread_mutex_unlock(&c->lock);
        /* every 7th fails: the catch path under load too */
        long n = strtol(strstr(j->args, "\"n\":") ? strstr(j->args, "\"n\":") + 4 : "0", NULL, 10);
        int rc = n % 7 == 3 ? yaia_call_fail(j->call, j->args) : yaia_call_complete(j->call, j->args);
        if (rc != YAIA_OK)
            atomic_fetch_add(&completion_errors, 1);
        free(j->args);
        free(j);
        pthread_mutex_lock(&c->lock);
        c->completed++;
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static void work_perform(void *ctx, yaia_call *call, const char *op, const char *args_json)
{
    (void)ctx;
    (void)op;
    job *j = malloc(sizeof *j);
    char *args = strdup(args_json ? args_json : "null");
    if (!j || !args) {
        free(j);
        free(args);
        yaia_call_fail(call, "{\"message\":\"out of memory\"}");
        return;
    }
    j->next = NULL;
    j->call = call;
    j->args = args;
    completer *c = &completers[atomic_fetch_add(&next_completer, 1) % completers_n];
    pthread_mutex_lock(&c->lock);
    if (c->tail)
        c->tail->next = j;
    else
        c->head = j;
    c->tail = j;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
}

static void work_release(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&released, 1);
}

static void on_event(void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&notified_lock);
    notified++;
    pthread_cond_broadcast(&notified_changed);
    pthread_mutex_unlock(&notified_lock);
}

/* ================================================================ senders */

typedef struct {
    long t;
    long ok;
    long effects;
    long long *last_seq; /* by scene: this thread's last response seq */
    long long *last_counter_seq; /* by counter */
    pthread_t thread;
} sender;

static atomic_long effect_counter;

static void *send_main(void *arg)
{
    sender *s = arg;
    char action[160];
    for (long i = 0; i < sends_n; i++) {
        long sc = scene_of(s->t, i);
        int effect = is_effect(s->t, i);
        if (effect)
            snprintf(action, sizeof action,
                     "{\"type\":\"run\",\"payload\":{\"service\":\"work\",\"op\":\"w\",\"args\":{\"n\":%ld}}}",
                     atomic_fetch_add(&effect_counter, 1));
        else
            snprintf(action, sizeof action, "{\"type\":\"cancel\",\"payload\":\"nothing\"}");
        char *r = yaia_send(rt, scene_ids[sc], action);
        long long seq = int_of(r, "seq");
        int good = r && strncmp(r, "{\"effects\":", 11) == 0 && strstr(r, "\"ok\":true") &&
                   int_of(r, "scene") == scene_ids[sc] && see(sc, seq);
        if (good && seq <= s->last_seq[sc])
            atomic_fetch_add(&order_errors, 1);
        if (good)
            s->last_seq[sc] = seq;
        if (good && effect) {
            long long id = effect_id(r);
            good = id > 0 && id < max_effect && strstr(r, "\"status\":\"running\"");
            if (good) {
                atomic_fetch_add(&emitted[id], 1);
                s->effects++;
            }
        }
        if (good)
            s->ok++;
        else if (atomic_fetch_add(&bad_responses, 1) < 5)
            printf("FAIL: stress: unexpected response to %s: %.300s\n", action, r ? r : "(NULL)");
        yaia_free(r);

        long c = counter_of(s->t, i);
        if (c < 0)
            continue;
        r = yaia_send(rt, counter_ids[c], "{\"type\":\"increment\"}");
        seq = int_of(r, "seq");
        /* Only increments reach a counter: its count is its seq. */
        good = r && strstr(r, "\"ok\":true") && int_of(r, "scene") == counter_ids[c] && seq >= 1 &&
               seq <= counter_expected[c] && int_of(r, "count") == seq;
        if (good) {
            atomic_fetch_add(&counter_seen[c][seq], 1);
            if (seq <= s->last_counter_seq[c])
                atomic_fetch_add(&order_errors, 1);
            s->last_counter_seq[c] = seq;
            s->ok++;
        } else if (atomic_fetch_add(&bad_counts, 1) < 5) {
            printf("FAIL: stress: unexpected counter response: %.300s\n", r ? r : "(NULL)");
        }
        yaia_free(r);
    }
    return NULL;
}

/* ================================================================ receiver */

static void *receive_main(void *arg)
{
    (void)arg;
    long long *last = xcalloc((size_t)scenes_n, sizeof *last);
    for (long s = 0; s < scenes_n; s++)
        last[s] = -1;
    while (atomic_load(&events_received) < effects_n) {
        char *ev = yaia_receive(rt, -1); /* a lost event is a hang, which the watchdog reports */
        if (!ev)
            break;
        atomic_fetch_add(&events_received, 1);
        long sc = scene_index(int_of(ev, "scene"));
        long long seq = int_of(ev, "seq");
        long long id = int_of(ev, "effect");
        int good = strncmp(ev, "{\"effect\":", 10) == 0 && strstr(ev, "\"event\":\"update\"") &&
                   strstr(ev, "\"ok\":true") && sc >= 0 && id > 0 && id < max_effect && see(sc, seq);
        if (good) {
            if (seq <= last[sc])
                atomic_fetch_add(&order_errors, 1);
            last[sc] = seq;
            atomic_fetch_add(&delivered[id], 1);
        } else if (atomic_fetch_add(&bad_events, 1) < 5) {
            printf("FAIL: stress: unexpected event: %.300s\n", ev);
        }
        yaia_free(ev);
    }
    free(last);
    return NULL;
}

/* ================================================================ main */

int main(void)
{
    harness_catch_signals();
    threads_n = env_long("STRESS_THREADS", 8, 1, 256);
    sends_n = env_long("STRESS_SENDS", 10000, 1, 10000000);
    effects_n = env_long("STRESS_EFFECTS", 10000, 0, threads_n * sends_n);
    scenes_n = env_long("STRESS_SCENES", 64, 1, 100000);
    completers_n = env_long("STRESS_COMPLETERS", 2, 1, 64);
    counters_n = env_long("STRESS_COUNTERS", 16, 1, 100000);
    long timeout = env_long("STRESS_TIMEOUT", 300, 1, 100000);
    alarm((unsigned)timeout);

    /* expected counts, from the deterministic schedule */
    expected_seq = xcalloc((size_t)scenes_n, sizeof *expected_seq);
    long *effects_to = xcalloc((size_t)scenes_n, sizeof *effects_to);
    long total_effects = 0;
    for (long t = 0; t < threads_n; t++)
        for (long i = 0; i < sends_n; i++) {
            long s = scene_of(t, i);
            int e = is_effect(t, i);
            expected_seq[s] += 1 + e; /* the action, and its outcome */
            effects_to[s] += e;
            total_effects += e;
        }
    check(total_effects == effects_n, "stress: the schedule has %ld effects (want %ld)", total_effects, effects_n);
    counter_expected = xcalloc((size_t)counters_n, sizeof *counter_expected);
    long counter_sends = 0;
    for (long t = 0; t < threads_n; t++)
        for (long i = 0; i < sends_n; i++)
            if (counter_of(t, i) >= 0) {
                counter_expected[counter_of(t, i)]++;
                counter_sends++;
            }
    counter_seen = xcalloc((size_t)counters_n, sizeof *counter_seen);
    for (long c = 0; c < counters_n; c++)
        counter_seen[c] = xcalloc((size_t)counter_expected[c] + 1, sizeof **counter_seen);
    seen = xcalloc((size_t)scenes_n, sizeof *seen);
    for (long s = 0; s < scenes_n; s++)
        seen[s] = xcalloc((size_t)expected_seq[s] + 1, sizeof **seen);
    max_effect = effects_n + 16;
    emitted = xcalloc((size_t)max_effect, sizeof *emitted);
    delivered = xcalloc((size_t)max_effect, sizeof *delivered);

    set_current("setting up");
    char *err = NULL;
    const char *journal = getenv("STRESS_JOURNAL");
    char *examples = json_quote(examples_pack());
    char *counter_path = fmt("%s/counter.so", env_or("YAIA_TEST_PACK_DIR", ".build/yaia/test-packs"));
    char *counter = json_quote(counter_path);
    char *config = journal && *journal ? fmt("{" ALLOW_ALL ",\"scenes\":[%s,%s],\"journal\":\"%s\"}", examples, counter, journal)
                                       : fmt("{\"scenes\":[%s,%s]}", examples, counter);
    rt = yaia_runtime_new(config, &err);
    free(config);
    free(examples);
    free(counter);
    free(counter_path);
    if (!check(rt != NULL, "stress: runtime: %s", err ? err : ""))
        return harness_finish();
    completers = xcalloc((size_t)completers_n, sizeof *completers);
    for (long c = 0; c < completers_n; c++) {
        pthread_mutex_init(&completers[c].lock, NULL);
        pthread_cond_init(&completers[c].wake, NULL);
        if (pthread_create(&completers[c].thread, NULL, completer_main, &completers[c]) != 0) {
            fprintf(stderr, "stress: cannot start a completer\n");
            return 2;
        }
    }
    yaia_service work = {
        .size = sizeof work, .name = "work", .perform = work_perform, .release = work_release};
    char *r = yaia_add_service(rt, &work);
    check(r && strstr(r, "\"ok\":true"), "stress: add the work service: %s", r ? r : "(NULL)");
    yaia_free(r);
    check(yaia_set_notifier(rt, on_event, NULL) == YAIA_OK, "stress: set the notifier");
    counter_ids = xcalloc((size_t)counters_n, sizeof *counter_ids);
    for (long c = 0; c < counters_n; c++) {
        r = yaia_open(rt, "test/counter", NULL);
        counter_ids[c] = int_of(r, "scene");
        check(r && strstr(r, "\"ok\":true") && counter_ids[c] > 0, "stress: open counter %ld", c);
        yaia_free(r);
    }
    scene_ids = xcalloc((size_t)scenes_n, sizeof *scene_ids);
    for (long s = 0; s < scenes_n; s++) {
        r = yaia_open(rt, "example/jobs", NULL);
        scene_ids[s] = int_of(r, "scene");
        check(r && strstr(r, "\"ok\":true") && int_of(r, "seq") == 0 && scene_ids[s] > 0, "stress: open scene %ld", s);
        see(s, 0);
        yaia_free(r);
    }

    set_current("sending and receiving");
    pthread_t receiver;
    pthread_create(&receiver, NULL, receive_main, NULL);
    sender *senders = xcalloc((size_t)threads_n, sizeof *senders);
    for (long t = 0; t < threads_n; t++) {
        senders[t].t = t;
        senders[t].last_seq = xcalloc((size_t)scenes_n, sizeof(long long));
        senders[t].last_counter_seq = xcalloc((size_t)counters_n, sizeof(long long));
        for (long s = 0; s < scenes_n; s++)
            senders[t].last_seq[s] = 0;
        pthread_create(&senders[t].thread, NULL, send_main, &senders[t]);
    }
    long sent_ok = 0, sent_effects = 0;
    for (long t = 0; t < threads_n; t++) {
        pthread_join(senders[t].thread, NULL);
        sent_ok += senders[t].ok;
        sent_effects += senders[t].effects;
    }
    pthread_join(receiver, NULL);

    set_current("checking");
    check(sent_ok == threads_n * sends_n + counter_sends, "stress: %ld of %ld sends accepted", sent_ok,
          threads_n * sends_n + counter_sends);
    check(atomic_load(&bad_counts) == 0, "stress: %ld unexpected counter responses", atomic_load(&bad_counts));
    long counter_gaps = 0, wrong_counts = 0;
    for (long c = 0; c < counters_n; c++) {
        for (long long q = 1; q <= counter_expected[c]; q++)
            counter_gaps += atomic_load(&counter_seen[c][q]) != 1;
        char req[64];
        snprintf(req, sizeof req, "{\"op\":\"state\",\"scene\":%lld}", (long long)counter_ids[c]);
        char *st = yaia_execute(rt, req);
        wrong_counts += int_of(st, "count") != counter_expected[c] || int_of(st, "seq") != counter_expected[c];
        yaia_free(st);
    }
    check(counter_gaps == 0, "stress: %ld counter seqs not seen exactly once", counter_gaps);
    check(wrong_counts == 0, "stress: %ld counters end with a count other than their increments", wrong_counts);
    check(sent_effects == effects_n, "stress: %ld of %ld effects emitted and running", sent_effects, effects_n);
    check(atomic_load(&bad_responses) == 0, "stress: %ld unexpected responses", atomic_load(&bad_responses));
    check(atomic_load(&events_received) == effects_n, "stress: %ld of %ld outcome events received",
          atomic_load(&events_received), effects_n);
    check(atomic_load(&bad_events) == 0, "stress: %ld unexpected events", atomic_load(&bad_events));
    check(atomic_load(&order_errors) == 0, "stress: %ld seqs out of order (per scene in the event stream, per thread in responses)",
          atomic_load(&order_errors));
    check(atomic_load(&completion_errors) == 0, "stress: %ld completions did not answer YAIA_OK",
          atomic_load(&completion_errors));
    long dup_emit = 0, lost = 0, dup_deliver = 0, stray = 0;
    for (long long id = 0; id < max_effect; id++) {
        int e = atomic_load(&emitted[id]), d = atomic_load(&delivered[id]);
        dup_emit += e > 1;
        lost += e == 1 && d == 0;
        dup_deliver += d > 1;
        stray += e == 0 && d > 0;
    }
    check(dup_emit == 0, "stress: %ld effect ids emitted twice", dup_emit);
    check(lost == 0, "stress: %ld effects whose outcome never arrived", lost);
    check(dup_deliver == 0, "stress: %ld outcomes delivered twice", dup_deliver);
    check(stray == 0, "stress: %ld outcomes of effects never emitted", stray);
    long gaps = 0, dups = 0, first_gap_scene = -1;
    long long first_gap_seq = -1;
    for (long s = 0; s < scenes_n; s++)
        for (long long q = 0; q <= expected_seq[s]; q++) {
            int n = atomic_load(&seen[s][q]);
            if (n == 0 && gaps++ == 0) {
                first_gap_scene = s;
                first_gap_seq = q;
            }
            dups += n > 1;
        }
    check(gaps == 0, "stress: %ld seqs never seen in responses or events (first: scene %ld seq %lld)", gaps,
          first_gap_scene, first_gap_seq);
    check(dups == 0, "stress: %ld seqs seen twice", dups);
    set_current("waiting for the last notifier calls");
    pthread_mutex_lock(&notified_lock);
    while (notified < effects_n)
        pthread_cond_wait(&notified_changed, &notified_lock);
    long notifications = notified;
    pthread_mutex_unlock(&notified_lock);
    check(notifications == effects_n, "stress: notifier called %ld times for %ld events", notifications, effects_n);
    r = yaia_receive(rt, 0);
    check(r == NULL, "stress: nothing left in the queue (got %.200s)", r ? r : "");
    yaia_free(r);

    long bad_final = 0;
    for (long s = 0; s < scenes_n; s++) {
        char req[64];
        snprintf(req, sizeof req, "{\"op\":\"state\",\"scene\":%lld}", (long long)scene_ids[s]);
        r = yaia_execute(rt, req);
        const char *vm = r ? strstr(r, "\"viewModel\":") : NULL;
        long logged = 0;
        for (const char *p = vm; p && (p = strstr(p, "{\"ok\":true,\"result\":")) != NULL; p++)
            logged++;
        for (const char *p = vm; p && (p = strstr(p, "{\"error\":{\"n\":")) != NULL; p++)
            logged++;
        if (int_of(r, "seq") != expected_seq[s] || logged != effects_to[s]) {
            if (bad_final++ < 3)
                printf("FAIL: stress: scene %ld ends with seq %lld (want %ld) and %ld outcomes logged (want %ld)\n", s,
                       int_of(r, "seq"), expected_seq[s], logged, effects_to[s]);
        }
        yaia_free(r);
    }
    check(bad_final == 0, "stress: %ld scenes end in the wrong state", bad_final);

    if (journal && *journal) {
        set_current("replaying the journal");
        r = yaia_execute(rt, "{\"op\":\"journal\",\"stop\":true}");
        long long inputs = counters_n + scenes_n + threads_n * sends_n + counter_sends + effects_n;
        check(int_of(r, "inputs") == inputs, "stress: the journal holds %lld inputs (want %lld): %.200s", int_of(r, "inputs"),
              inputs, r ? r : "");
        yaia_free(r);
        size_t n = strlen(journal) + 64;
        char *request = xcalloc(n, 1);
        snprintf(request, n, "{\"op\":\"replay\",\"journal\":\"%s\"}", journal);
        r = yaia_execute(rt, request);
        check(r && strstr(r, "\"identical\":true") && int_of(r, "inputs") == inputs,
              "stress: the journal replays identically: %.300s", r ? r : "");
        yaia_free(r);
        free(request);
        printf("journal: %lld inputs recorded under load, replayed identically\n", inputs);
    }

    set_current("freeing");
    yaia_runtime_free(rt);
    check(atomic_load(&released) == 1, "stress: the work service is released once (%ld)", atomic_load(&released));
    long completed = 0;
    for (long c = 0; c < completers_n; c++) {
        pthread_mutex_lock(&completers[c].lock);
        completers[c].stopping = 1;
        pthread_cond_signal(&completers[c].wake);
        pthread_mutex_unlock(&completers[c].lock);
        pthread_join(completers[c].thread, NULL);
        completed += completers[c].completed;
        pthread_cond_destroy(&completers[c].wake);
        pthread_mutex_destroy(&completers[c].lock);
    }
    check(completed == effects_n, "stress: the completers completed %ld of %ld calls", completed, effects_n);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("stress: %ld threads x %ld sends (%ld scenes), %ld effects completed by %ld threads; "
           "%ld increments to %ld counters of a second pack\n", threads_n, sends_n, scenes_n, effects_n, completers_n,
           counter_sends, counters_n);
    printf("stress: %ld updates; %ld events, %ld notifications; max RSS %ld MB\n", threads_n * sends_n + effects_n,
           atomic_load(&events_received), notifications, ru.ru_maxrss / 1024);

    for (long s = 0; s < scenes_n; s++)
        free(seen[s]);
    for (long t = 0; t < threads_n; t++) {
        free(senders[t].last_seq);
        free(senders[t].last_counter_seq);
    }
    for (long c = 0; c < counters_n; c++)
        free(counter_seen[c]);
    free(counter_seen);
    free(counter_ids);
    free(counter_expected);
    free(senders);
    free(seen);
    free(scene_ids);
    free(expected_seq);
    free(effects_to);
    free(emitted);
    free(delivered);
    free(completers);
    return harness_finish();
}
