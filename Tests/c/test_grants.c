/*
** test_grants.c -- files named by requests, against an attacker who can
** write in the granted folder (docs/security.md).
**
**   races     while a request's op runs, another thread swaps the file it
**             names for a symbolic link to a file outside the grant, over
**             and over, for a fixed number of requests: nothing outside is
**             ever written, created, read or loaded.
**   links     a link inside the grant to a file outside is refused.
**   ELF       truncated and lying shared objects, as plugins, packs and
**             bound libraries, from requests and from the config: refused
**             with their codes, the process alive.
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "harness.h"

/* Requests per race: enough for the unprotected code to lose many times. */
enum { ROUNDS = 4000 };

static char granted[] = "/tmp/yaia-grant-XXXXXX";
static char outside[] = "/tmp/yaia-outside-XXXXXX";

/* G/NAME and O/NAME (malloc'd). */
static char *in_grant(const char *name) { return fmt("%s/%s", granted, name); }
static char *out_of_grant(const char *name) { return fmt("%s/%s", outside, name); }

static int write_file(const char *path, const void *bytes, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    int ok = write(fd, bytes, n) == (ssize_t)n;
    close(fd);
    return ok;
}

static int write_text(const char *path, const char *text) { return write_file(path, text, strlen(text)); }

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* ------------------------------------------------------------ the swapper */

/* Swaps, until stopped, what `name` is: a hard link of `real` (a file in
** the grant), or a symbolic link to `target` (outside it). Each swap is one
** atomic exchange of two names, as fast as the kernel goes. */
typedef struct {
    const char *name, *real, *target;
    atomic_int stop;
    pthread_t thread;
    char *other;
} swapper;

static void *swap_loop(void *arg)
{
    swapper *s = arg;
    while (!atomic_load(&s->stop))
        renameat2(AT_FDCWD, s->name, AT_FDCWD, s->other, RENAME_EXCHANGE);
    return NULL;
}

static void swap_start(swapper *s)
{
    s->other = fmt("%s.swap", s->name);
    unlink(s->name);
    unlink(s->other);
    if (link(s->real, s->name) != 0 || symlink(s->target, s->other) != 0)
        check(0, "a file and a link to swap at %s", s->name);
    atomic_store(&s->stop, 0);
    pthread_create(&s->thread, NULL, swap_loop, s);
}

/* Stops the swapper, leaving the file in the grant at `name`. */
static void swap_stop(swapper *s)
{
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    struct stat st;
    if (lstat(s->name, &st) == 0 && S_ISLNK(st.st_mode))
        renameat2(AT_FDCWD, s->name, AT_FDCWD, s->other, RENAME_EXCHANGE);
    unlink(s->other);
    free(s->other);
}

/* A runtime with the example scenes granting every op on the granted folder. */
static yaia_runtime *granted_runtime(void)
{
    char *config = fmt("{\"allow\":{\"ops\":\"all\",\"files\":[\"%s\"]}}", granted);
    yaia_runtime *rt = examples_runtime(config, NULL);
    free(config);
    return rt;
}

/* Runs `request` ROUNDS times while `s` swaps (then `after`, when given);
** returns how many answers held `leak` (when given). Prints how often the
** swap came between the check and the open, for the record: how often the
** unprotected code would have lost. */
static int race(yaia_runtime *rt, swapper *s, const char *request, const char *after, const char *leak)
{
    int leaks = 0, caught = 0;
    set_current("race: %s", request);
    swap_start(s);
    for (int i = 0; i < ROUNDS; i++) {
        char *r = yaia_execute(rt, request);
        if (leak && r && strstr(r, leak))
            leaks++;
        if (r && strstr(r, "changed into a symbolic link"))
            caught++;
        yaia_free(r);
        if (after)
            yaia_free(yaia_execute(rt, after));
    }
    swap_stop(s);
    printf("  %d of %d requests met a link swapped in after the check\n", caught, ROUNDS);
    return leaks;
}

/* ------------------------------------------------------------ races */

static void test_journal_race(yaia_runtime *rt)
{
    section("race: journal start");
    char *name = in_grant("j.jsonl"), *real = in_grant("real.jsonl");
    char *empty = out_of_grant("empty"), *old = out_of_grant("old.jsonl"), *fresh = out_of_grant("fresh.jsonl");
    const char *journal_text = "{\"format\":\"yaia.journal/1\",\"precious\":true}\n";
    write_text(real, "");
    write_text(empty, "");
    write_text(old, journal_text);
    struct stat before_empty, before_old, st;
    stat(empty, &before_empty);
    stat(old, &before_old);
    char *request = fmt("{\"op\":\"journal\",\"start\":\"%s\"}", name);
    const char *targets[] = {empty, old, fresh};
    for (int t = 0; t < 3; t++) {
        swapper s = {.name = name, .real = real, .target = targets[t]};
        race(rt, &s, request, "{\"op\":\"journal\",\"stop\":true}", NULL);
    }
    check(stat(empty, &st) == 0 && st.st_size == 0 && st.st_mtim.tv_sec == before_empty.st_mtim.tv_sec &&
              st.st_mtim.tv_nsec == before_empty.st_mtim.tv_nsec,
          "journal race: an empty file outside stays empty and untouched");
    char *text = read_file(old, NULL);
    check(text && strcmp(text, journal_text) == 0 && stat(old, &st) == 0 &&
              st.st_mtim.tv_nsec == before_old.st_mtim.tv_nsec,
          "journal race: a journal outside keeps its lines (%s)", text ? text : "(unreadable)");
    check(!exists(fresh), "journal race: no file is created outside");
    char *inside = read_file(real, NULL);
    check(inside && strncmp(inside, "{\"format\":\"yaia.journal/1\"", 26) == 0, "journal race: the journal inside was written");
    free(inside);
    free(text);
    unlink(name);
    unlink(real);
    unlink(empty);
    unlink(old);
    free(request);
    free(name);
    free(real);
    free(empty);
    free(old);
    free(fresh);
}

/* Writes a journal at `path`: login opened, then `sends` actions. */
static void record_journal(const char *path, int sends)
{
    char *config = fmt("{\"journal\":\"%s\"}", path);
    yaia_runtime *rt = examples_runtime(config, NULL);
    free(config);
    if (!rt)
        return;
    int64_t scene = open_scene(rt, "example/login", "a journal to replay");
    for (int i = 0; i < sends; i++)
        yaia_free(send_action(rt, scene, "{\"type\":\"emailChanged\",\"payload\":\"a@b.c\"}"));
    yaia_runtime_free(rt);
}

static void test_replay_race(yaia_runtime *rt)
{
    section("race: replay and scenario_from_journal");
    char *name = in_grant("r.jsonl"), *real = in_grant("real-r.jsonl"), *secret = out_of_grant("secret.jsonl");
    record_journal(real, 0);
    record_journal(secret, 7);
    swapper s = {.name = name, .real = real, .target = secret};
    char *request = fmt("{\"op\":\"replay\",\"journal\":\"%s\"}", name);
    /* The journal outside has 8 inputs, the one inside 1. */
    int leaks = race(rt, &s, request, NULL, "\"inputs\":8");
    check(leaks == 0, "replay race: the journal outside was never read (%d answers replayed it)", leaks);
    expect_ok(rt, request, "replay race: the journal inside replays", "\"inputs\":1", (const char *)NULL);
    free(request);
    request = fmt("{\"op\":\"scenario_from_journal\",\"path\":\"%s\"}", name);
    leaks = race(rt, &s, request, NULL, "emailChanged");
    check(leaks == 0, "scenario_from_journal race: the journal outside was never read (%d answers)", leaks);
    unlink(name);
    unlink(real);
    unlink(secret);
    free(request);
    free(name);
    free(real);
    free(secret);
}

static void test_scenario_race(yaia_runtime *rt)
{
    section("race: scenario file");
    char *name = in_grant("s.scenario.json"), *real = in_grant("real.scenario.json"), *secret = out_of_grant("s.json");
    const char *body = "\"scene\":\"example/about\",\"steps\":[{\"send\":\"close\"}]}";
    char *text = fmt("{\"yaia\":1,\"name\":\"inside\",%s", body);
    write_text(real, text);
    free(text);
    text = fmt("{\"yaia\":1,\"name\":\"outside-secret\",%s", body);
    write_text(secret, text);
    free(text);
    swapper s = {.name = name, .real = real, .target = secret};
    char *request = fmt("{\"op\":\"scenario\",\"path\":\"%s\"}", name);
    int leaks = race(rt, &s, request, NULL, "outside-secret");
    check(leaks == 0, "scenario race: the scenario outside was never read (%d answers)", leaks);
    expect_ok(rt, request, "scenario race: the scenario inside runs", "\"name\":\"inside\"", (const char *)NULL);
    unlink(name);
    unlink(real);
    unlink(secret);
    free(request);
    free(name);
    free(real);
    free(secret);
}

/* load_plugin, bind and a scenario's pack, each racing a link to marker.so,
** whose constructor would create the marker file. */
static void test_loading_races(yaia_runtime *rt, const char *marker)
{
    section("race: load_plugin, bind, a scenario's scene pack");
    const char *testplug = env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins");
    char *evil = fmt("%s/marker.so", testplug), *echo = fmt("%s/echo.so", testplug);
    char *counter = fmt("%s/counter.so", env_or("YAIA_TEST_PACK_DIR", ".build/yaia/test-packs"));
    char *plugin = in_grant("p.so"), *plugin_real = in_grant("real-p.so");
    char *pack = in_grant("pack.so"), *pack_real = in_grant("real-pack.so");
    size_t n = 0;
    char *bytes = read_file(echo, &n);
    check(bytes && write_file(plugin_real, bytes, n), "loading races: a plugin in the grant");
    free(bytes);
    bytes = read_file(counter, &n);
    check(bytes && write_file(pack_real, bytes, n), "loading races: a pack in the grant");
    free(bytes);

    swapper s = {.name = plugin, .real = plugin_real, .target = evil};
    char *request = fmt("{\"op\":\"load_plugin\",\"path\":\"%s\"}", plugin);
    race(rt, &s, request, NULL, NULL);
    check(!exists(marker), "load_plugin race: the library outside never ran");
    free(request);
    request = fmt("{\"op\":\"bind\",\"service\":\"lib\",\"library\":\"%s\",\"ops\":{\"yaia_plugin_init\":\"int32()\"}}", plugin);
    race(rt, &s, request, NULL, NULL);
    check(!exists(marker), "bind race: the library outside never ran");
    free(request);
    swapper packs = {.name = pack, .real = pack_real, .target = evil};
    request = fmt("{\"op\":\"scenario\",\"scenario\":{\"yaia\":1,\"scenes\":[\"%s\"],\"scene\":\"example/login\",\"steps\":[]}}", pack);
    race(rt, &packs, request, NULL, NULL);
    check(!exists(marker), "scenario pack race: the library outside never ran");
    free(request);

    unlink(plugin);
    unlink(plugin_real);
    unlink(pack);
    unlink(pack_real);
    free(plugin);
    free(plugin_real);
    free(pack);
    free(pack_real);
    free(evil);
    free(echo);
    free(counter);
}

/* ------------------------------------------------------------ links */

static void test_links_out(yaia_runtime *rt, const char *marker)
{
    section("a link in the grant to a file outside");
    char *link_ = in_grant("link"), *target = out_of_grant("target.jsonl");
    char *evil = fmt("%s/marker.so", env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins"));
    record_journal(target, 1);
    check(symlink(target, link_) == 0, "links: a link out");
    const char *templates[] = {
        "{\"op\":\"journal\",\"start\":\"%s\"}",          "{\"op\":\"replay\",\"journal\":\"%s\"}",
        "{\"op\":\"scenario_from_journal\",\"path\":\"%s\"}", "{\"op\":\"scenario\",\"path\":\"%s\"}",
    };
    for (size_t i = 0; i < sizeof templates / sizeof *templates; i++) {
        char *request = fmt(templates[i], link_);
        expect_error(rt, request, "not_permitted", "links: refused");
        free(request);
    }
    unlink(link_);
    check(symlink(evil, link_) == 0, "links: a link to a library out");
    char *request = fmt("{\"op\":\"load_plugin\",\"path\":\"%s\"}", link_);
    expect_error(rt, request, "not_permitted", "links: load_plugin refused");
    free(request);
    request = fmt("{\"op\":\"bind\",\"service\":\"l\",\"library\":\"%s\",\"ops\":{\"yaia_marker\":\"int32()\"}}", link_);
    expect_error(rt, request, "not_permitted", "links: bind refused");
    free(request);
    check(!exists(marker), "links: the library outside never ran");
    unlink(link_);
    unlink(target);
    free(link_);
    free(target);
    free(evil);
}

/* ------------------------------------------------------------ ELF */

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

/* Each bad copy of a real plugin: from requests and from the config. */
static void test_bad_elf(yaia_runtime *rt)
{
    section("truncated and lying shared objects");
    size_t n = 0;
    char *echo = fmt("%s/echo.so", env_or("YAIA_TEST_PLUGIN_DIR", ".build/yaia/test-plugins"));
    unsigned char *bytes = (unsigned char *)read_file(echo, &n);
    if (!check(bytes && n > 4096, "ELF: a real plugin to spoil"))
        return;
    size_t headers = (size_t)(le(bytes + 32, 8) + le(bytes + 56, 2) * le(bytes + 54, 2)), loaded = 0;
    /* Where the loadable segments' bytes end: cuts before it lie to the loader. */
    for (uint64_t i = 0, phoff = le(bytes + 32, 8); i < le(bytes + 56, 2); i++) {
        const unsigned char *ph = bytes + phoff + i * 56;
        if (le(ph, 4) == 1 && le(ph + 8, 8) + le(ph + 32, 8) > loaded)
            loaded = (size_t)(le(ph + 8, 8) + le(ph + 32, 8));
    }
    size_t lengths[] = {0, 16, 63, 64, headers, loaded / 2, loaded - 1};
    unsigned char *lying = malloc(n);
    memcpy(lying, bytes, n);
    /* The first loadable segment claims four times the file. */
    for (uint64_t i = 0, phoff = le(bytes + 32, 8); i < le(bytes + 56, 2); i++) {
        unsigned char *ph = lying + phoff + i * 56;
        if (le(ph, 4) == 1) {
            put_le(ph + 32, n * 4, 8);
            break;
        }
    }
    for (size_t k = 0; k <= sizeof lengths / sizeof *lengths; k++) {
        int is_lie = k == sizeof lengths / sizeof *lengths;
        char *path = fmt("%s/bad-%zu.so", granted, k);
        write_file(path, is_lie ? lying : bytes, is_lie ? n : lengths[k]);
        const char *what = is_lie ? "a lying program header" : "a truncated copy";
        char *request = fmt("{\"op\":\"load_plugin\",\"path\":\"%s\"}", path);
        expect_error(rt, request, "plugin_not_loadable", what);
        free(request);
        request = fmt("{\"op\":\"scenario\",\"scenario\":{\"yaia\":1,\"scenes\":[\"%s\"],\"scene\":\"example/login\",\"steps\":[]}}", path);
        expect_error(rt, request, "scene_pack_not_loadable", what);
        free(request);
        request = fmt("{\"op\":\"bind\",\"service\":\"bad\",\"library\":\"%s\",\"ops\":{\"f\":\"int32()\"}}", path);
        expect_error(rt, request, "library_not_found", what);
        free(request);
        const char *configs[][2] = {{"{\"plugins\":[\"%s\"]}", "plugin_not_loadable"},
                                    {"{\"scenes\":[\"%s\"]}", "scene_pack_not_loadable"}};
        for (int c = 0; c < 2; c++) {
            char *config = fmt(configs[c][0], path), *error = NULL;
            yaia_runtime *other = yaia_runtime_new(config, &error);
            check(other == NULL && error && strstr(error, configs[c][1]), "ELF: %s in the config: %s (%zu bytes) -- %s", what,
                  configs[c][1], is_lie ? n : lengths[k], error ? error : "(no error)");
            if (other)
                yaia_runtime_free(other);
            yaia_free(error);
            free(config);
        }
        unlink(path);
        free(path);
    }
    expect_ok(rt, "{\"op\":\"scenes\"}", "ELF: the runtime goes on", (const char *)NULL);
    free(lying);
    free(bytes);
    free(echo);
}

int main(void)
{
    harness_start();
    if (!check(mkdtemp(granted) && mkdtemp(outside), "a granted folder and one outside"))
        return harness_finish();
    char *marker = out_of_grant("constructor-ran");
    setenv("YAIA_TEST_MARKER", marker, 1);
    yaia_runtime *rt = granted_runtime();
    if (check(rt != NULL, "a runtime granting every op on %s", granted)) {
        test_links_out(rt, marker);
        test_journal_race(rt);
        test_replay_race(rt);
        test_scenario_race(rt);
        test_loading_races(rt, marker);
        test_bad_elf(rt);
        yaia_runtime_free(rt);
    }
    unlink(marker);
    free(marker);
    rmdir(granted);
    rmdir(outside);
    return harness_finish();
}
