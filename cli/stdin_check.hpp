// The false PASS of a pipe nobody reads: `cat log.txt | melange audit --n 4`
// would grade melange's own shuffle and say nothing of log.txt. A command
// that does not read standard input refuses to run when records wait there.
#pragma once

namespace melange::cli {

// Throws UsageError when standard input is a regular file with bytes left,
// or a pipe or socket that holds data now or within a moment (a producer
// starting up). An empty or closed standard input, a terminal or a device
// (/dev/null) passes.
void refuse_unread_stdin();

}  // namespace melange::cli
