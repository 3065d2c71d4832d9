// The stream tests' part of analyze() (audit.cpp): each of StreamTally's
// counts (stream_tests.hpp) made into tests that join the audit's family.
#pragma once

#include "melange/audit.hpp"

namespace melange::internal {

void add_stream_tests(AuditReport& report, const StreamTally& stream, const AuditOptions& options);

}  // namespace melange::internal
