/*
** yaia_scene.h -- the Yaia scene-pack ABI, version 1.
**
** A scene pack is a shared object that holds scene types: each a State with
** a pure reducer and a view model (see docs/scenes.md). A runtime loads packs
** named by its config ({"scenes": ["path/libnotes.so"]}) and opens their
** scenes by name like any other. Packs are usually written in Swift with
** YaiaKit (ScenePack.export does everything below); this header is what such
** a pack implements, so that one can also be written in C.
**
** A scene's state lives in the pack, as the pack's own value: the host holds
** an opaque yaia_scene_state pointer. Per action, only the action (JSON text)
** goes in and only the commands and the view model (JSON text) come out; the
** state is serialized only when the host asks for it (snapshots, journals,
** the "state" request). Nothing but C types and JSON bytes crosses this
** boundary, so a pack may carry its own statically linked runtime (a Swift
** pack carries its own Swift runtime, and shares nothing with libyaia's).
**
** VERSIONING
**
** Every struct that crosses the boundary starts with a size_t holding
** sizeof(struct) as the side that filled it was compiled. Fields are only
** ever appended. A reader never touches a field beyond the size it was given.
** YAIA_SCENE_ABI_VERSION changes only when a change cannot be made that way;
** a host refuses a pack built for another version (code
** "scene_pack_abi_mismatch").
**
** LOADING (what the host does, in order)
**
**   1. dlopen(path, RTLD_NOW | RTLD_LOCAL). A pack is never dlclosed. Each
**      pack is loaded and initialized once per process, however many
**      runtimes name it (by its real path).
**   2. dlsym(YAIA_SCENE_PACK_ENTRY) and call it with the host table.
**   3. The pack answers with a pointer to a yaia_scene_pack descriptor, or
**      NULL if it cannot work with the host (code "scene_pack_abi_mismatch").
**      The descriptor, its scene types and every string they point at must
**      stay valid and unchanged while the process lives.
**   4. The host checks the descriptor: its version, sizes, that every scene
**      type has a valid name ("app/login": letters, digits and "._-/") and
**      all of its functions (code "scene_pack_invalid"), and that no name is
**      defined twice, in this pack or by a pack already in the runtime
**      (code "duplicate_scene", naming both packs).
**   5. The host loads the scene documents the pack ships, if any, as it
**      loads documents named in its config (docs/scene-documents.md): a
**      document with problems fails the load with "bad_document", whose
**      "at" starts with /documents/I (I: its index in the pack's list).
**
** MEMORY
**
** Text goes both ways as (bytes, length): it is not NUL-terminated and must
** be valid UTF-8 JSON (RFC 8259). Text the host passes is borrowed for the
** call only. A pack never returns text: it writes it into a host buffer
** (yaia_scene_buffer, opaque) with host->write(), which copies the bytes; a
** function may call write() several times, the pieces are concatenated.
** A yaia_scene_state belongs to the pack; the host calls free_state() once,
** when it is done with it, and never uses it again.
**
** THREADS
**
** open() and restore() may be called from any thread, several at once. The
** functions that take a yaia_scene_state are never called concurrently for
** the same state (the host serializes each scene), but may be for different
** states, from any thread. host->write() may be called from any thread, for
** the buffer of the call it is in, during that call only.
**
** ERRORS
**
** A function that fails returns NULL (open, restore) or non-zero (the
** others), and writes into its `error` buffer a JSON object
** {"code": "...", "message": "...", "at": "/json/pointer"} ("at" optional).
** The codes a scene may use are these four of docs/abi.md: "bad_args" for
** open arguments, "bad_state" for a state it cannot restore, "unknown_action"
** and "bad_payload" (with "at" inside the action, such as "/payload/email")
** for actions. Any other code (even a stable one such as "internal", which
** blames Yaia) becomes "scene_pack_error", the pack's code kept in the
** error's "pack_code" member and its "at" dropped. A failed reduce() must
** leave the state unchanged. A pack must not crash, block or call back into
** the runtime from these functions: reducers are pure.
**
** What a pack writes is checked as any untrusted input is. An answer the
** host cannot read is the error "scene_pack_error", and nothing of it is
** kept: a state that is no JSON fails the "state" request, a snapshot and
** the start of a journal (which then writes nothing); a view model that is
** no JSON fails the open or the reduction (the last view model read stays
** the scene's), canonical or not; commands that are not a JSON array (an
** object, even "{}") fail the reduction, and no effect starts; invariants
** that are not an array of names fail the check, never counting as held.
** A reduction refused that way has already run in the pack: whatever the
** pack did to its state stays, the runtime's seq does not move.
*/
#ifndef YAIA_SCENE_H
#define YAIA_SCENE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define YAIA_SCENE_ABI_VERSION 1

/* The symbol every pack exports, and nothing else. */
#define YAIA_SCENE_PACK_ENTRY "yaia_scene_pack_init"

/* A scene's state: the pack's own, opaque to the host. */
typedef struct yaia_scene_state yaia_scene_state;

/* A host buffer that collects text a pack writes. */
typedef struct yaia_scene_buffer yaia_scene_buffer;

/*
** What the host hands to the pack's entry point. Valid while the process
** lives: a pack may keep the pointer.
*/
typedef struct yaia_scene_host {
    size_t size;                 /* sizeof(yaia_scene_host) as the host was built */
    int abi_version;             /* YAIA_SCENE_ABI_VERSION of the host */
    const char *host_version;    /* yaia_version() of the host, NUL-terminated */

    /*
    ** Appends `length` bytes to `buffer` (copied before it returns). Any
    ** thread, during the call that was given `buffer`.
    */
    void (*write)(yaia_scene_buffer *buffer, const char *bytes, size_t length);
} yaia_scene_host;

/*
** One scene type. `context` is the pack's own and is never read by the host.
*/
typedef struct yaia_scene_type {
    size_t size;                 /* sizeof(yaia_scene_type) as the pack was built */
    const char *name;            /* "notes/login", NUL-terminated */
    void *context;

    /*
    ** A fresh state from open arguments: `args` is a JSON object ("{}" when
    ** the host was given none). Returns the state, or NULL with an error
    ** (usually "bad_args") written into `error`.
    */
    yaia_scene_state *(*open)(const struct yaia_scene_type *type, const char *args, size_t length,
                              yaia_scene_buffer *error);

    /*
    ** A state read back from the JSON that state() wrote (snapshots,
    ** journals, and hosts that open a scene in a given state). Returns NULL
    ** with an error (usually "bad_state") written into `error`.
    */
    yaia_scene_state *(*restore)(const struct yaia_scene_type *type, const char *json, size_t length,
                                 yaia_scene_buffer *error);

    /*
    ** Reduces one action, a Flux Standard Action object {"type", "payload",
    ** "error", "meta"}. On success returns 0, writes the commands as a JSON
    ** array into `out` ({"effect": {...}}, {"route": {...}}, {"cancel": "id"}:
    ** docs/abi.md) and the view model after the action into `view_model`.
    ** On failure returns non-zero, writes the error into `out` and leaves the
    ** state unchanged.
    */
    int (*reduce)(yaia_scene_state *state, const char *action, size_t length,
                  yaia_scene_buffer *out, yaia_scene_buffer *view_model);

    /*
    ** Whether reduce() would accept `action` (its type and payload), without
    ** reducing it: 0, or non-zero with the error written into `error`.
    */
    int (*check)(yaia_scene_state *state, const char *action, size_t length, yaia_scene_buffer *error);

    /* Writes the view model into `out`; 0, or non-zero with an error in `out`. */
    int (*view_model)(yaia_scene_state *state, yaia_scene_buffer *out);

    /*
    ** Writes the state as JSON into `out`, in a form restore() reads back to
    ** an equal state; 0, or non-zero with an error in `out`.
    */
    int (*state)(yaia_scene_state *state, yaia_scene_buffer *out);

    /* Frees a state. */
    void (*free_state)(yaia_scene_state *state);

    /*
    ** YAIA_SCENE_CANONICAL, or 0. With it, the pack promises that every view
    ** model it writes is canonical JSON as yaia.h defines it (keys in UTF-8
    ** byte order, no white space, numbers and strings as YaiaKit writes
    ** them): the host then copies a view model into its answers as it is.
    ** Without it, the host reads each view model and writes it again.
    */
    unsigned int flags;

    /*
    ** The scene's invariants (docs/simulation.md): given a state as JSON (as
    ** state() writes it), writes into `out` a JSON array of the names of the
    ** invariants it breaks ("[]" when all hold) and returns 0; or returns
    ** non-zero with an error in `out` (a state it cannot read: "bad_state").
    ** NULL: the scene declares none. The host calls it only when asked to
    ** check invariants (the simulator, scenario runs), never per action.
    ** A scene type that ends before this field (a smaller `size`: a pack
    ** built before it) declares none.
    */
    int (*invariants)(const struct yaia_scene_type *type, const char *state, size_t length, yaia_scene_buffer *out);

    /*
    ** reduce(), answering the view model as a change: reduces `action` as
    ** reduce() does and writes the commands into `out`, but in place of the
    ** view model writes into `patch` the JSON Patch (RFC 6902) that turns
    ** the view model this pack last wrote for `state` (by reduce(),
    ** view_model() or reduce_patch()) into the view model after the action:
    ** a JSON array of operations, "[]" when nothing changed. The new view
    ** model counts as written. On failure returns non-zero, writes the error
    ** into `out`, leaves the state unchanged and writes nothing into `patch`.
    **
    ** The host calls it only for a scene whose host asked for view models
    ** as patches (docs/abi.md) and that has no child slots and no parent
    ** (the host composes and diffs such a scene's view itself), in place
    ** of reduce(), and passes the operations on as they are, once checked
    ** to be a JSON array of operations within the host's limits (else
    ** "scene_pack_error", and the reduction is refused as for commands it
    ** cannot read). It asks
    ** view_model() for a whole view model (opening, restore, a host's gap,
    ** {"op": "view"}). The same threads and ownership as reduce().
    **
    ** NULL, or a scene type that ends before this field (a smaller `size`:
    ** a pack built before it): the host calls reduce() and diffs the view
    ** models itself.
    */
    int (*reduce_patch)(yaia_scene_state *state, const char *action, size_t length,
                        yaia_scene_buffer *out, yaia_scene_buffer *patch);

    /*
    ** The scene's child slots (docs/composition.md): a NUL-terminated JSON
    ** object, slot name -> {"scene", "kind", "intercept"?, "outputs"?,
    ** "argsAction"?}, the shape of a scene document's "children" member
    ** without its expressions:
    **
    **   {"rows": {"scene": "example/row", "kind": "keyed",
    **             "outputs": {"open": "rowOpened"}, "argsAction": "setArgs"}}
    **
    ** "kind" is "one", "optional" or "keyed"; "scene" names any scene type
    ** of the catalog (of this pack, another pack, a document or the host);
    ** "intercept" (false) sends actions for the children to this scene first
    ** as "NAME/willSend"; "outputs" maps a child's output type to an action
    ** type of this scene; "argsAction" is the action a kept child receives
    ** when its args change. A slot's name is not empty and has no "/". The
    ** host reads it once, when it loads the pack: text that is no such
    ** object (no JSON, an unknown member, no such kind, a scene name that
    ** is not one) fails the load with "scene_pack_invalid", every problem named
    ** with its pointer in the message. Owned by the pack, valid while the
    ** process lives. NULL or "{}": the scene has no children, and
    ** children() is never called.
    */
    const char *child_slots;

    /*
    ** The children `state` wants now, in each slot's order: writes into
    ** `out` a JSON array of {"slot", "key"?, "args"?} ("key": a string or
    ** an integer, in a keyed slot only; "args": the child's open arguments,
    ** an object, "{}" when absent) and returns 0; or returns non-zero with
    ** an error in `out`. A `one` slot the array leaves out still has its
    ** child, opened with "{}". Or, when the state wants the very children
    ** of this function's last answer for it, returns
    ** YAIA_SCENE_SAME_CHILDREN and writes nothing: the host keeps the list
    ** it read last, so an unchanged list of many children costs neither
    ** side a text. The first call for a state, and the call after an answer
    ** the host could not read or an error, always writes (the host has no
    ** list to keep: "same" there is "scene_pack_error"). A pack that always
    ** writes is as right, only slower.
    **
    ** The host calls it after each reduction of a scene with slots, and when
    ** one opens, is restored or is pushed in a flow; never concurrently for
    ** the same state (the same threads as reduce()). It opens the children
    ** that are new, closes the ones no longer listed and keeps the rest.
    ** What it cannot read (no JSON, no array, an element that is no object
    ** with a string "slot", an unknown member) is "scene_pack_error", and an
    ** error it returns keeps its code as ERRORS says; either is reported in
    ** the update's "childErrors": the children stay as they were and the
    ** reduction stands. A child its slots
    ** do not allow (an unknown slot, a bad or repeated key) is "bad_child",
    ** that child left out.
    **
    ** Required when `child_slots` names a slot (else "scene_pack_invalid").
    ** A scene type that ends before these fields (a smaller `size`: a pack
    ** built before them) has no children.
    */
    int (*children)(yaia_scene_state *state, yaia_scene_buffer *out);
} yaia_scene_type;

#define YAIA_SCENE_CANONICAL 1u

/*
** What children() returns, with nothing written, for "the same children as
** my last answer for this state". Returned with text written, it is an
** error as any other non-zero value.
*/
#define YAIA_SCENE_SAME_CHILDREN 1

/* What a pack's entry point answers. */
typedef struct yaia_scene_pack {
    size_t size;                 /* sizeof(yaia_scene_pack) as the pack was built */
    int abi_version;             /* YAIA_SCENE_ABI_VERSION the pack was built for */
    const char *name;            /* the pack's name, such as "notes" */
    const char *version;         /* the pack's own version, or NULL */
    size_t scene_count;
    const yaia_scene_type *const *scenes;

    /*
    ** Scene documents the pack ships: `document_count` NUL-terminated JSON
    ** texts, each a whole scene document (docs/scene-documents.md). Their
    ** scene types join the catalog beside the pack's own; {"op": "scenes"}
    ** lists them under "documents", with the pack as their origin. A
    ** descriptor that ends before these fields (a smaller `size`: a pack
    ** built before them) ships none.
    */
    size_t document_count;
    const char *const *documents;
} yaia_scene_pack;

/*
** The entry point, exported as YAIA_SCENE_PACK_ENTRY. Called once per
** process, from whichever thread loads the pack first; returns the
** descriptor, or NULL if the pack cannot work with this host.
*/
typedef const yaia_scene_pack *(*yaia_scene_pack_init_fn)(const yaia_scene_host *host);

#ifdef __cplusplus
}
#endif

#endif /* YAIA_SCENE_H */
