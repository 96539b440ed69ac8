#include "CYaia.h"

static _Thread_local int reentry_depth;

int cyaia_reentry_enter(int limit)
{
    if (reentry_depth >= limit)
        return 0;
    reentry_depth++;
    return 1;
}

void cyaia_reentry_leave(void)
{
    if (reentry_depth > 0)
        reentry_depth--;
}

int cyaia_reentry_depth(void)
{
    return reentry_depth;
}

static _Thread_local void *deferred;

int cyaia_reentry_leave_deferred(void)
{
    if (reentry_depth > 0)
        reentry_depth--;
    return reentry_depth == 0 && deferred != NULL;
}

void *cyaia_deferred_swap(void *next)
{
    void *previous = deferred;
    deferred = next;
    return previous;
}
