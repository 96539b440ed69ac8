/*
** marker.c -- a shared object whose constructor creates the file named by
** YAIA_TEST_MARKER. It lies outside the granted folders of test_grants.c:
** if that file ever exists, a request loaded it.
*/
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "yaia_plugin.h"

__attribute__((constructor)) static void mark(void)
{
    const char *path = getenv("YAIA_TEST_MARKER");
    if (path && *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
    }
}

YAIA_PLUGIN_EXPORT int yaia_marker(void);

YAIA_PLUGIN_EXPORT int yaia_marker(void)
{
    return 1;
}
