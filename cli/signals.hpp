// What a signal must undo before the process ends: temporary output files
// and the progress line. SIGINT, SIGTERM, SIGHUP and SIGPIPE remove every
// registered temporary file, clear a progress line that is showing, and end
// the process with status 128 + the signal number (130 for SIGINT, 143 for
// SIGTERM).
//
// A signal handler can only reach process-wide state, so this is the one
// place in the program that keeps some: a fixed table of paths, written
// before a temporary file exists and cleared after it is renamed away.
#pragma once

namespace melange::cli::signals {

// Installs the handlers; call once, first thing in main.
void install();

// Registers a temporary file to remove on a signal; returns its slot, or -1
// when the table is full (the file is then only removed by the normal path).
int watch_temp(const char* path);
void unwatch_temp(int slot);

// Whether a progress line is on the terminal now.
void progress_shown(bool shown);

// While deferred, SIGINT and SIGTERM only set a flag (and interrupt a
// blocked read), so that a command reading an endless stream, or one that
// keeps a checkpoint, can stop cleanly and report or save what it has;
// interrupted() gives the signal that came (0: none).
void defer_interrupt(bool defer);
int interrupted();

}  // namespace melange::cli::signals
