/* fuzz.h -- what the fuzz target's files share (fuzz_execute.c, fuzz_surfaces.c). */
#ifndef YAIA_FUZZ_H
#define YAIA_FUZZ_H

#include <stddef.h>

#include "yaia.h"

/* Runs a request, drains the events it queued, and returns its answer (to
** yaia_free); aborts if the answer or an event is not a JSON object. */
char *request(yaia_runtime *rt, const char *text, size_t len);

/* request() of a formatted text; NULL when it cannot be made. */
__attribute__((format(printf, 2, 3))) char *requestf(yaia_runtime *rt, const char *format, ...);

/* A line "#NAME TEXT": appends TEXT and a line break to the file NAME of the working directory. */
void append_line(const char *p, size_t len);

/* Sets the answer of the fuzzing pack's function `slot` (fuzz_pack.c). */
extern void (*set_answer)(const char *slot, size_t slot_length, int failing, const char *bytes, size_t length);

/* The whole number of an answer's top-level member "scene", or 0. */
long scene_of(const char *answer);

/* Runs one input's lines against rt, by the surface its first line chooses. */
void run_input(yaia_runtime *rt, const char *input, size_t size);

#endif
