#include "melange/npy.hpp"

#include <charconv>
#include <cstring>
#include <vector>

#include "melange/error.hpp"

namespace melange {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;
// A header longer than this is no array melange wrote or reads.
constexpr std::uint32_t kMaxHeaderBytes = 1u << 20;

UsageError fault(const std::string& what) {
  return UsageError("not a readable .npy file: " + what + " (write it with numpy.save of a 2-D array)");
}

// Where the value of 'key' starts in the dict.
std::size_t value_of(const std::string& dict, const std::string& key) {
  const std::size_t k = dict.find("'" + key + "'");
  if (k == std::string::npos) throw fault("no '" + key + "' in the header");
  std::size_t v = dict.find(':', k);
  if (v == std::string::npos) throw fault("no value for '" + key + "'");
  ++v;
  while (v < dict.size() && dict[v] == ' ') ++v;
  return v;
}

NpyDtype dtype_of(const std::string& dict) {
  const std::size_t d = value_of(dict, "descr");
  if (d >= dict.size() || dict[d] != '\'') throw fault("a 'descr' that is not a simple dtype");
  const std::size_t end = dict.find('\'', d + 1);
  if (end == std::string::npos) throw fault("an unclosed 'descr'");
  std::string descr = dict.substr(d + 1, end - d - 1);
  if (descr == "<u1" || descr == "u1") descr = "|u1";  // a byte has no order
  for (const NpyDtype& t : kNpyDtypes)
    if (t.descr == descr) return t;
  throw fault("dtype '" + descr + "'; use uint8, little-endian uint16, int32 or int64");
}

std::vector<std::uint64_t> shape_of(const std::string& dict) {
  const std::size_t s = value_of(dict, "shape");
  if (s >= dict.size() || dict[s] != '(') throw fault("a shape that is not a tuple");
  const std::size_t end = dict.find(')', s);
  if (end == std::string::npos) throw fault("an unclosed 'shape'");
  std::vector<std::uint64_t> dims;
  for (std::size_t i = s + 1; i < end;) {
    if (dict[i] == ' ' || dict[i] == ',') {
      ++i;
      continue;
    }
    std::uint64_t dim = 0;
    const auto [stop, ec] = std::from_chars(dict.data() + i, dict.data() + end, dim);
    if (ec != std::errc()) throw fault("a shape that is not whole numbers");
    dims.push_back(dim);
    i = static_cast<std::size_t>(stop - dict.data());
  }
  return dims;
}

}  // namespace

std::string npy_header(const NpyArray& a) {
  std::string dict = "{'descr': '";
  dict += a.dtype.descr;
  dict += "', 'fortran_order': False, 'shape': (" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + "), }";
  while ((kMagicBytes + 4 + dict.size() + 1) % 64) dict.push_back(' ');
  dict.push_back('\n');
  std::string out(kMagic, kMagicBytes);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  return out + dict;
}

NpyArray read_npy_header(const std::function<std::size_t(char*, std::size_t)>& read) {
  unsigned char head[8];
  if (read(reinterpret_cast<char*>(head), 8) != 8 || std::memcmp(head, kMagic, kMagicBytes) != 0)
    throw fault("no NumPy magic string");
  const int major = head[6];
  if (major < 1 || major > 3) throw fault("format version " + std::to_string(major));
  // Version 1 gives the dict's length in 2 bytes, later ones in 4.
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (read(reinterpret_cast<char*>(head), length_bytes) != length_bytes) throw fault("the header is cut short");
  std::uint32_t length = 0;
  for (std::size_t i = length_bytes; i-- > 0;) length = length << 8 | head[i];
  if (length > kMaxHeaderBytes) throw fault("a header of " + std::to_string(length) + " bytes");
  std::string dict(length, '\0');
  if (read(dict.data(), length) != length) throw fault("the header is cut short");

  NpyArray a;
  a.dtype = dtype_of(dict);
  const std::size_t f = value_of(dict, "fortran_order");
  if (f >= dict.size() || dict.compare(f, 5, "False") != 0) throw fault("Fortran order; save a C-ordered array");
  const std::vector<std::uint64_t> dims = shape_of(dict);
  if (dims.size() != 2) throw fault("a " + std::to_string(dims.size()) + "-D array; save records x items");
  a.rows = dims[0];
  a.cols = dims[1];
  return a;
}

}  // namespace melange
