/*
** yaia.h -- the Yaia C ABI, version 1.
**
** Yaia runs application logic written as values: scenes whose state changes
** only through a pure reducer, whose IO leaves as data (effects) and whose
** navigation leaves as data (routes). This header is the whole interface of
** libyaia.so. Everything crosses it as JSON text (RFC 8259, UTF-8).
**
** OWNERSHIP
**
** Every char * this library returns is allocated by it and must be freed
** with yaia_free(). Every pointer it receives is borrowed for the duration of
** the call only. The one exception is yaia_version(), which returns a static
** string.
**
** RESPONSES
**
** Functions returning char * return a JSON object, never NULL (except
** yaia_receive() on time-out). Success is {"ok": true, ...}. Failure is the
** error envelope:
**
**     {"ok": false, "error": {"code": CODE, "message": TEXT, "at": POINTER}}
**
** where CODE is one of the stable codes listed below, TEXT is for people and
** may change, and POINTER (present when the fault lies inside the request) is
** a JSON Pointer (RFC 6901) into the request. A failed call changes nothing
** and the runtime stays usable. Any request may carry "tag" (any JSON value),
** echoed unchanged in its response, success or failure, whenever the request
** parses as a JSON object.
**
** Output is canonical: object keys sorted by their UTF-8 bytes, no
** insignificant white space, integers without a fraction, other numbers in
** the shortest form that reads back to the same double. The same value always
** prints as the same bytes.
**
** HANDLES
**
** A yaia_runtime * is a handle, not an address: a freed, foreign or made-up
** handle is detected, and functions given one return the error "bad_handle"
** (NULL gives "null_argument"; yaia_runtime_free() ignores both). The same
** holds for yaia_call *: completing a freed or made-up call returns
** YAIA_ERR_STALE.
**
** THREADS
**
** All functions may be called from any thread. One runtime may be used from
** several threads at once. The reducer of a scene never runs on two threads
** at once. Services may complete calls from threads of their own; the
** completion's reduction runs on the completing thread and its update is
** queued for yaia_receive(). A runtime starts threads of its own on demand:
** a pool for blocking service calls, one for effect deadlines, and, while a
** journal is on, one that writes the journal's lines.
**
** SCENE UPDATES
**
** open, send and resolve answer with a scene update, and yaia_receive()
** returns the same shape with "event": "update" when an effect's outcome was
** reduced:
**
**     {"ok": true, "scene": ID, "seq": N, "viewModel": {...},
**      "effects": [{"id", "key"?, "service", "op", "args", "status"}, ...],
**      "routes": [...]}
**
** "seq" counts the reductions of the scene (0 after open). "effects" lists
** the effects that reduction emitted, with ids for yaia_resolve() and the
** reducer's cancellation "key" if it gave one; status is "running" when a
** registered service performs it, "pending" when it waits for the host to
** resolve it, "queued" when it waits for earlier effects with its key. "routes" lists the navigation the reduction
** asked for. Events caused by an effect's outcome also carry "effect": ID.
**
** SECURITY -- docs/security.md has the details
**
** Two levels of trust. The config given to yaia_runtime_new() is the host's
** own word: the scene packs, plugins, bindings and journal it names are
** used as given. Requests (yaia_execute() and the functions that wrap a
** request) are the ordinary path, for text a host may forward from a web
** page, a socket or a file. On that path the privileged ops -- bind,
** load_plugin, perform, journal, replay, snapshot, restore, rewind,
** register, scenario_from_journal -- are
** refused with "not_permitted" (at "/op", changing nothing) unless the
** config grants them:
**
**     "allow": {"ops": ["snapshot", "journal", ...] | "all",
**               "files": [DIR, ...]}
**
** Every file a request names (load_plugin's path, journal's start, replay's
** journal, bind's library when it is a path rather than a soname, a
** scenario's path and the scenes it loads) must also
** lie beneath one of the "files" directories once
** symbolic links are resolved; with none granted, no request names a file.
** Whatever a runtime grants, a bound C function runs with the process's
** rights: binding free(), exit() or system() is the binder's decision.
**
** Limits bound what requests, services and files can make a runtime hold
** ("limits" in the config; defaults in brackets): request_bytes, the size
** of any JSON text given to the runtime [16 MiB]; depth, the nesting of
** the values it holds (states, documents, arguments) [512, at most 512],
** the texts that carry them nesting at most 8 levels more;
** events, events waiting for yaia_receive() [65536] -- beyond it the oldest
** is dropped, counted, and the next event received carries "dropped": N;
** scenes, open scenes [100000]; reentry, service calls nested on one thread
** by services calling back into the runtime [8]. Reaching one is the error
** "limit_exceeded", whose error object names it in "limit"; the runtime
** stays usable. logic_steps [100000] is the step budget of a JSON Logic
** evaluation (a scene document's reduction, opening or view model; a logic
** request) before the share of the data it reads, 16 steps a value
** (docs/logic.md); running out is "logic_budget_exceeded".
** {"op": "limits"} reports them with the grants and usage.
**
** REQUESTS (yaia_execute) -- docs/abi.md has the details and examples
**
** Scenes:
**   {"op": "open", "scene": NAME, "args": {...}}      open a scene; args optional
**   {"op": "open", "scene": NAME, "state": {...}}     open a scene in that state
**   {"op": "send", "scene": ID, "action": ACTION}     reduce an action
**   {"op": "send", "scene": ID, "path": [SLOT, KEY?, ...], "action": ACTION}
**                                                     reduce it on a child scene
**                                                     (docs/composition.md)
**   {"op": "resolve", "effect": ID, "result": VALUE}  an effect succeeded
**   {"op": "resolve", "effect": ID, "error": VALUE}   an effect failed
**   {"op": "state", "scene": ID}                      state and view model
**   {"op": "view", "scene": ID}                       the whole view model and its seq
**                                                     (VIEW PATCHES below)
**   {"op": "close", "scene": ID}                      close a scene
**   {"op": "scenes"}                                  scene types, packs, documents, open scenes, flows
**   {"op": "schema", "scene": NAME}                   a JSON Schema of a scene type's interface
**   {"op": "limits"}                                  limits, grants, events queued and dropped
**   {"op": "advance", "seconds": S}                   move a manual clock; due time-outs fire
** Simulation (docs/simulation.md):
**   {"op": "simulate", "scene": NAME, "runs": N, "seed": S, "steps": M,
**    "args": {...}, "env": {...}, "scenes": [PATH...], "base": DIR,
**    "actions": {TYPE: PAYLOAD_SCHEMA|null, ...}}
**                                                     random runs of a scene, its
**                                                     invariants checked after every
**                                                     step; a failure comes back shrunk
**                                                     to a scenario
** Rules (docs/logic.md):
**   {"op": "logic", "rule": RULE, "data": DATA}       a JSON Logic rule's value for DATA
**                                                     (default null): {"ok":true,"result":...}
** Flows (docs/flows.md):
**   {"op": "start", "flow": NAME?, "scene": NAME, "args": {...}}  a flow with a root scene
**                                                     (open and start take "view" too:
**                                                     VIEW PATCHES below)
**   {"op": "send", "flow": ID, "action": ACTION}      reduce on the flow's top scene
**   {"op": "flow", "flow": ID}                        the stack now
**   {"op": "popped", "flow": ID, "depth": N, "version": V?}  the UI popped by itself
**   {"op": "link", "flow": ID, "path": [...]}         a deep link
**   {"op": "close", "flow": ID}                       close a flow and its scenes
** Services (docs/services.md, docs/ffi.md); privileged but for "services":
**   {"op": "services"}                                registered services
**   {"op": "load_plugin", "path": PATH, "config": {...}}  load a plugin
**   {"op": "bind", "service": NAME, "library": LIB, "ops": {...}}  C functions as a service
**   {"op": "perform", "effect": EFFECT}               one effect outside any scene;
**                                                     answers {"ok":true,"result":...}
** State (docs/journal.md); privileged:
**   {"op": "snapshot"}                                the whole runtime as JSON
**   {"op": "restore", "snapshot": {...}}              rebuild it
**   {"op": "journal", "start": PATH | "stop": true | "flush": true}
**   {"op": "replay", "journal": PATH, "to": SEQ?}     re-run a journal, check digests
**   {"op": "rewind", "to": SEQ}                       back to the state after input SEQ
**   {"op": "inspect", "on": BOOL}                     action/effect/route/flow events
** Scene documents (docs/scene-documents.md); privileged:
**   {"op": "register", "document": {...}}             add a scene document's type
** Scenario files (docs/scenarios.md):
**   {"op": "scenario", "scenario": {...}, "base": DIR?}  run a scenario in a runtime of
**   {"op": "scenario", "path": FILE}                  its own (no services, manual clock):
**                                                     {"ok":true,"name","passed","steps",
**                                                     "failure"?: {"step","label","message",
**                                                     "differences","text"}}; ordinary, but
**                                                     a path, the scenes it loads (load_plugin,
**                                                     register) and perform steps need grants
**   {"op": "scenario_from_journal", "path": FILE}     a journal as scenarios, one per scene
**                                                     opened: {"ok":true,"scenarios":[...]};
**                                                     privileged
**   {"op": "expect", "test": RECORD?, "step": NAME, ...}  one step of a test checked by
**                                                     the exhaustive rules of SceneTest and
**                                                     scenario files, for a test kept outside
**                                                     Swift: {"ok":true,"test":RECORD,
**                                                     "failure"?: TEXT}; keeps nothing
**                                                     (docs/testing.md)
**
** An ACTION is a Flux Standard Action: {"type": NAME, "payload": ANY,
** "error": BOOL, "meta": ANY}; only "type" is required. An EFFECT is
** {"service", "op", "args", "then", "catch", "id", "timeout", "policy",
** "restore"}; see docs/services.md for keys, policies, time-outs and
** cancellation.
**
** VIEW PATCHES -- docs/abi.md, "View models as patches"
**
** By default every update (a response, a yaia_receive() event) carries the
** scene's whole view model in "viewModel". In patch mode it carries instead
** "viewPatch", the RFC 6902 JSON Patch operations that turn the view model
** of the scene's update of seq "viewBase" into this update's, and "viewBase":
**
**   {"effects":[],"ok":true,"routes":[],"scene":1,"seq":4,"viewBase":3,
**    "viewPatch":[{"op":"replace","path":"/isSubmitting","value":false}]}
**
** "viewPatch":[] means nothing changed. Patch mode is chosen for every
** scene by the config ("view": "patch"), or for one scene or flow by
** {"op": "open", ..., "view": "patch" | "whole"} and {"op": "start", ...,
** "view": ...} (yaia_open() takes the runtime's mode; a scene a flow opens
** takes the flow's). The whole view model, with its seq, still comes on
** open and start (the response's "viewModel"), in a flow's "stack", in a
** restore's or rewind's "scenes" (each with "seq" when in patch mode), and
** from {"op": "view", "scene": ID}, which answers {"ok":true,"scene":ID,
** "seq":S,"view":"patch"|"whole","viewModel":{...}}. A host holds, per
** scene, a view model and its seq S, and for each update of that scene:
**   viewBase == S       applies viewPatch in order, then holds seq;
**   seq <= S            skips it (a view answer already covered it);
**   otherwise           missed an update (an event dropped): asks "view".
** The next patch after a view answer starts from the view model it gave.
** Journals record inputs, not views: snapshots, journals and replay are
** the same in either mode, and a journal replays in either.
**
** ERROR CODES (stable)
**
**   invalid_json        the text is not valid JSON (syntax, encoding,
**                       numbers out of double range)
**   not_an_object       the JSON is valid but not an object where one is needed
**   null_argument       a required pointer argument was NULL
**   bad_handle          the runtime handle is freed, foreign or made up
**   unknown_op          the request's "op" is not one of the above
**   bad_request         a field of the request is missing or has the wrong type
**   bad_config          the runtime configuration is not usable
**   unknown_scene       no scene type has that name
**   no_such_scene       no open scene has that id
**   bad_args            the scene refused its open arguments
**   missing_action_type the action has no "type", or it is not a string
**   unknown_action      the scene has no action of that type
**   bad_payload         the action's payload has the wrong shape
**   no_such_effect      no effect has that id
**   effect_already_resolved  the effect was resolved or completed already
**   effect_not_pending  a service is performing the effect; only it completes it
**   bad_service         a service struct is NULL, too small, unnamed or has no perform
**   duplicate_service   a service with that name is already registered
**   plugin_not_found    no file at the plugin path
**   plugin_not_loadable the file is no shared object for this machine (its
**                       ELF headers are checked first: a truncated or
**                       malformed file), or dlopen refused it (missing
**                       dependencies)
**   plugin_no_entry     the file does not export yaia_plugin_init
**   plugin_abi_mismatch the plugin supports none of the offered ABI versions,
**                       or answered with a malformed descriptor
**   plugin_init_failed  the plugin's setup reported failure
**   no_such_service     perform names a service that is not registered
**   service_failed      a service failed a direct perform ("detail" holds its error)
**   bad_result          a service completed with text that is not JSON
**   timeout             the effect's deadline passed before its outcome
**   library_not_found   bind: dlopen refused the library, or a library given
**                       by its path is no shared object for this machine
**   symbol_not_found    bind: the library has no such symbol
**   bad_signature       bind or a typed plugin op: the C signature does not parse
**   bad_binding         bind: the binding itself is malformed
**   bad_argument        a foreign call's arguments do not fit its signature,
**                       or a pointer argument is not a handle the service
**                       handed out
**   handle_table_full   a foreign call would return a pointer while its
**                       service holds the most handles it may (docs/ffi.md)
**   no_such_flow        no flow has that id
**   stale_navigation    a route or popped report that no longer applies
**   scene_in_flow       close on a scene of a flow: navigate or close the flow
**   no_such_child       a send's path names a slot or key with no child scene
**   scene_is_child      close on a child scene: its parent's state closes it
**   bad_child           a scene's state wants a child its slots do not allow
**                       (in an update's "childErrors")
**   too_many_children   a scene would have more children than the limit
**                       (10,000; in an update's "childErrors")
**   children_too_deep   a child scene would nest deeper than the limit (8
**                       levels; in an update's "childErrors")
**   bad_route           a route that cannot be read
**   bad_snapshot        a snapshot of another format, or with parts refused
**                       (ids, seqs, versions and counters end at 2^53)
**   bad_state           a scene refused a state being restored
**   bad_journal         a journal that cannot be written, read or replayed;
**                       also a path that is not a regular file (a FIFO, a
**                       device, a directory), and a journal started on a
**                       non-empty file that is not a journal
**   ids_exhausted       the runtime has handed out its last scene, flow or
**                       effect id (2^53)
**   scene_pack_not_found     no file at a scene pack's path
**   scene_pack_not_loadable  the file is not a regular file, or no shared
**                       object for this machine (ELF headers checked first),
**                       or dlopen refused it (missing dependencies)
**   scene_pack_no_entry the file does not export yaia_scene_pack_init: no pack
**   scene_pack_abi_mismatch  the pack was built for another scene-pack ABI
**                       version, or refused this host
**   scene_pack_invalid  the pack's descriptor is malformed (names, sizes,
**                       missing functions)
**   duplicate_scene     two packs or documents (or one, twice) define a
**                       scene type name; the message names both
**   document_not_found  no scene document (or folder of them) at a path
**   bad_document        a scene document that cannot be loaded: not JSON,
**                       or with problems; "problems" lists every one as
**                       {"code", "message", "at"} (docs/scene-documents.md)
**   scene_pack_error    a pack's scene answered with something unreadable (a
**                       state, view model, command list or invariants answer
**                       that is no JSON or not of its shape), or failed with
**                       a code no scene may give: "pack_code" in the error
**                       holds that code (yaia_scene.h)
**   bad_scenario        a scenario file that cannot be run: not JSON, or with
**                       problems; "problems" lists every one as
**                       {"code", "message", "at"} (docs/scenarios.md)
**   not_permitted       a privileged op the config does not grant, or a file
**                       outside the granted directories (see SECURITY)
**   limit_exceeded      a limit was reached; "limit" names it (see SECURITY)
**   document_failed     a scene document's reduction could not complete: a set
**                       path it cannot follow, a command value of the wrong type
**   bad_rule            a JSON Logic rule that does not compile: an unknown
**                       operator, a wrong count of arguments, a bad path
**                       ("at" points into the rule; docs/logic.md)
**   logic_budget_exceeded  a rule took more steps than its budget allows:
**                       the "logic_steps" limit, and 16 steps a value of the
**                       data it reads; "at" is the rule's place (/rule, or
**                       the expression in a scene document: /view/left)
**   logic_error         a rule's operator was given a value it cannot take
**   not_simulatable     simulate named a scene whose actions are not declared
**                       (a Swift or pack scene) and gave no "actions"
**   internal            a bug in Yaia; please report it
*/
#ifndef YAIA_H
#define YAIA_H

#include <stddef.h>
#include <stdint.h>
#include "yaia_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libyaia.so exports (ELF platforms only, for now). */
#define YAIA_API __attribute__((visibility("default")))

/* The C ABI version described by this header. */
#define YAIA_ABI_VERSION 1

/* A runtime: scene catalog, open scenes, services, event queue. Opaque. */
typedef struct yaia_runtime yaia_runtime;

/*
** yaia_version -- the library version, as "MAJOR.MINOR.PATCH".
** Returns a static string: do not free it. Any thread.
*/
YAIA_API const char *yaia_version(void);

/*
** yaia_abi_version -- the C ABI version the library implements.
** Compare with YAIA_ABI_VERSION to detect a header/library mismatch.
** Any thread.
*/
YAIA_API int yaia_abi_version(void);

/*
** yaia_free -- frees a string returned by this library.
** p: a pointer returned by this library, or NULL (then nothing happens).
** Freeing anything else, or freeing twice, is undefined behaviour, as with
** free(). Any thread.
*/
YAIA_API void yaia_free(void *p);

/*
** yaia_runtime_new -- creates a runtime.
**
** config_json  NULL, or a JSON object, every key optional:
**                {"scenes": [SCENES, ...], "plugins": [PLUGIN, ...], "workers": N,
**                 "bind": [BINDING, ...], "restore": SNAPSHOT, "journal": PATH,
**                 "inspect": BOOL, "allow": GRANTS, "limits": LIMITS,
**                 "clock": "system" | "manual", "env": {...},
**                 "view": "whole" | "patch"}
**              SCENES is the path of a scene pack (yaia_scene.h), of a scene
**              document (a file whose name ends in .json), or of a folder
**              of documents (a directory: each *.json file in it); their
**              scene types join the runtime's catalog, which has none of its
**              own (docs/scene-documents.md). A pack is loaded once per
**              process, whatever runtimes name it. A name defined twice is
**              "duplicate_scene", naming both definitions; a document with
**              problems is "bad_document", listing them all. "env" holds
**              the values scene documents read as env (env.now is the
**              clock's and cannot be set). "view" is how updates carry
**              view models: "whole" (default) or "patch" (VIEW PATCHES).
**              A PACK or PLUGIN path that is absolute or starts with ./ or
**              ../ is taken as it is; any other is looked for in the working
**              directory, then in each directory of the environment variable
**              YAIA_PLUGIN_PATH (colon-separated), and the file found is the
**              one opened (never a search of the system's library path).
**              PLUGIN is a path string or {"path": PATH, "config": {...}};
**              N (1 to 256, default 4) bounds the worker pool on which
**              blocking services run; BINDING is a bind request's object
**              (docs/ffi.md); SNAPSHOT is restored after plugins and bindings
**              load (one refused fails with the code a restore request
**              gives, "bad_snapshot", its "at" under /restore), and the
**              journal starts after that. GRANTS and LIMITS
**              are described under SECURITY above. "clock" is the time
**              effect and perform time-outs run on: the system's monotonic
**              clock (default), or "manual", a clock that stands at 0 until
**              {"op": "advance", "seconds": S} moves it; the time-outs it
**              passes fire before that request answers {"ok": true,
**              "now": T, "fired": N}, so tests need not wait. advance on
**              the system clock is "not_permitted". Unknown keys are refused
**              (code "bad_config", naming the nearest key), so typos show.
** error_json   NULL, or where to store an error envelope on failure (free it
**              with yaia_free()). Set to NULL on success.
**
** Returns the runtime, or NULL on failure (bad JSON, bad config, a plugin
** that fails to load; nothing is kept of a failed runtime). Free it with
** yaia_runtime_free(). Any thread.
*/
YAIA_API yaia_runtime *yaia_runtime_new(const char *config_json, char **error_json);

/*
** yaia_runtime_free -- frees a runtime.
**
** Closes its scenes, cancels the calls its services are performing (their
** late completions return YAIA_ERR_STALE), releases its services and wakes
** any thread blocked in yaia_receive() on it. NULL, and a freed or foreign
** handle, are ignored. Calls running on other threads at the same moment
** finish normally; later calls get "bad_handle". Any thread.
*/
YAIA_API void yaia_runtime_free(yaia_runtime *rt);

/*
** yaia_execute -- performs one request (see REQUESTS above).
**
** rt            the runtime.
** request_json  a JSON object with "op": the untrusted path, see SECURITY
**               (privileged ops answer "not_permitted" unless granted; a
**               text over the "request_bytes" or "depth" limit answers
**               "limit_exceeded").
**
** Returns the response: never NULL, free it with yaia_free(). Any thread.
*/
YAIA_API char *yaia_execute(yaia_runtime *rt, const char *request_json);

/*
** yaia_execute_n -- yaia_execute() on a buffer of known length.
**
** request  length bytes of JSON text; need not be NUL-terminated. A NUL byte
**          inside it is part of the text (and so "invalid_json"), not its end.
** length   the number of bytes.
**
** Saves the strlen() and sees the whole text; otherwise the same as
** yaia_execute(). NULL request with length 0 is the empty text
** ("invalid_json"); NULL with a non-zero length is "null_argument"; a
** length over the "request_bytes" limit is "limit_exceeded" and not read.
*/
YAIA_API char *yaia_execute_n(yaia_runtime *rt, const char *request, size_t length);

/*
** yaia_execute_borrowed -- yaia_execute() answering into the library's
** memory.
**
** rt, request_json  as for yaia_execute(), with the same answers.
**
** Returns the response, NUL-terminated, in a buffer that belongs to the
** calling thread and that the library keeps: do NOT free it. It stays
** valid until the same thread, after this call returned, calls
** yaia_execute_borrowed() or yaia_send_borrowed() again (on any runtime,
** from any callback) or ends; copy what must outlive that. Each thread has its own buffers, so
** threads may call at once. For hosts whose every foreign call is costly
** (Python's ctypes): one call instead of an execute and a free.
**
** Nested calls: a call made on a thread while another call of this
** function is still running there (from a callback the outer call runs:
** a host service's perform() or cancel(), a notifier) answers into a
** buffer of its own, one per nesting level, so the outer answer is whole
** whatever the nested calls answered. A nested answer follows the rule
** above: the thread's next call may reuse its buffer.
**
** Returns NULL only when the thread's buffer cannot be made or grown
** (out of memory). An answer over 1 MiB is let go at the next call at
** its nesting level.
*/
YAIA_API const char *yaia_execute_borrowed(yaia_runtime *rt, const char *request_json);

/*
** yaia_receive -- takes the next event from the runtime's queue.
**
** timeout_seconds  0 returns at once; a positive value waits at most that
**                  long; a negative value waits until an event arrives or the
**                  runtime is freed. NaN counts as 0.
**
** Returns an event ({"ok": true, "event": "update", ...}), or NULL when none
** arrived in time or the runtime was freed while waiting. A bad handle gives
** the "bad_handle" envelope. Events come out in the order they were queued;
** with several receiving threads, each event goes to exactly one of them.
** Events are kept until received: a host whose services complete calls
** should drain them (a notifier, yaia_set_notifier(), says when).
** Free the result with yaia_free(). Any thread.
*/
YAIA_API char *yaia_receive(yaia_runtime *rt, double timeout_seconds);

/*
** yaia_set_notifier -- registers the runtime's event notifier.
**
** notify  called with ctx each time an event is queued for yaia_receive(),
**         from the thread that queued it (a service's thread, a worker-pool
**         thread, the timer thread, or a thread inside yaia_send()), after
**         the event is queued and with no lock of the runtime held. It should
**         only signal the host's loop (write to a pipe, post to a queue); it
**         may call yaia_receive() or any other function. NULL removes it.
** ctx     passed back to notify, unchanged.
**
** One notifier per runtime: a new one replaces the old. After this returns
** the old one is not called again, though a call already under way on
** another thread may still be running. Returns YAIA_OK, or YAIA_ERR_ARGUMENT
** for a NULL runtime and YAIA_ERR_STALE for a freed or made-up one.
** Any thread.
*/
YAIA_API int yaia_set_notifier(yaia_runtime *rt, void (*notify)(void *ctx), void *ctx);

/*
** yaia_open -- opens a scene; the same as {"op": "open"}.
**
** scene      the scene type's name, for example "example/login".
** args_json  NULL or a JSON object: the scene's open arguments.
**
** Returns a scene update (seq 0) or an error envelope; free with yaia_free().
** Any thread.
*/
YAIA_API char *yaia_open(yaia_runtime *rt, const char *scene, const char *args_json);

/*
** yaia_send -- reduces an action on an open scene; the same as {"op": "send"}.
**
** scene_id     the id from the scene's open update.
** action_json  a Flux Standard Action object, with "type".
**
** Returns the scene update of that reduction, or an error envelope (the
** scene is then unchanged); free with yaia_free(). Any thread; sends to one
** scene are reduced one at a time, in the order they are accepted.
*/
YAIA_API char *yaia_send(yaia_runtime *rt, int64_t scene_id, const char *action_json);

/*
** yaia_send_borrowed -- yaia_send() answering into the library's memory.
**
** rt, scene_id, action_json  as for yaia_send(), with the same answers.
**
** Returns the answer in the calling thread's buffer, as
** yaia_execute_borrowed() does and under its rules (the two share the
** thread's buffers): do NOT free it; it stays valid until the same thread
** calls yaia_send_borrowed() or yaia_execute_borrowed() again at the same
** nesting level, or ends. Any thread. For hosts whose every foreign call
** is costly (Python's ctypes): one call instead of a send and a free.
** Returns NULL only when the thread's buffer cannot be made or grown
** (out of memory).
*/
YAIA_API const char *yaia_send_borrowed(yaia_runtime *rt, int64_t scene_id, const char *action_json);

/*
** yaia_resolve -- gives the outcome of a pending effect; the same as
** {"op": "resolve"}.
**
** effect_id     the id from the update that emitted the effect.
** outcome_json  {"result": VALUE} on success, {"error": VALUE} on failure.
**
** The outcome is reduced as the effect's "then" action (payload VALUE) or its
** "catch" action (payload VALUE, "error": true). Returns that reduction's
** scene update, or an error envelope ("no_such_effect",
** "effect_already_resolved", "effect_not_pending", ...); free with
** yaia_free(). Any thread.
*/
YAIA_API char *yaia_resolve(yaia_runtime *rt, int64_t effect_id, const char *outcome_json);

/*
** yaia_add_service -- registers a service of the host program.
**
** service  a yaia_service struct, see yaia_plugin.h; copied. Its name must stay valid
**          while the runtime lives. perform() completes calls with
**          yaia_call_complete() or yaia_call_fail().
**
** Returns {"ok": true, "service": NAME} or an error envelope ("bad_service",
** "duplicate_service"); free with yaia_free(). Any thread. The service is
** released (service->release) when the runtime is freed.
*/
YAIA_API char *yaia_add_service(yaia_runtime *rt, const yaia_service *service);

/*
** yaia_call_complete -- completes a service call with its result.
**
** call         the call given to perform().
** result_json  any JSON value, as text; borrowed.
**
** Returns YAIA_OK, YAIA_ERR_STALE (completed or cancelled already, its
** runtime freed, or not a call at all: nothing happens), YAIA_ERR_JSON (not
** valid JSON: the call fails with {"code": "bad_result"} instead) or
** YAIA_ERR_ARGUMENT (call or result_json NULL: the call stays open).
** Any thread, once per call.
*/
YAIA_API int yaia_call_complete(yaia_call *call, const char *result_json);

/*
** yaia_call_fail -- completes a service call with an error.
**
** error_json  any JSON value, as text; usually {"message": TEXT}. Borrowed.
**
** Same returns and threads as yaia_call_complete().
*/
YAIA_API int yaia_call_fail(yaia_call *call, const char *error_json);

#ifdef __cplusplus
}
#endif

#endif /* YAIA_H */
