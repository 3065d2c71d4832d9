#include "melange/bounded.hpp"

#include <string>

#include "melange/error.hpp"
#include "melange/internal/join_names.hpp"

namespace melange {

std::string_view method_name(Method m) {
  switch (m) {
    case Method::lemire: return "lemire";
    case Method::modulo: return "modulo";
    case Method::rejection: return "rejection";
    case Method::multiply: return "multiply";
    case Method::batched: return "batched";
  }
  return "?";
}

std::optional<Method> parse_method(std::string_view name) {
  for (Method m : kAllMethods)
    if (method_name(m) == name) return m;
  return std::nullopt;
}

std::string method_names(std::string_view sep) {
  return internal::join_names(kAllMethods, method_name, sep);
}

void validate_bounded(BoundedSpec spec, std::uint64_t max_range) {
  if (spec.bits < 1 || spec.bits > 32)
    throw UsageError(Param::bits, "{bits} must be between 1 and 32, got " + std::to_string(spec.bits));
  if (max_range < 1) throw UsageError(Param::range, "{range} must be at least 1");
  if (spec.method == Method::batched && spec.bits != 32)
    throw UsageError(Param::bits, "the batched method (the default) reads whole 32-bit words: leave {bits} at 32, or set "
                     "{method} to lemire, modulo, rejection or multiply for a narrower source");
  const std::uint64_t span = std::uint64_t{1} << spec.bits;
  if (max_range > span)
    throw UsageError(Param::bits, "range " + std::to_string(max_range) + " exceeds the " +
                     std::to_string(spec.bits) + "-bit source (at most " + std::to_string(span) +
                     "); raise {bits}");
}

DrawLaw draw_law(std::uint64_t s, BoundedSpec spec) {
  const std::uint64_t span = std::uint64_t{1} << spec.bits;
  switch (spec.method) {
    case Method::lemire:
    case Method::rejection: {
      const std::uint64_t t = internal::reject_threshold(s, spec.bits);
      return DrawLaw{s, spec, s, span, span - t};
    }
    case Method::modulo:
    case Method::multiply: return DrawLaw{s, spec, span, 1, 1};
    case Method::batched: {
      // Every digit exactly uniform; the words per draw depend on the batch
      // (the exact walk counts them per path), a batch of one is Lemire's.
      const std::uint64_t t = internal::reject_threshold(s, 32);
      return DrawLaw{s, spec, s, span, span - t};
    }
  }
  return DrawLaw{s, spec, s, 1, 1};
}

std::uint64_t DrawLaw::weight(std::uint64_t v) const {
  using u128 = unsigned __int128;
  const int b = spec.bits;
  switch (spec.method) {
    case Method::lemire:
    case Method::rejection:
    case Method::batched: return 1;
    case Method::modulo: {
      // Values below 2^b mod s have one more preimage than the rest.
      const std::uint64_t span = std::uint64_t{1} << b;
      return span / s + (v < span % s ? 1 : 0);
    }
    case Method::multiply: {
      // Words y with floor(y s / 2^b) = v fill [ceil(v 2^b / s), ceil((v+1) 2^b / s)).
      auto ceil_div = [&](u128 num) { return static_cast<std::uint64_t>((num + s - 1) / s); };
      return ceil_div(static_cast<u128>(v + 1) << b) - ceil_div(static_cast<u128>(v) << b);
    }
  }
  return 0;
}

}  // namespace melange
