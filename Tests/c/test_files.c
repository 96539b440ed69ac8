/*
** test_files.c -- what the runtime reads from files and snapshots is checked
** as requests are: ids, seqs, versions and counters beyond 2^53 are refused
** where they stand (an error envelope with the field's JSON Pointer, never a
** crash), only regular files are journaled to or replayed (a FIFO or a
** device is refused at once, never waited on), a journal never truncates a
** file that is not one, stopped journals close their files, and replay reads
** a line at a time.
**
** Prints one line per failed check and ends with "N passed, N failed".
** Exit status 1 when anything failed.
**
** Environment (the Makefile exports them):
**   YAIA_LIBRARY          libyaia.so       (.build/release/libyaia.so)
**   YAIA_EXAMPLES_PACK    the example scenes (.build/release/libyaia-examples.so)
**   TMPDIR                where files are made (/tmp)
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define HUGE_ID "9223372036854775807" /* 2^63 - 1 */
#define MAX_ID "9007199254740992"     /* 2^53: the largest id */

static const char *tmp_dir;
static char *login_state; /* a login scene's state, as a snapshot holds it */

static char *temp_path(const char *name) { return fmt("%s/yaia-test-files-%ld-%s", tmp_dir, (long)getpid(), name); }

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static int open_descriptors(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* The process's peak resident memory, in KiB (VmHWM). */
static long peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

/* Checks an error envelope: its code, its "at" (NULL: any), and a message part (NULL: any). */
static int check_envelope(const char *r, const char *code, const char *at, const char *part, const char *name)
{
    char want_code[96], want_at[256];
    snprintf(want_code, sizeof want_code, "\"code\":\"%s\"", code);
    snprintf(want_at, sizeof want_at, "\"at\":\"%s\"", at ? at : "");
    int ok = r && strstr(r, "\"ok\":false") && strstr(r, want_code) && (!at || strstr(r, want_at)) && (!part || strstr(r, part));
    return check(ok, "%s -- expected %s at %s (%s) -- got %s", name, code, at ? at : "-", part ? part : "-", r ? r : "(NULL)");
}

/* The runtime still answers: a scene opens and takes an action. */
static void check_usable(yaia_runtime *rt, const char *name)
{
    char *r = yaia_open(rt, "example/login", NULL);
    long long id = int_of(r, "scene");
    check(r && strstr(r, "\"ok\":true"), "%s: the runtime still opens scenes -- got %s", name, r ? r : "(NULL)");
    yaia_free(r);
    r = yaia_send(rt, id, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}");
    check(r && strstr(r, "\"ok\":true") && strstr(r, "\"seq\":1"), "%s: and reduces -- got %s", name, r ? r : "(NULL)");
    yaia_free(r);
}

/* A snapshot: one login scene in a flow, one pending effect; each number given as text. */
struct numbers {
    const char *scene, *seq, *flow, *version, *entry, *effect, *effect_scene, *next_scene, *next_effect, *next_flow;
};

static const struct numbers good = {"1", "0", "1", "1", "1", "1", "1", "2", "2", "2"};

static char *snapshot_text(struct numbers n)
{
    return fmt("{\"format\":\"yaia.snapshot/1\","
               "\"scenes\":[{\"id\":%s,\"name\":\"example/login\",\"seq\":%s,\"state\":%s,\"flow\":%s}],"
               "\"flows\":[{\"id\":%s,\"version\":%s,\"entries\":[{\"id\":%s,\"scene\":\"example/login\",\"presentation\":\"root\"}]}],"
               "\"effects\":[{\"id\":%s,\"scene\":%s,\"status\":\"pending\",\"effect\":{\"service\":\"auth\",\"op\":\"login\",\"restore\":\"await\"}}],"
               "\"next\":{\"scene\":%s,\"effect\":%s,\"flow\":%s}}",
               n.scene, n.seq, login_state, n.flow, n.flow, n.version, n.entry, n.effect, n.effect_scene, n.next_scene,
               n.next_effect, n.next_flow);
}

/* Each number of a snapshot, in turn, set to v: refused at its field. */
static const struct {
    const char *at;
    size_t offset;
} fields[] = {
    {"/scenes/0/id", offsetof(struct numbers, scene)},
    {"/scenes/0/seq", offsetof(struct numbers, seq)},
    {"/scenes/0/flow", offsetof(struct numbers, flow)},
    {"/flows/0/version", offsetof(struct numbers, version)},
    {"/flows/0/entries/0/id", offsetof(struct numbers, entry)},
    {"/effects/0/id", offsetof(struct numbers, effect)},
    {"/effects/0/scene", offsetof(struct numbers, effect_scene)},
    {"/next/scene", offsetof(struct numbers, next_scene)},
    {"/next/effect", offsetof(struct numbers, next_effect)},
    {"/next/flow", offsetof(struct numbers, next_flow)},
};

static struct numbers with(size_t offset, const char *value)
{
    struct numbers n = good;
    memcpy((char *)&n + offset, &value, sizeof value);
    return n;
}

static void test_snapshot_bounds(void)
{
    section("snapshot: ids, seqs, versions and counters end at 2^53");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return;
    char *snap = snapshot_text(good);
    char *request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snap);
    expect_ok(rt, request, "the template snapshot restores", "\"awaiting\":[1]", (const char *)NULL);
    free(request);
    free(snap);

    /* The flow's id is the scene's "flow" too: a bad one is caught at the scene, read first. */
    static const char *extremes[] = {HUGE_ID, "9007199254740993", "-1", "1e300", "18446744073709551615", "1.5"};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        for (size_t e = 0; e < sizeof extremes / sizeof extremes[0]; e++) {
            const char *v = extremes[e];
            /* 2^53 + 1 is the one extreme a next counter may hold. */
            if (strcmp(v, "9007199254740993") == 0 && strncmp(fields[f].at, "/next/", 6) == 0)
                continue;
            snap = snapshot_text(with(fields[f].offset, v));
            request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snap);
            char *at = fmt("/snapshot%s", fields[f].at);
            set_current("restore with %s = %s", fields[f].at, v);
            char *r = yaia_execute(rt, request);
            char *name = fmt("restore with %s = %s", fields[f].at, v);
            check_envelope(r, "bad_snapshot", at, NULL, name);
            yaia_free(r);
            free(name);
            free(at);
            free(request);
            free(snap);
        }
    }
    check_usable(rt, "after refused snapshots");

    /* In the config: bad_snapshot too, under /restore. */
    snap = snapshot_text(with(offsetof(struct numbers, next_scene), HUGE_ID));
    char *config = fmt("{\"restore\":%s}", snap);
    char *err = NULL;
    yaia_runtime *other = examples_runtime(config, &err);
    check(!other, "a config restoring next.scene = 2^63-1 is refused");
    check_envelope(err, "bad_snapshot", "/restore/next/scene", NULL, "config restore with next.scene = 2^63-1");
    yaia_free(err);
    yaia_runtime_free(other);
    free(config);
    free(snap);

    /* The last id is handed out; then ids_exhausted, and the runtime goes on. */
    struct numbers last = good;
    last.next_scene = MAX_ID;
    snap = snapshot_text(last);
    request = fmt("{\"op\":\"restore\",\"snapshot\":%s}", snap);
    expect_ok(rt, request, "next.scene = 2^53 restores", (const char *)NULL);
    free(request);
    free(snap);
    char *r = yaia_open(rt, "example/login", NULL);
    check(r && strstr(r, "\"scene\":" MAX_ID ","), "the last scene id is 2^53 -- got %s", r ? r : "(NULL)");
    yaia_free(r);
    r = yaia_open(rt, "example/login", NULL);
    check_envelope(r, "ids_exhausted", NULL, NULL, "an open past the last scene id");
    yaia_free(r);
    expect_error(rt, "{\"op\":\"start\",\"scene\":\"example/login\"}", "ids_exhausted", "a flow past the last scene id");
    r = yaia_send(rt, 9007199254740992LL, "{\"type\":\"emailChanged\",\"payload\":\"x@y.z\"}");
    check(r && strstr(r, "\"ok\":true"), "the scene with the last id still reduces -- got %s", r ? r : "(NULL)");
    yaia_free(r);
    yaia_runtime_free(rt);
}

/* A journal: a begin line with snapshot `snap`, then `rest`. */
static char *journal_text(const char *snap, const char *rest)
{
    return fmt("{\"format\":\"yaia.journal/1\",\"kind\":\"begin\",\"snapshot\":%s,\"t\":1}\n%s", snap, rest);
}

static void expect_replay_error(yaia_runtime *rt, const char *text, const char *at, const char *line, const char *name)
{
    char *path = temp_path("extreme.jsonl");
    check(write_text(path, text), "%s: write the journal", name);
    char *quoted = json_quote(path);
    char *request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    set_current("%s", name);
    char *r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", at, line, name);
    yaia_free(r);
    free(request);
    free(quoted);
    unlink(path);
    free(path);
}

static void test_journal_bounds(void)
{
    section("journal: ids and seqs end at 2^53, on every line");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return;
    /* The begin line's snapshot, each number in turn. */
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        char *snap = snapshot_text(with(fields[f].offset, HUGE_ID));
        char *text = journal_text(snap, "");
        char *at = fmt("/snapshot%s", fields[f].at);
        char *name = fmt("replay of a begin line with %s = 2^63-1", fields[f].at);
        expect_replay_error(rt, text, at, "line 1 of ", name);
        free(name);
        free(at);
        free(text);
        free(snap);
    }
    /* The inputs' numbers. */
    char *snap = snapshot_text(good);
    static const struct {
        const char *line, *at;
    } inputs[] = {
        {"{\"kind\":\"send\",\"scene\":1,\"seq\":" HUGE_ID ",\"action\":{\"type\":\"emailChanged\",\"payload\":\"a\"}}", "/seq"},
        {"{\"kind\":\"send\",\"scene\":" HUGE_ID ",\"seq\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":\"a\"}}", "/scene"},
        {"{\"kind\":\"send\",\"flow\":" HUGE_ID ",\"seq\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":\"a\"}}", "/flow"},
        {"{\"kind\":\"open\",\"scene\":\"example/login\",\"id\":" HUGE_ID ",\"seq\":1,\"args\":{}}", "/id"},
        {"{\"kind\":\"outcome\",\"effect\":" HUGE_ID ",\"seq\":1,\"result\":1}", "/effect"},
        {"{\"kind\":\"outcome\",\"effect\":-1,\"seq\":1,\"result\":1}", "/effect"},
        {"{\"kind\":\"popped\",\"flow\":1,\"depth\":" HUGE_ID ",\"seq\":1}", "/depth"},
        {"{\"kind\":\"close\",\"scene\":1,\"seq\":-5}", "/seq"},
        {"{\"kind\":\"close\",\"scene\":1,\"seq\":\"1\"}", "/seq"},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char *rest = fmt("{\"kind\":\"send\",\"scene\":1,\"seq\":1,\"action\":{\"type\":\"emailChanged\",\"payload\":\"a\"}}\n%s\n",
                         inputs[i].line);
        char *text = journal_text(snap, rest);
        char *name = fmt("replay of %s", inputs[i].line);
        expect_replay_error(rt, text, inputs[i].at, "line 3 of ", name);
        free(name);
        free(text);
        free(rest);
    }
    /* A restore line's snapshot is checked before it is replayed. */
    char *bad = snapshot_text(with(offsetof(struct numbers, next_effect), HUGE_ID));
    char *rest = fmt("{\"kind\":\"restore\",\"seq\":1,\"snapshot\":%s}\n", bad);
    char *text = journal_text(snap, rest);
    expect_replay_error(rt, text, "/snapshot/next/effect", "line 2 of ", "replay of a restore line with next.effect = 2^63-1");
    free(text);
    free(rest);
    free(bad);
    free(snap);
    check_usable(rt, "after refused journals");
    yaia_runtime_free(rt);
}

static void test_special_files(void)
{
    section("journal and replay: regular files only, never waiting");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return;
    /* A FIFO with no writer: a blocking open would wait forever. */
    char *fifo = temp_path("fifo");
    check(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    char *quoted = json_quote(fifo);
    char *request = fmt("{\"op\":\"journal\",\"start\":%s}", quoted);
    char *r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", NULL, NULL, "journal start on a FIFO");
    yaia_free(r);
    free(request);
    request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", NULL, "a FIFO, not a regular file", "replay of a FIFO");
    yaia_free(r);
    free(request);
    free(quoted);
    unlink(fifo);
    free(fifo);

    r = yaia_execute(rt, "{\"op\":\"replay\",\"journal\":\"/dev/zero\"}");
    check_envelope(r, "bad_journal", NULL, "a device, not a regular file", "replay of /dev/zero");
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"journal\",\"start\":\"/dev/null\"}");
    check_envelope(r, "bad_journal", NULL, "a device", "journal start on /dev/null");
    yaia_free(r);
    quoted = json_quote(tmp_dir);
    request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", NULL, "a directory", "replay of a directory");
    yaia_free(r);
    free(request);
    free(quoted);

    /* A file that is not a journal is left alone. */
    char *other = temp_path("precious.txt");
    check(write_text(other, "precious\n"), "write %s", other);
    quoted = json_quote(other);
    request = fmt("{\"op\":\"journal\",\"start\":%s}", quoted);
    r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", NULL, "is not a journal", "journal start on a file that is not a journal");
    yaia_free(r);
    free(request);
    free(quoted);
    size_t n = 0;
    char *kept = read_file(other, &n);
    check(kept && strcmp(kept, "precious\n") == 0, "the file is untouched -- got %s", kept ? kept : "(NULL)");
    free(kept);
    unlink(other);
    free(other);
    check_usable(rt, "after refused files");
    yaia_runtime_free(rt);
}

static void test_descriptors(void)
{
    section("journal: every stopped journal closes its file");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return;
    char *path = temp_path("cycles.jsonl");
    char *quoted = json_quote(path);
    char *start = fmt("{\"op\":\"journal\",\"start\":%s}", quoted);
    expect_ok(rt, start, "first journal", (const char *)NULL);
    expect_ok(rt, "{\"op\":\"journal\",\"stop\":true}", "first stop", (const char *)NULL);
    int before = open_descriptors();
    int failures = 0;
    for (int i = 0; i < 10000 && failures < 3; i++) {
        char *r = yaia_execute(rt, start);
        if (!r || !strstr(r, "\"ok\":true"))
            failures += !check(0, "journal start %d -- got %s", i, r ? r : "(NULL)");
        yaia_free(r);
        r = yaia_execute(rt, "{\"op\":\"journal\",\"stop\":true}");
        if (!r || !strstr(r, "\"ok\":true"))
            failures += !check(0, "journal stop %d -- got %s", i, r ? r : "(NULL)");
        yaia_free(r);
    }
    int after = open_descriptors();
    check(before > 0 && after == before, "10,000 journal start/stop cycles: %d descriptors before, %d after", before, after);
    /* A runtime freed with a journal on closes it too. */
    expect_ok(rt, start, "a journal left on", (const char *)NULL);
    check(open_descriptors() == before + 1, "a journal holds one descriptor");
    yaia_runtime_free(rt);
    check(open_descriptors() == before, "freeing the runtime closed it -- %d descriptors, want %d", open_descriptors(), before);
    free(start);
    free(quoted);
    unlink(path);
    free(path);
}

static void test_long_line(void)
{
    section("replay: one line at a time, 16 MiB at most");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return;
    /* 4 GiB with no line break (sparse: no disk used). Read whole, as replay
    ** once did, it would take 4 GiB of memory. */
    char *path = temp_path("huge-line.jsonl");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    check(fd >= 0 && ftruncate(fd, 4LL << 30) == 0, "a sparse 4 GiB file");
    if (fd >= 0)
        close(fd);
    long peak = peak_kib();
    char *quoted = json_quote(path);
    char *request = fmt("{\"op\":\"replay\",\"journal\":%s}", quoted);
    char *r = yaia_execute(rt, request);
    check_envelope(r, "bad_journal", NULL, "is longer than request_bytes, 16777216 bytes", "replay of a file with one 4 GiB line");
    yaia_free(r);
    long grown = peak_kib() - peak;
    check(peak > 0 && grown < 256 * 1024, "the replay's peak memory grew by %ld KiB (less than 256 MiB)", grown);
    free(request);
    free(quoted);
    unlink(path);
    free(path);
    yaia_runtime_free(rt);
}

int main(void)
{
    harness_start();
    tmp_dir = env_or("TMPDIR", "/tmp");
    yaia_runtime *rt = examples_runtime("{" ALLOW_ALL "}", NULL);
    if (!rt)
        return harness_finish();
    char *r = yaia_execute(rt, "{\"op\":\"snapshot\"}");
    yaia_free(r);
    r = yaia_open(rt, "example/login", NULL);
    yaia_free(r);
    r = yaia_execute(rt, "{\"op\":\"snapshot\"}");
    login_state = raw_of(r, "state");
    yaia_free(r);
    yaia_runtime_free(rt);
    if (!check(login_state != NULL, "a login scene's state from a snapshot"))
        return harness_finish();

    test_snapshot_bounds();
    test_journal_bounds();
    test_special_files();
    test_descriptors();
    test_long_line();

    free(login_state);
    return harness_finish();
}
