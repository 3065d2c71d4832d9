// Lists a flag takes inline or from a file (--labels, --weights): entries
// between commas and white space, bounded before they are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace melange::cli {

// The bytes of a list file, refused before anything is read when the file
// is larger than `max_bytes` (a list of every item the flag may name is far
// smaller: a larger file is not such a list).
std::string read_list_file(const std::string& path, const std::string& flag, std::uint64_t max_bytes);

// The entries of `text` between commas, spaces, tabs and line ends, at most
// `max_entries`: one more is refused at once, before the rest is split. With
// `empty_entries_refused`, two commas with nothing between are an error.
std::vector<std::string> split_list(const std::string& text, const std::string& flag, std::size_t max_entries,
                                    bool empty_entries_refused);

}  // namespace melange::cli
