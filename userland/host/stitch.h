/*
 * Host stand-in for the SDK's <stitch.h>, used only when the workloads are
 * compiled natively (mk/userland.mk) to compute their expected checksums.
 * spawn() maps the initrd path "/bin/x" to "$STITCH_HOST_ROOT/bin/x" and
 * runs it with posix_spawn, which, like Stitch's spawn, passes every open
 * descriptor on to the child.
 */
#ifndef STITCH_HOST_H
#define STITCH_HOST_H

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>

extern char **environ;

static inline int spawn(const char *path, char *const argv[])
{
	const char *root = getenv("STITCH_HOST_ROOT");
	char host_path[PATH_MAX];
	pid_t pid;
	int err;

	snprintf(host_path, sizeof(host_path), "%s%s", root ? root : ".", path);
	err = posix_spawn(&pid, host_path, NULL, NULL, argv, environ);
	if (err) {
		errno = err;
		return -1;
	}
	return pid;
}

static inline int yield(void)
{
	return sched_yield();
}

#endif
