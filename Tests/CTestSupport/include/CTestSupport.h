// GNU and X/Open calls the tests need that Swift's Glibc module does not import (it is built
// without _GNU_SOURCE): close-on-exec pipes, pseudo-terminals, a child's working folder.
#ifndef TASKPRESS_C_TEST_SUPPORT_H
#define TASKPRESS_C_TEST_SUPPORT_H

/// `pipe2(fds, O_CLOEXEC)`: a pipe no other child inherits. 0, or -1 with errno.
int taskpress_pipe_cloexec(int fds[2]);

/// A pseudo-terminal in raw mode, both ends close-on-exec. 0, or -1 with errno.
int taskpress_open_pty(int *master, int *slave);

/// `posix_spawn_file_actions_addchdir_np` on a `posix_spawn_file_actions_t *`.
int taskpress_spawn_addchdir(void *actions, const char *path);

#endif
