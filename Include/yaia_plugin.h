/*
** yaia_plugin.h -- the Yaia service and plugin ABI, version 1.
**
** A service performs the IO that scene reducers describe as effects. A
** service is a yaia_service struct: a name, an opaque context and a few
** callbacks. It reaches a runtime in one of two ways:
**
**   - from a plugin: a shared object that exports yaia_plugin_init() and
**     registers services through the host API table (this header); or
**   - from the host program itself, through yaia_add_service() (yaia.h).
**
** Both use the same struct and the same completion rules.
**
** VERSIONING
**
** Every struct that crosses the boundary starts with a size_t holding
** sizeof(struct) as the side that filled it was compiled. Fields are only
** ever appended. A reader never touches a field that lies beyond the size it
** was given, so a plugin built against an older header keeps working with a
** newer host, and the reverse.
**
** LOADING (what the host does, in order)
**
**   1. dlopen(path, RTLD_NOW | RTLD_LOCAL). A plugin is never dlclosed, so
**      its code stays mapped for as long as the process lives.
**   2. dlsym("yaia_plugin_init") and call it with a yaia_plugin_offer that
**      lists the ABI versions the host supports.
**   3. The plugin answers with a pointer to a static yaia_plugin descriptor
**      naming the ABI version it chose, its own name and version. It must not
**      register anything yet. Returning NULL means "none of the offered
**      versions": the load fails with code "plugin_abi_mismatch".
**   4. The host checks the answer, then calls descriptor->setup() with the
**      host API table. setup() registers services with api->add_service()
**      and returns 0, or reports failure with api->set_error() and a non-zero
**      return. On failure -- a non-zero return, or any add_service() that was
**      refused -- every service it had registered is withdrawn: the host
**      calls each one's release() at once, so setup() must not free those
**      contexts itself.
**
** MEMORY
**
** Memory is freed on the side that allocated it. Every string the host
** passes to a plugin is borrowed for the duration of the callback only: copy
** what you keep. Every string a plugin passes to the host (results, errors,
** log messages) is copied by the host before the function returns. Names and
** metadata in yaia_plugin and yaia_service must stay valid while the process
** lives (string literals are the usual choice). Values read from a call
** (yaia_host_api.arg_string and the like) live as READING A CALL says.
**
** THREADS
**
** perform() and cancel() may be called from any thread, including several
** at once for different calls. perform() of a non-blocking service runs
** inline on the thread that sent the action (inside yaia_send(),
** yaia_execute(), yaia_resolve()); perform() of a YAIA_SERVICE_BLOCKING
** service runs on a worker-pool thread. perform() of an effect started
** because another one ended (the next of a queue, one emitted by the reducer
** receiving an outcome) never runs inside a call_complete() or call_fail(),
** so a service may complete calls while holding its own locks: when the
** outcome was delivered from inside a perform() on this thread, it runs on
** that thread right after that perform() returns; otherwise on a
** worker-pool thread. cancel() may run
** while perform() for the same call is still running on another thread. A
** call is completed exactly once, with call_complete(), call_fail(),
** call_finish() or call_error(), from any thread, during perform() or at any
** later time. Jobs of call queues run on the plugins' worker pool (see
** QUEUES). release() is called once per registered service, after the last
** perform() or cancel() for it has returned, when the runtime is freed.
*/
#ifndef YAIA_PLUGIN_H
#define YAIA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI version described by this header. */
#define YAIA_PLUGIN_ABI_VERSION 1

/* The one symbol a plugin exports. */
#define YAIA_PLUGIN_ENTRY "yaia_plugin_init"

/*
** Result codes of the int-returning functions in this header and yaia.h.
*/
#define YAIA_OK           0  /* done */
#define YAIA_ERR_ARGUMENT 1  /* a required pointer was NULL, or a struct was too small */
#define YAIA_ERR_STALE    2  /* the call was completed or cancelled already, or its runtime is
                                gone; or the queue was freed */
#define YAIA_ERR_JSON     3  /* the JSON text (or value) given was not valid JSON; the call
                                failed with code "bad_result" */
#define YAIA_ERR_STATE    4  /* not allowed now (for example add_service() outside setup()) */
#define YAIA_ERR_EXISTS   5  /* a service with that name is already registered */
#define YAIA_ERR_LIMIT    6  /* the text given passes a limit of the runtime (its size or
                                nesting); the call failed with code "limit_exceeded" */
#define YAIA_ERR_MISSING  7  /* the args (or config) have no such member */
#define YAIA_ERR_TYPE     8  /* the member is there, but of another type or out of range */
#define YAIA_ERR_RESOURCE 9  /* the host could not start a worker thread */

/*
** Types of JSON values: what yaia_host_api.arg_type() answers, and the
** container result_open() starts.
*/
#define YAIA_JSON_NONE   0  /* no value there */
#define YAIA_JSON_NULL   1
#define YAIA_JSON_BOOL   2
#define YAIA_JSON_NUMBER 3
#define YAIA_JSON_STRING 4
#define YAIA_JSON_ARRAY  5
#define YAIA_JSON_OBJECT 6

/* A length meaning "up to the terminating NUL" (result_string, result_json). */
#define YAIA_NTS ((size_t)-1)

/* yaia_service.flags */
#define YAIA_SERVICE_BLOCKING 1u  /* perform() may block: call it on the worker pool */

/* Log levels for yaia_host_api.log(). */
#define YAIA_LOG_DEBUG   0
#define YAIA_LOG_INFO    1
#define YAIA_LOG_WARNING 2
#define YAIA_LOG_ERROR   3

/*
** One invocation of a service's perform(). Opaque. The pointer identifies the
** call until it is completed or cancelled; afterwards the host recognises it
** as stale (YAIA_ERR_STALE) instead of touching freed memory.
*/
typedef struct yaia_call yaia_call;

/* The runtime loading a plugin. Opaque; valid only during setup(), except as
** the first argument of log(). */
typedef struct yaia_host yaia_host;

/*
** A call queue (yaia_host_api.queue_new). Opaque. Jobs submitted to one queue
** run one at a time, in the order they were submitted, on the host's worker
** threads: what serialises a plugin's use of one connection, one file or one
** library that is not thread-safe, without a thread of the plugin's own.
*/
typedef struct yaia_queue yaia_queue;

/* A queued job: ctx and call as given to queue_submit(). */
typedef void (*yaia_job)(void *ctx, yaia_call *call);

/*
** A service.
**
** size     sizeof(yaia_service) as its author compiled it.
** name     the service name effects use ("auth", "store"): 1 to 64 bytes of
**          [A-Za-z0-9_.-]. Unique within a runtime.
** ctx      passed back, unchanged, as the first argument of every callback.
** perform  required. Starts performing one effect. op is the effect's "op";
**          args_json is its "args" as compact JSON text ("null" when the effect
**          has none). Both are borrowed for the duration of perform() only.
**          perform() must arrange for the call to be completed exactly once
**          with call_complete() or call_fail(), now or later, from any thread.
** cancel   optional (may be NULL). The runtime no longer wants the call's
**          outcome: a cancel command, a "latest" successor or a time-out
**          ended the effect, its scene was closed, or the runtime is being
**          freed. Called only for calls perform() was given. The service
**          should stop the work if it can; completing the call afterwards is
**          harmless and returns YAIA_ERR_STALE.
** release  optional (may be NULL). The runtime is done with this service; free
**          ctx if it owns anything. Called once, after the last perform() or
**          cancel() for the service has returned, on whichever thread that is.
** flags    (appended in ABI 1.1; absent from structs of the original size,
**          which count as 0) YAIA_SERVICE_BLOCKING when perform() may block
**          (disk, network, locks): the runtime then calls perform() on its
**          worker pool, never on the thread that sent the action. Without it
**          perform() runs inline on the sending thread and must return fast.
*/
typedef struct yaia_service {
    size_t size;
    const char *name;
    void *ctx;
    void (*perform)(void *ctx, yaia_call *call, const char *op, const char *args_json);
    void (*cancel)(void *ctx, yaia_call *call);
    void (*release)(void *ctx);
    uint32_t flags;
} yaia_service;

/*
** A typed op: a plain C function the host calls through libffi, marshalling
** JSON arguments to C values and the C return value back to JSON, so the
** plugin writes no JSON glue. See docs/ffi.md for the signature language.
**
** size       sizeof(yaia_function) as its author compiled it.
** op         the op name effects use.
** signature  its C signature, e.g. "double(double, double)" or
**            "int64(string)"; checked when it is registered.
** function   the function, cast to void (*)(void).
** free       for a "string!" return: frees the returned string; NULL means
**            free() from the C library.
*/
typedef struct yaia_function {
    size_t size;
    const char *op;
    const char *signature;
    void (*function)(void);
    void (*free)(void *p);
} yaia_function;

/*
** The host API table handed to setup(). Constant, append-only, and valid for
** the life of the process, so a plugin may keep the pointer. Check api->size
** before using a field added after ABI version 1.
**
** add_service    registers a copy of *service (the struct is copied; name
**                must outlive the process). Only during setup().
**                Returns YAIA_OK, YAIA_ERR_ARGUMENT (NULL, bad size, bad
**                name, no perform), YAIA_ERR_EXISTS or YAIA_ERR_STATE.
** call_complete  completes a call with its result: any JSON value, as text.
**                Returns YAIA_OK; YAIA_ERR_STALE when the call was already
**                completed or cancelled (nothing happens); YAIA_ERR_JSON when
**                result_json is not valid JSON (the call then fails with
**                the error {"code": "bad_result"}); YAIA_ERR_ARGUMENT for a
**                NULL call or text.
** call_fail      completes a call with an error: any JSON value, usually an
**                object {"message": ...}. Same returns as call_complete.
** log            writes a message to the runtime's log (stderr, filtered by
**                the YAIA_LOG environment variable). Any thread, any time.
** set_error      during setup() only: the message the failed load reports.
** add_functions  (appended in ABI 1.1: check api->size) registers a service
**                whose ops are the count typed ops in functions (copied; the
**                strings must outlive the process). flags as in
**                yaia_service. Only during setup(). Returns YAIA_OK,
**                YAIA_ERR_ARGUMENT (bad name, bad signature -- the load then
**                fails with the signature's error), YAIA_ERR_EXISTS or
**                YAIA_ERR_STATE.
**
** READING A CALL (appended in ABI 1.2, like everything below: check that
** api->size reaches queue_free before using any of them)
**
** The host keeps every call's op and args parsed; these read them, so a
** plugin needs no JSON parser. `name` is a member of the args object (a
** NUL-terminated name), or NULL for the args value itself. Any thread. A
** value handed out (a string, a JSON text) is the host's: do not free it.
** It stays valid while the call is in progress, and always until the
** perform() or queue job that read it returns, even if the call ends
** meanwhile. A cancel may end a call at any moment, so read calls in
** perform() or in a job queued with them, not on threads of your own.
**
** call_op        the call's op (NUL-terminated), or NULL when call is not a
**                call in progress.
** arg_type       the YAIA_JSON_* type of the value; YAIA_JSON_NONE when there
**                is none (no such member, args that are no object, a call
**                that ended or is not one).
** arg_count      the members of an object value or the elements of an array
**                value; 0 for anything else. With the member names a plugin
**                takes, it tells whether args hold any other.
** arg_string     a string: *value (NUL-terminated, UTF-8) and, if length is
**                not NULL, *length in bytes (a string may hold NUL bytes).
** arg_int        a number with an exact int64 value (2, 2.0, -0; not 2.5 or
**                2^63): *value.
** arg_double     any number: *value (integers beyond 2^53 rounded).
** arg_bool       true or false: *value 1 or 0.
** arg_json       any value as compact JSON text (object keys sorted): *json
**                (NUL-terminated) and, if length is not NULL, *length.
**                A string value comes back quoted.
**                These five return YAIA_OK; YAIA_ERR_MISSING (no such value);
**                YAIA_ERR_TYPE (another type, or out of range: *value is left
**                alone); YAIA_ERR_STALE (the call ended, or it is not one);
**                YAIA_ERR_ARGUMENT (value or json NULL).
** setup_config   during setup() only: the plugin's config as a call whose
**                args the arg_* functions read (valid until setup() returns;
**                it cannot be completed). NULL outside setup().
**
** BUILDING A RESULT
**
** Each call has a result under construction: an empty object at first.
** result_* set one value in it: inside an object, `name` is the member's
** name (a later value for a name replaces the earlier); inside an array,
** name is ignored and the value is appended; at the top with a NULL name,
** the value replaces the whole result (a call may answer "pong").
** result_open starts an object or array there, and the values that follow
** go into it until result_close. call_finish completes the call with what
** was built; call_error fails it with the object built plus "code" and
** "message". Strings are copied. Any thread, but one at a time per call.
**
** result_string  a string of length bytes of UTF-8 (YAIA_NTS: up to its NUL).
** result_int     an integer.
** result_double  a number; NaN and the infinities are no JSON.
** result_bool    true (value non-zero) or false.
** result_json    any JSON text of length bytes (YAIA_NTS: up to its NUL): a
**                stored document, null, a literal.
** result_open    an empty container, type YAIA_JSON_OBJECT or YAIA_JSON_ARRAY.
** result_close   ends the innermost container result_open started.
** result_reset   drops what was built: the result is an empty object again
**                (before call_error, when a failure comes half-way through).
**                These return YAIA_OK; YAIA_ERR_STALE (the call ended: nothing
**                happens); YAIA_ERR_ARGUMENT (a NULL name inside an object, a
**                NULL string, another type to result_open: nothing happens);
**                YAIA_ERR_STATE (a named value at the top after the result
**                was replaced by a value that is no container, result_close
**                with nothing open: nothing happens); YAIA_ERR_JSON (text that is
**                not JSON, a string that is not UTF-8, a NaN or infinity: the
**                call then fails with the error {"code": "bad_result"});
**                YAIA_ERR_LIMIT (past the runtime's size or nesting limits:
**                the call then fails with the error {"code": "limit_exceeded"}).
** call_finish    completes the call with the result built, closing what is
**                still open. Returns as call_complete.
** call_error     fails the call with the result built (an object) plus the
**                members "code" and "message", each left out when NULL:
**                call_error(call, "not_found", "no such key"). Returns as
**                call_fail, or YAIA_ERR_STATE when the result was replaced by
**                a value or an array (the call stays open).
**
** QUEUES
**
** Queue jobs run on the plugins' worker pool: one for the process, shared
** by every plugin and runtime, of up to 8 threads started on demand. Not on
** a runtime's "workers": a queue belongs to the plugin, may serve calls of
** several runtimes, and must run its jobs while a runtime is being freed
** (release() waits for them) -- when that runtime's pool has stopped. Jobs
** of one queue run one at a time; jobs of different queues side by side,
** at most 8 at once.
**
** queue_new      a new, empty queue, or NULL when out of memory. Any thread,
**                any time (usually setup(), one per registration).
** queue_submit   queues job(ctx, call), to run after every job submitted
**                before it on this queue has returned. call may be NULL (a
**                job of the plugin's own); else the call's memory (its args,
**                the values read from them) is kept for the job, and the job
**                runs even if the call ends while it waits: it then finds
**                the call ended (YAIA_ERR_STALE) and should just return.
**                Called from perform() on a thread that may block (that of
**                a YAIA_SERVICE_BLOCKING service, a worker thread; or that
**                of a direct call, {"op": "perform"}, which only waits for
**                this call) with the queue idle, the job runs at once on
**                that thread, and so may jobs submitted meanwhile (up to
**                64), before queue_submit returns; so do not hold a lock
**                there that a job takes.
**                Returns YAIA_OK; YAIA_ERR_ARGUMENT (NULL queue or job);
**                YAIA_ERR_STALE (a freed or made-up queue, or call that ended
**                or is not one); YAIA_ERR_RESOURCE (no worker thread could
**                start). On any return but YAIA_OK the job will not run.
**                Any thread, including from jobs.
** queue_free     frees a queue: jobs still waiting are dropped and their
**                calls failed with {"code": "cancelled"}; a job running is
**                waited for, so after queue_free returns no job of the
**                queue runs and the state they used may be freed (the usual
**                place is release()). Called from a job of the same queue, it
**                does not wait: the queue ends when that job returns. NULL,
**                freed or made-up queues are ignored. Any thread.
*/
typedef struct yaia_host_api {
    size_t size;
    uint32_t abi_version;
    const char *host_version;
    int (*add_service)(yaia_host *host, const yaia_service *service);
    int (*call_complete)(yaia_call *call, const char *result_json);
    int (*call_fail)(yaia_call *call, const char *error_json);
    void (*log)(yaia_host *host, int level, const char *message);
    void (*set_error)(yaia_host *host, const char *message);
    int (*add_functions)(yaia_host *host, const char *service, const yaia_function *functions,
                         size_t count, uint32_t flags);
    /* ABI 1.2 */
    const char *(*call_op)(yaia_call *call);
    int (*arg_type)(yaia_call *call, const char *name);
    size_t (*arg_count)(yaia_call *call, const char *name);
    int (*arg_string)(yaia_call *call, const char *name, const char **value, size_t *length);
    int (*arg_int)(yaia_call *call, const char *name, int64_t *value);
    int (*arg_double)(yaia_call *call, const char *name, double *value);
    int (*arg_bool)(yaia_call *call, const char *name, int *value);
    int (*arg_json)(yaia_call *call, const char *name, const char **json, size_t *length);
    yaia_call *(*setup_config)(yaia_host *host);
    int (*result_string)(yaia_call *call, const char *name, const char *value, size_t length);
    int (*result_int)(yaia_call *call, const char *name, int64_t value);
    int (*result_double)(yaia_call *call, const char *name, double value);
    int (*result_bool)(yaia_call *call, const char *name, int value);
    int (*result_json)(yaia_call *call, const char *name, const char *json, size_t length);
    int (*result_open)(yaia_call *call, const char *name, int type);
    int (*result_close)(yaia_call *call);
    int (*result_reset)(yaia_call *call);
    int (*call_finish)(yaia_call *call);
    int (*call_error)(yaia_call *call, const char *code, const char *message);
    yaia_queue *(*queue_new)(void);
    int (*queue_submit)(yaia_queue *queue, yaia_call *call, yaia_job job, void *ctx);
    void (*queue_free)(yaia_queue *queue);
} yaia_host_api;

/*
** What the host offers a plugin: the plugin ABI versions it supports, in
** ascending order, and its own version string.
*/
typedef struct yaia_plugin_offer {
    size_t size;
    const uint32_t *abi_versions;
    size_t abi_version_count;
    const char *host_version;
} yaia_plugin_offer;

/*
** A plugin's answer: a static descriptor, returned by yaia_plugin_init().
**
** size         sizeof(yaia_plugin) as the plugin was compiled.
** abi_version  the version chosen from the offer.
** name         the plugin's name: 1 to 64 bytes of [A-Za-z0-9_.-].
** version      the plugin's own version string.
** description  one line for listings; may be NULL.
** setup        registers the plugin's services (see LOADING). config_json is
**              the plugin's configuration from the runtime config as compact
**              JSON text ("{}" when none was given), borrowed for the call.
*/
typedef struct yaia_plugin {
    size_t size;
    uint32_t abi_version;
    const char *name;
    const char *version;
    const char *description;
    int (*setup)(yaia_host *host, const yaia_host_api *api, const char *config_json);
} yaia_plugin;

/* Exports the entry point from a plugin built with -fvisibility=hidden. */
#define YAIA_PLUGIN_EXPORT __attribute__((visibility("default")))

/*
** The plugin entry point. A plugin defines it with YAIA_PLUGIN_EXPORT.
** Called once per load, on the thread that loads the plugin. Must not
** register services or block; returns a descriptor that stays valid for the
** life of the process, or NULL when it supports none of the offered versions.
*/
YAIA_PLUGIN_EXPORT const yaia_plugin *yaia_plugin_init(const yaia_plugin_offer *offer);

#ifdef __cplusplus
}
#endif

#endif /* YAIA_PLUGIN_H */
