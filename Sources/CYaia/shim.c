#define _GNU_SOURCE
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

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* openat from `dirfd` one component at a time, each with O_NOFOLLOW. */
static int open_walking(int dirfd, const char *path, int flags, unsigned mode)
{
    char *copy = strdup(path);
    if (copy == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int at = dirfd, fd = -1;
    char *rest = copy;
    for (;;) {
        while (*rest == '/')
            rest++;
        char *slash = strchr(rest, '/');
        if (slash != NULL)
            *slash = '\0';
        int last = slash == NULL || slash[1 + strspn(slash + 1, "/")] == '\0';
        if (strcmp(rest, "..") == 0) {
            errno = EXDEV;
            break;
        }
        if (last) {
            fd = openat(at, *rest == '\0' ? "." : rest, flags | O_NOFOLLOW, mode);
            break;
        }
        if (strcmp(rest, ".") != 0 && *rest != '\0') {
            int next = openat(at, rest, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) {
                /* O_PATH | O_NOFOLLOW takes a link as itself, then O_DIRECTORY refuses it. */
                struct stat info;
                int saved = errno;
                errno = saved == ENOTDIR && fstatat(at, rest, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode)
                    ? ELOOP : saved;
                break;
            }
            if (at != dirfd)
                close(at);
            at = next;
        }
        rest = slash + 1;
    }
    int saved = errno;
    if (at != dirfd)
        close(at);
    free(copy);
    errno = saved;
    return fd;
}

static int open_beneath(int dirfd, const char *path, int flags, unsigned mode, int kernel)
{
    if (kernel) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (unsigned long long)(unsigned)flags;
        how.mode = (flags & O_CREAT) == O_CREAT ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        /* Kernels before 5.6 lack it; some seccomp filters answer EPERM for it. */
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
    }
    return open_walking(dirfd, path, flags, mode);
}

int cyaia_open_beneath(const char *dir, const char *path, int flags, unsigned mode, int kernel)
{
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -1;
    int fd = open_beneath(dirfd, path, flags, mode, kernel);
    int saved = errno;
    close(dirfd);
    errno = saved;
    return fd;
}
