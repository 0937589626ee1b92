#define _GNU_SOURCE
#include "CTestSupport.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

int taskpress_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int taskpress_open_pty(int *master, int *slave) {
  int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (m < 0) return -1;
  char name[128];
  if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, sizeof name) != 0) {
    close(m);
    return -1;
  }
  int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (s < 0) {
    close(m);
    return -1;
  }
  struct termios settings;
  if (tcgetattr(s, &settings) == 0) {
    cfmakeraw(&settings);  // no "\r" added before "\n"
    tcsetattr(s, TCSANOW, &settings);
  }
  *master = m;
  *slave = s;
  return 0;
}

int taskpress_spawn_addchdir(void *actions, const char *path) {
  return posix_spawn_file_actions_addchdir_np((posix_spawn_file_actions_t *)actions, path);
}
