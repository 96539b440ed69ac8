/*
** gate.h -- a gate tests hold blocking calls at, instead of timing them:
** gate_wait blocks until gate_release lets it through, so a test knows a
** call is under way instead of hoping a pause is long enough. Included by
** the test library and the typed test plugin; each gets its own gate.
*/
#ifndef YAIA_TEST_GATE_H
#define YAIA_TEST_GATE_H

#include <pthread.h>
#include <stdint.h>

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_opened = PTHREAD_COND_INITIALIZER;
static int64_t gate_permits;

/* Waits for a permit, returns v. */
static int32_t gate_wait(int32_t v)
{
    pthread_mutex_lock(&gate_lock);
    while (gate_permits == 0)
        pthread_cond_wait(&gate_opened, &gate_lock);
    gate_permits--;
    pthread_mutex_unlock(&gate_lock);
    return v;
}

/* Lets n more calls through (n < 0 counts as 0); returns the permits not yet taken. */
static int64_t gate_release(int64_t n)
{
    pthread_mutex_lock(&gate_lock);
    if (n > 0)
        gate_permits += n;
    int64_t left = gate_permits;
    pthread_cond_broadcast(&gate_opened);
    pthread_mutex_unlock(&gate_lock);
    return left;
}

#endif
