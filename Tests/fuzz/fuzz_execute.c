/*
** fuzz_execute.c -- a libFuzzer target over yaia_execute_n (docs/fuzzing.md).
**
** An input is a sequence of lines. Each input runs against a fresh runtime,
** so that a crash reproduces from its input alone; the lines of one input
** share that runtime, so sequences (open, send, snapshot, restore, journal,
** replay...) are explored. After each request the event queue is drained,
** and every answer and event must be JSON: one that is not aborts.
**
** A first line "@SURFACE" chooses what the other lines are; without one,
** each line is a request:
**   @document ARGS?  a scene document, registered and opened (with ARGS),
**                    then actions sent to its scene, one a line
**   @pack ARGS?      actions sent to the scene "fuzz/answers" of the fuzzing
**                    pack (fuzz_pack.c), its state read after each
**   @logic           a JSON Logic rule, then data to evaluate it for, one a line
**   @scenario        a scenario file, every line, run from a file
** In @document and @pack a line that starts with {"op" is a request as it is.
** On every surface a line "#NAME TEXT" appends TEXT to the file NAME of the
** working directory (a journal to replay, a document a scenario loads), and a
** line "=SLOT TEXT" (or "!SLOT TEXT", a failing answer) sets what the
** fuzzing pack's function SLOT answers from then on.
**
** The runtime has the example scenes (YAIA_FUZZ_PACK), the fuzzing pack
** (YAIA_FUZZ_ANSWERS, default fuzz_pack.so beside this program) and a few C
** functions bound in its config, safe for any arguments their signatures
** admit (no plugin: one with a thread of its own costs more than the rest
** of a run), and at most 64 scenes: the fuzzing pack's scene has children
** of its own type, an input that wants several at each level would open
** thousands before the depth limit, and every update of a parent carries
** its family's whole view. Its config grants perform, register,
** scenario_from_journal and the state ops, with files confined to a
** private temporary directory, the process's working directory while it
** runs: requests name files there with relative paths. It does not grant "bind" or "load_plugin": binding
** an arbitrary C function with a wrong signature can crash legitimately.
** The directory is emptied after every input, and removed at exit.
**
** Because the working directory changes, relative paths on the command line
** (corpus folders, inputs to reproduce, -artifact_prefix, -dict...) are made
** absolute first, and crash artifacts go to the directory the fuzzer was
** started in unless -artifact_prefix says otherwise.
*/
#define _GNU_SOURCE

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "json_check.h"

static char work_dir[PATH_MAX];
static char *config;
static int verbose;

void (*set_answer)(const char *slot, size_t slot_length, int failing, const char *bytes, size_t length);
static void (*reset_answers)(void);

static int answers_reach(yaia_runtime *rt);

static void die(const char *what)
{
    fprintf(stderr, "fuzz_execute: %s\n", what);
    exit(2);
}

/* Rewrites the command line so that it means the same from work_dir. */
static void absolutize_arguments(int *argc, char ***argv)
{
    static const char *path_flags[] = {"", "-artifact_prefix=", "-exact_artifact_path=", "-dict=",
                                       "-features_dir=", "-merge_control_file=", NULL};
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        die("getcwd failed");
    char **args = calloc((size_t)*argc + 2, sizeof *args);
    if (!args)
        die("out of memory");
    int n = 0, has_prefix = 0;
    for (int i = 0; i < *argc; i++) {
        char *a = (*argv)[i];
        args[n++] = a;
        /* Positional arguments (corpus folders, inputs) match "". */
        for (const char **f = path_flags; *f && i > 0; f++) {
            size_t len = strlen(*f);
            if (len == 0 ? a[0] == '-' : strncmp(a, *f, len) != 0)
                continue;
            if (strcmp(*f, "-artifact_prefix=") == 0)
                has_prefix = 1;
            char *flag;
            if (a[len] != '/' && asprintf(&flag, "%.*s%s/%s", (int)len, a, cwd, a + len) >= 0)
                args[n - 1] = flag;
        }
    }
    if (!has_prefix && asprintf(&args[n], "-artifact_prefix=%s/", cwd) >= 0)
        n++;
    args[n] = NULL;
    *argc = n;
    *argv = args;
}

static void empty_work_dir(void)
{
    DIR *d = opendir(".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlink(e->d_name);
    closedir(d);
}

static void remove_work_dir(void)
{
    if (chdir(work_dir) == 0) {
        empty_work_dir();
        if (chdir("/") == 0)
            rmdir(work_dir);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    absolutize_arguments(argc, argv);
    verbose = getenv("YAIA_FUZZ_VERBOSE") != NULL;
    /* Refused outcomes and the like are logged as warnings: thousands a second. */
    setenv("YAIA_LOG", "off", 0);

    const char *pack = getenv("YAIA_FUZZ_PACK");
    if (!pack || !*pack)
        die("set YAIA_FUZZ_PACK to the examples pack (libyaia-examples.so)");

    /* The fuzzing pack, loaded here first so that its answers can be set:
    ** the runtime's dlopen of the same file finds it loaded. */
    char answers_pack[PATH_MAX], given[PATH_MAX];
    const char *answers = getenv("YAIA_FUZZ_ANSWERS");
    if (answers && *answers) {
        snprintf(given, sizeof given, "%s", answers);
    } else {
        ssize_t n = readlink("/proc/self/exe", given, sizeof given - 1);
        char *slash = n > 0 ? memrchr(given, '/', (size_t)n) : NULL;
        if (!slash)
            die("set YAIA_FUZZ_ANSWERS to the fuzzing pack (fuzz_pack.so)");
        snprintf(slash + 1, sizeof given - (size_t)(slash + 1 - given), "fuzz_pack.so");
    }
    if (!realpath(given, answers_pack))
        die("no fuzzing pack (fuzz_pack.so beside the program, or YAIA_FUZZ_ANSWERS)");
    void *fuzz_pack = dlopen(answers_pack, RTLD_NOW | RTLD_LOCAL);
    set_answer = fuzz_pack ? (void (*)(const char *, size_t, int, const char *, size_t))dlsym(fuzz_pack, "yaia_fuzz_answer") : NULL;
    reset_answers = fuzz_pack ? (void (*)(void))dlsym(fuzz_pack, "yaia_fuzz_reset") : NULL;
    if (!set_answer || !reset_answers)
        die("the fuzzing pack does not load, or lacks yaia_fuzz_answer");

    const char *tmp = getenv("TMPDIR");
    snprintf(work_dir, sizeof work_dir, "%s/yaia-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work_dir) || chdir(work_dir) != 0)
        die("cannot make a private temporary directory");
    atexit(remove_work_dir);

    if (asprintf(&config,
                 "{\"scenes\":[\"%s\",\"%s\"],\"workers\":2,\"limits\":{\"scenes\":64},"
                 "\"allow\":{\"ops\":[\"perform\",\"journal\",\"replay\",\"snapshot\",\"restore\",\"rewind\","
                 "\"register\",\"scenario_from_journal\"],"
                 "\"files\":[\"%s\"]},"
                 "\"bind\":["
                 "{\"service\":\"math\",\"library\":\"libm.so.6\",\"ops\":{"
                 "\"pow\":\"double(double,double)\",\"frexp\":\"double(double, out int32)\","
                 "\"ldexp\":\"double(double,int32)\"}},"
                 "{\"service\":\"libc\",\"library\":\"libc.so.6\",\"ops\":{"
                 "\"strlen\":\"size_t(string)\",\"ffsll\":\"int32(int64)\",\"toupper\":\"int32(int32)\"}}]}",
                 pack, answers_pack, work_dir) < 0)
        die("out of memory");

    /* A config the runtime refuses would make every input a no-op. */
    char *error = NULL;
    yaia_runtime *rt = yaia_runtime_new(config, &error);
    if (!rt) {
        fprintf(stderr, "fuzz_execute: the runtime refuses its config: %s\n", error ? error : "?");
        exit(2);
    }
    if (!answers_reach(rt))
        die("the fuzzing pack the runtime loaded is not the one whose answers are set");
    yaia_runtime_free(rt);
    return 0;
}

/* "#NAME TEXT" appends TEXT and a line break to the file NAME of the working
** directory, so that journals to replay can be written line by line. */
void append_line(const char *p, size_t len)
{
    char name[33];
    size_t n = 0;
    while (n + 1 < len && n < sizeof name - 1 && p[n + 1] != ' ' && p[n + 1] != '\0') {
        name[n] = p[n + 1];
        n++;
    }
    name[n] = '\0';
    if (n == 0 || name[0] == '.' || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
        return;
    FILE *f = fopen(name, "a");
    if (!f)
        return;
    size_t skip = n + 1 < len ? n + 2 : len;
    fwrite(p + skip, 1, len - skip, f);
    fputc('\n', f);
    fclose(f);
}

static int thread_count(void)
{
    int n = 0;
    char line[128];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* Runs a request; drains the events it queued; returns its answer. Every
** answer and event must be JSON. */
char *request(yaia_runtime *rt, const char *text, size_t len)
{
    char *answer = yaia_execute_n(rt, text, len);
    if (verbose)
        fprintf(stderr, "> %.*s\n< %s\n", (int)len, text, answer ? answer : "(null)");
    if (!answer || !json_check(answer, strlen(answer)) || answer[0] != '{') {
        fprintf(stderr, "fuzz_execute: an answer that is not a JSON object:\n> %.*s\n< %s\n", (int)len, text,
                answer ? answer : "(null)");
        abort();
    }
    char *event;
    while ((event = yaia_receive(rt, 0))) {
        if (verbose)
            fprintf(stderr, "< %s\n", event);
        if (!json_check(event, strlen(event)) || event[0] != '{') {
            fprintf(stderr, "fuzz_execute: an event that is not a JSON object:\n< %s\n", event);
            abort();
        }
        yaia_free(event);
    }
    return answer;
}

/* request() of a formatted text; NULL when it cannot be made. */
char *requestf(yaia_runtime *rt, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    char *text;
    int len = vasprintf(&text, format, ap);
    va_end(ap);
    if (len < 0)
        return NULL;
    char *answer = request(rt, text, (size_t)len);
    free(text);
    return answer;
}

/* Whether the answers set reach the runtime's fuzzing pack. */
static int answers_reach(yaia_runtime *rt)
{
    static const char marker[] = "{\"fuzz\":\"answers reach\"}";
    set_answer("view_model", 10, 0, marker, sizeof marker - 1);
    char *opened = requestf(rt, "{\"op\":\"open\",\"scene\":\"fuzz/answers\"}");
    char *state = requestf(rt, "{\"op\":\"state\",\"scene\":%ld}", scene_of(opened));
    int reach = state && strstr(state, "answers reach") != NULL;
    yaia_free(state);
    yaia_free(opened);
    reset_answers();
    return reach;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int threads = thread_count();
    reset_answers();
    yaia_runtime *rt = yaia_runtime_new(config, NULL);
    if (!rt)
        abort();
    run_input(rt, (const char *)data, size);
    yaia_runtime_free(rt);
    /* A runtime's threads (the journal's, the pool's, the timer's) end on
    ** their own once it is freed; a leak check while one is ending misses
    ** what it still holds. Wait until they have ended: one that never does
    ** outlives its runtime, and libFuzzer's -timeout reports the input. */
    while (thread_count() > threads)
        sched_yield();
    empty_work_dir();
    return 0;
}
