#include "stdin_check.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "melange/error.hpp"

namespace melange::cli {

void refuse_piped_stdin() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return;  // closed
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
    throw UsageError("standard input is a pipe, and audit without a file audits melange's own shuffle: to audit the "
                     "records piped in, use 'melange audit -' (n is read from the records; --n and --k for deals); "
                     "to run the built-in job, give --algo or --trials");
}

}  // namespace melange::cli
