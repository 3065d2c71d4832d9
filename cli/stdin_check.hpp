// The false PASS of a pipe nobody reads: `cat log.txt | melange audit --n 4`
// would grade melange's own shuffle and say nothing of log.txt. The one
// command line that can mean those records, `audit` with neither an input
// nor a built-in job of its own (--algo, --trials), refuses a standard
// input that is a pipe, socket or FIFO, whether or not data came yet: a
// rule of the command line, not of timing. Every other command ignores
// standard input, as Unix tools do, so that `while read -r job; do melange
// audit $job; done < jobs.txt` runs.
#pragma once

namespace melange::cli {

// Throws UsageError, naming `audit -`, when standard input is a pipe, a
// socket or a FIFO. A terminal, a device (/dev/null), a regular file and a
// closed standard input pass.
void refuse_piped_stdin();

}  // namespace melange::cli
