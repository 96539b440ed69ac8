/* The hand-written contract headers, seen from Swift, and libffi. */
#ifndef CYAIA_H
#define CYAIA_H
#include "../../../Include/yaia.h"
#include <ffi.h>

/* libffi's ffi_type_* are mutable globals, which Swift 6 refuses to touch
** from concurrent code; these accessors hand out their addresses instead. */
static inline ffi_type *cyaia_ffi_void(void) { return &ffi_type_void; }
static inline ffi_type *cyaia_ffi_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *cyaia_ffi_sint8(void) { return &ffi_type_sint8; }
static inline ffi_type *cyaia_ffi_uint16(void) { return &ffi_type_uint16; }
static inline ffi_type *cyaia_ffi_sint16(void) { return &ffi_type_sint16; }
static inline ffi_type *cyaia_ffi_uint32(void) { return &ffi_type_uint32; }
static inline ffi_type *cyaia_ffi_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cyaia_ffi_uint64(void) { return &ffi_type_uint64; }
static inline ffi_type *cyaia_ffi_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *cyaia_ffi_float(void) { return &ffi_type_float; }
static inline ffi_type *cyaia_ffi_double(void) { return &ffi_type_double; }
static inline ffi_type *cyaia_ffi_pointer(void) { return &ffi_type_pointer; }
static inline ffi_abi cyaia_ffi_default_abi(void) { return FFI_DEFAULT_ABI; }

/* Service calls in progress on this thread (a C thread-local: Swift 6 has
** none). enter returns 0, and counts nothing, when `limit` are in progress. */
int cyaia_reentry_enter(int limit);
void cyaia_reentry_leave(void);
/* leave, in the same visit to the thread-local state: returns 1 when this
** ended the thread's last service call and launches were deferred meanwhile. */
int cyaia_reentry_leave_deferred(void);
/* Service calls under way on this thread. */
int cyaia_reentry_depth(void);
/* This thread's list of launches deferred until its service call returns:
** stores next, returns what was there. */
void *cyaia_deferred_swap(void *next);

/* Opens `path`, relative, beneath the directory `dir`, following no
** symbolic link on the way (flags and mode as openat's): the kernel resolves
** it, so what was checked is what is opened. With `kernel` nonzero openat2
** (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) is tried
** first; without it, or where the kernel lacks openat2, each component is
** opened with O_NOFOLLOW from the one before. A symbolic link met is ELOOP,
** ".." is EXDEV. Returns the descriptor, or -1 with errno. */
int cyaia_open_beneath(const char *dir, const char *path, int flags, unsigned mode, int kernel);
#endif
