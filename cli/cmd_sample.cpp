// `melange sample`: the permutations themselves, for Monte Carlo code,
// streamed a piece at a time (memory does not grow with --count) as text,
// raw u8 or u16 records, or a NumPy .npy array (contract §5).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "melange/error.hpp"
#include "melange/npy.hpp"
#include "melange/records.hpp"
#include "melange/serve.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"

namespace melange::cli {
namespace {

static_assert(std::endian::native == std::endian::little, "u16 and .npy records are written little-endian as they lie");

// Items asked of the library at a time: memory stays at this many whatever
// --count is.
constexpr std::uint64_t kPieceItems = std::uint64_t{1} << 20;

struct SampleArgs {
  JobArgs job;
  std::string format = "text";
  std::string output;  // empty: standard output, unless --json - has it
};

// Decimal text of each item 0..n-1, made once, so that a row is a run of
// short copies rather than number formatting.
class ItemText {
 public:
  explicit ItemText(int n) {
    for (int v = 0; v < n; ++v) {
      const std::string t = std::to_string(v);
      offset_.push_back(static_cast<std::uint32_t>(chars_.size()));
      chars_ += t;
    }
    offset_.push_back(static_cast<std::uint32_t>(chars_.size()));
  }
  // Appends the rows of `items` (`width` a row) to `out`, space-separated.
  template <class Item>
  void rows(const Item* items, std::uint64_t records, int width, std::string& out) const {
    std::size_t size = out.size();
    out.resize(size + records * static_cast<std::uint64_t>(width) * (max_chars() + 1));
    char* to = out.data() + size;
    for (std::uint64_t r = 0; r < records; ++r)
      for (int i = 0; i < width; ++i) {
        const std::uint32_t v = *items++;
        const std::uint32_t begin = offset_[v], length = offset_[v + 1] - begin;
        for (std::uint32_t c = 0; c < length; ++c) to[c] = chars_[begin + c];
        to += length;
        *to++ = i + 1 < width ? ' ' : '\n';
      }
    out.resize(static_cast<std::size_t>(to - out.data()));
  }

 private:
  std::size_t max_chars() const { return std::to_string(offset_.size() - 2).size(); }
  std::string chars_;
  std::vector<std::uint32_t> offset_;
};

// A pipe holds 64 KiB by default: the writer and its reader would take turns
// every 64 KiB, hundreds of thousands of switches for a large sample. Ask for
// 1 MiB (Linux's limit for an unprivileged process); where it is refused the
// pipe stays as it was.
void widen_pipe(int fd) {
#ifdef F_SETPIPE_SZ
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
  (void)fd;
#endif
}

// The rows as JSON arrays, one item a line, as dump(2) writes them.
template <class Item>
void json_rows(const Item* items, std::uint64_t records, int width, const std::string& indent, bool last_piece,
               std::string& out) {
  for (std::uint64_t r = 0; r < records; ++r) {
    out += indent + "[\n";
    for (int i = 0; i < width; ++i) {
      out += indent + "  " + std::to_string(*items++);
      out += i + 1 < width ? ",\n" : "\n";
    }
    out += indent + "]";
    if (!(last_piece && r + 1 == records)) out += ",\n";
  }
}

// --json lists every record inside one document, about 10 bytes an item:
// past this many items it would be gigabytes, and the binary formats are
// the way to hand them on.
constexpr std::uint64_t kMaxJsonItems = std::uint64_t{1} << 24;

template <class Item>
int run_sample_as(const SampleArgs& a, const Job& job, RecordFormat format, const RunOptions& options) {
  const int width = record_items(job);
  Outputs outputs;
  outputs.declare("--json", a.job.json);
  if (!a.job.json.empty() && job.trials > kMaxJsonItems / static_cast<std::uint64_t>(width))
    throw UsageError("--json lists the records in the document, up to " + grouped(kMaxJsonItems) + " items (" +
                     grouped(kMaxJsonItems / static_cast<std::uint64_t>(width)) + " records of " +
                     std::to_string(width) + "), and --count asks for " + grouped(job.trials) +
                     ": write them with --format u8, u16 or npy and --output, without --json");
  const std::string records_to = !a.output.empty() ? a.output : a.job.json == "-" ? "" : "-";
  outputs.declare("--output", records_to);
  if (records_to == "-" && format != RecordFormat::text && ::isatty(STDOUT_FILENO) == 1)
    throw UsageError("--format " + std::string(record_format_name(format)) +
                     " writes binary records: give --output FILE or pipe standard output to a program");
  // The backend, known before any record is made.
  const ServeInfo info = fill_records(
      [&] {
        Job none = job;
        none.trials = 0;
        return none;
      }(),
      std::span<Item>(), options);
  const std::uint64_t piece = std::max<std::uint64_t>(1, kPieceItems / static_cast<std::uint64_t>(width));
  const std::uint64_t last = job.first + (job.trials - 1);

  if (!a.job.json.empty()) {
    Json j = json_header("sample");
    add_job_fields(j, job);
    j["count"] = json_u64(job.trials);
    j["backend"] = info.backend;
    if (!info.arch.empty()) j["simd_arch"] = info.arch;
    if (!info.note.empty()) j["backend_note"] = info.note;
    const char* rows = is_deal(job) ? "deals" : "permutations";
    j[rows] = nullptr;  // streamed below
    write_json(outputs.open(a.job.json), j, rows, [&](std::ostream& to, const std::string& indent) {
      std::string out;
      for_each_piece(
          job, piece,
          RecordPieces<Item>([&](std::span<const Item> items, std::uint64_t first, std::uint64_t records) {
            json_rows(items.data(), records, width, indent, first + (records - 1) == last, out);
            to << out;
            out.clear();
            return static_cast<bool>(to);  // a failed write stops the run
          }),
          options);
    });
  }
  if (!records_to.empty()) {
    if (records_to == "-") widen_pipe(STDOUT_FILENO);
    std::ostream& to = outputs.open(records_to);
    const ItemText text(job.n);
    std::string out;
    if (format == RecordFormat::text)
      out = "# melange sample: " + describe(job) + ", trials " + std::to_string(job.first) + ".." +
            std::to_string(last) + ", backend " + backend_text(info.backend, info.arch) +
            (info.note.empty() ? "" : " (" + info.note + ")") + "\n";
    if (format == RecordFormat::npy)
      out = npy_header(NpyArray{kNpyDtypes[sizeof(Item) == 1 ? 0 : 1], job.trials, static_cast<std::uint64_t>(width)});
    to.write(out.data(), static_cast<std::streamsize>(out.size()));
    for_each_piece(
        job, piece,
        RecordPieces<Item>([&](std::span<const Item> items, std::uint64_t, std::uint64_t records) {
          if (format == RecordFormat::text) {
            out.clear();
            text.rows(items.data(), records, width, out);
            to.write(out.data(), static_cast<std::streamsize>(out.size()));
          } else {
            to.write(reinterpret_cast<const char*>(items.data()), static_cast<std::streamsize>(items.size_bytes()));
          }
          return static_cast<bool>(to);
        }),
        options);
  }
  outputs.commit();
  return 0;
}

int run_sample(const SampleArgs& a) {
  Job job = make_job(a.job, "--count");
  if (job.trials == 0) throw UsageError("--count must be at least 1");
  if (job.trials - 1 > ~std::uint64_t{0} - job.first)
    throw UsageError("--first + --count - 1 is past the last trial index, 2^64 - 1");
  validate_draws(job);
  const auto format = parse_record_format(a.format);
  if (!format) throw UsageError("unknown --format '" + a.format + "': use " + record_format_names(", "));
  if (*format == RecordFormat::u8 && !items_fit_u8(job))
    throw UsageError("--format u8 holds items up to 255, and --n is " + std::to_string(job.n) + ": use u16 or npy");
  RunOptions options;
  options.threads = thread_count(a.job);
  options.backend = backend_arg(a.job);
  // Text, JSON and npy of small n travel as bytes; u16 is asked for, or needed.
  const bool bytes = *format == RecordFormat::u8 || (*format != RecordFormat::u16 && items_fit_u8(job));
  return bytes ? run_sample_as<std::uint8_t>(a, job, *format, options)
               : run_sample_as<std::uint16_t>(a, job, *format, options);
}

}  // namespace

void add_sample_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<SampleArgs>();
  a->job.trials = "10";
  auto* cmd = app.add_subcommand(
      "sample", "Write permutations of trials F..F+C-1, a row each (the item at each position; "
                "partial: the k dealt items in slot order), streamed in pieces");
  add_job_options(cmd, a->job, JobOptionSet{.trials = false});
  cmd->add_option("--count", a->job.trials, "permutations to write (1e6 notation works; no limit: they stream)")
      ->capture_default_str();
  cmd->add_option("--format", a->format,
                  "text (a row a line, after a # header) | u8 (a byte an item, n <= 256) | u16 (little-endian) | "
                  "npy (a NumPy array of shape (count, items): uint8 when n <= 256, else uint16)")
      ->capture_default_str();
  cmd->add_option("--output", a->output,
                  "write the records to FILE ('-': standard output, the default)");
  cmd->add_option("--json", a->job.json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->callback([a, &action] { action = [a] { return run_sample(*a); }; });
}

}  // namespace melange::cli
