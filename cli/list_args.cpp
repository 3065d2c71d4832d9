#include "list_args.hpp"

#include <fstream>
#include <system_error>
#include <filesystem>

#include "melange/error.hpp"

namespace melange::cli {

std::string read_list_file(const std::string& path, const std::string& flag, std::uint64_t max_bytes) {
  std::error_code ec;
  const std::uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError("cannot read " + flag + " file '" + path + "': " + ec.message());
  if (bytes > max_bytes)
    throw UsageError(flag + " file '" + path + "' is " + std::to_string(bytes) + " bytes, more than the " +
                     std::to_string(max_bytes) + " a list of every item it may name can take: give the list itself");
  std::ifstream in(path, std::ios::binary);
  std::string text(bytes, '\0');
  if (!in || !in.read(text.data(), static_cast<std::streamsize>(bytes)))
    throw UsageError("cannot read " + flag + " file '" + path + "'");
  return text;
}

std::vector<std::string> split_list(const std::string& text, const std::string& flag, std::size_t max_entries,
                                    bool empty_entries_refused) {
  std::vector<std::string> out;
  std::string entry;
  const auto end_entry = [&] {
    if (entry.empty()) return;
    if (out.size() == max_entries)
      throw UsageError(flag + " has more than " + std::to_string(max_entries) + " entries, more items than melange takes");
    out.push_back(std::move(entry));
    entry.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (c == ',' && entry.empty() && empty_entries_refused)
        throw UsageError(flag + " has an empty item in '" + text + "': write the entries between single commas");
      end_entry();
    } else {
      entry += c;
    }
  }
  end_entry();
  return out;
}

}  // namespace melange::cli
