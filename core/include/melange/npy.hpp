// NumPy's .npy header (format 1.0 to 3.0) of a C-ordered 2-D array of
// integers: the one writer (`melange sample --format npy`) and the one
// reader (records read from a .npy file), so that what melange writes it
// reads back.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace melange {

// The item types melange reads and writes, as NumPy spells them.
struct NpyDtype {
  std::string_view descr;  // "|u1", "<u2", "<i4", "<i8"
  int bytes;
  bool is_signed;
};
inline constexpr std::array<NpyDtype, 4> kNpyDtypes{{
    {"|u1", 1, false},
    {"<u2", 2, false},
    {"<i4", 4, true},
    {"<i8", 8, true},
}};

struct NpyArray {
  NpyDtype dtype = kNpyDtypes[0];
  std::uint64_t rows = 0, cols = 0;
};

// The header of `a`, format 1.0: magic, version, header length, the dict,
// padded with spaces to a multiple of 64 bytes and ended by a newline.
std::string npy_header(const NpyArray& a);

// The array a header describes, read through `read(buffer, size)` (which
// returns the bytes it read, fewer only at the end of the input). Throws
// UsageError saying what is wrong: no magic string, a version other than 1
// to 3, a header cut short, a dtype other than kNpyDtypes' (or "<u1", "u1"),
// Fortran order, a shape that is not two whole numbers.
NpyArray read_npy_header(const std::function<std::size_t(char*, std::size_t)>& read);

}  // namespace melange
