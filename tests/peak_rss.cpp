// peak_rss OUT COMMAND [ARGS...]: runs COMMAND, writes the peak resident size
// of that process (KiB, from wait4) to the file OUT, and exits with its
// status. Linux starts a child's peak at its parent's resident size at fork
// (carried across exec): started from this small process, the peak is the
// command's own, whatever the size of the test that measures it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss OUT COMMAND [ARGS...]\n");
    return 2;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execvp(argv[2], argv + 2);
    ::_exit(127);
  }
  int status = 0;
  struct rusage ru {};
  if (pid < 0 || ::wait4(pid, &status, 0, &ru) < 0) return 126;
  if (FILE* out = std::fopen(argv[1], "w")) {
    std::fprintf(out, "%ld\n", ru.ru_maxrss);
    std::fclose(out);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
