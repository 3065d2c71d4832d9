// An audit of records in memory, planned and counted as `audit_records`
// (Python) and `audit --input` plan and count theirs: for tests that judge
// a stream of records.
#pragma once

#include <cstdint>
#include <vector>

#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"

namespace melange::testing {

// Records of k items of n (k = n: whole permutations), back to back; the
// position matrix beside the ranks above n = 8; the stream tests on.
inline AuditReport audit_record_array(const std::vector<std::uint16_t>& items, int n, int k,
                                      const RecordLooks& looks = {},
                                      std::size_t block_bytes = std::size_t{1} << 20) {
  AuditRequest request;
  request.job.n = n;
  request.job.k = k < n ? k : 0;
  request.records = true;
  request.position = n > 8;
  const AuditPlan plan = plan_audit(request);
  RecordAuditor auditor(plan.job, AuditOptions{}, looks, plan.stream);
  RecordOptions o;
  o.n = n;
  o.k = k < n ? k : 0;
  o.block_bytes = block_bytes;
  auditor.read(RecordArray{items.data(), items.size() / static_cast<std::size_t>(k), k, 2, false}, o);
  AuditOptions whole;
  const auto stream = auditor.stream();
  whole.stream = stream.get();
  return analyze(auditor.job(), auditor.result().tally, whole);
}

}  // namespace melange::testing
