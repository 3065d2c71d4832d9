// The fields of a Job, described once. Each row says how the field is
// written as text and read back, how a JSON document holds it, and what MPI
// ranks compare of it; the checkpoint header, job_difference, the JSON job
// fields, the merge's first pass and the ranks' fingerprint all walk
// job_fields(), so a field added here is saved, compared, written and agreed
// on everywhere at once (tests/job_fields_test.cpp checks each use per row).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "melange/error.hpp"
#include "melange/job.hpp"

namespace melange {

// How a JSON document holds a field.
enum class JsonForm {
  whole_u64,  // a 64-bit whole number: a number, or a decimal string past 2^53
  whole_int,  // a number that fits an int
  name,       // the field's text, as a string
  numbers,    // a list of numbers (the weights)
  none,       // not a job field of the JSON documents (they list the tallies by kind)
};

// What the ranks of one MPI job compare: a name and a 64-bit value each.
using JobFingerprint = std::vector<std::pair<std::string, std::uint64_t>>;

struct JobField {
  std::string_view key;  // the checkpoint line's key, the JSON key, the name in messages
  // The value as text, exactly (hex floats for weights); the checkpoint
  // writes it and job_difference compares it.
  std::string (*text)(const Job&);
  // Reads text written by `text` into the job; false where it is not one.
  bool (*read)(std::string_view text, Job&);
  // What a reader says of a value `read` refuses (after "its 'key' line").
  std::string_view unreadable = "cannot be read";
  // A whole-number field's value and its largest (JSON and fingerprint);
  // nullptr for the others.
  std::uint64_t (*whole)(const Job&) = nullptr;
  void (*set_whole)(Job&, std::uint64_t) = nullptr;
  std::uint64_t max = 0;
  JsonForm json = JsonForm::name;
  // Its place among a JSON document's job fields (the order documents have
  // had since their first format); 0 for JsonForm::none.
  int json_order = 0;
  // Where it says nothing, a JSON document leaves it out; nullptr: always
  // written.
  bool (*omitted)(const Job&) = nullptr;
  // A field added after checkpoint format 2 began: its line is written only
  // where it is not omitted, so that a job without it writes the file an
  // older melange reads, and a file without the line reads as 0.
  bool optional_line = false;
  // Adds what ranks compare; nullptr: the whole value, or a hash of the text.
  void (*fingerprint)(const Job&, JobFingerprint&) = nullptr;
  // The parameter a caller gives it as (each front end spells it: the
  // CLI's flag_for, Python's keyword); Param::none where no caller does.
  Param param = Param::none;
  // Part of the shuffle itself (what is shuffled, and how), not of which
  // trials run: a keyword of every front end that takes a shuffle
  // (Python's **shuffle keywords), and a phrase of describe().
  bool shuffle = false;
  // A named field's names, for a message about one it does not know.
  std::string (*choices)() = nullptr;
  // Its phrase in job_description() ("n 52", "7 riffles"), at its
  // describe_order; an empty phrase adds nothing (a field that says nothing
  // of this job). nullptr: never described.
  std::string (*phrase)(const Job&) = nullptr;
  int describe_order = 0;
};

// In checkpoint header order (the order format 2 has always had).
std::span<const JobField> job_fields();

// The rows in JSON document order, JsonForm::none left out (sorted once).
std::span<const JobField* const> json_job_fields();

// The row a caller gives as `param`; nullptr where none is.
const JobField* job_field_for(Param param);

// The first field in which `ours` and `theirs` differ, as "seed 5 here, 7
// in the checkpoint"; empty when every field agrees.
std::string job_field_difference(const Job& ours, const Job& theirs, const std::string& ours_name,
                                 const std::string& theirs_name);

// The job in one line, its rows' phrases in describe order:
// "riffle, n 52, 7 riffles, batched/32-bit, seed 1".
std::string job_description(const Job& job);

// Every field's part of what the ranks of one job must agree on.
JobFingerprint job_fingerprint(const Job& job);

}  // namespace melange
