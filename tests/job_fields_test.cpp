// The job-field table drives every place a job is saved, compared, written
// or agreed on. Each row is varied alone and seen in each of them: a field
// added to the table (with a variation here, which the first test asks for)
// is checked everywhere without another line of test.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "melange/checkpoint.hpp"
#include "melange/error.hpp"
#include "melange/job_fields.hpp"
#include "melange/report/json.hpp"

namespace {

using melange::Algorithm;
using melange::Job;
using melange::JobField;
using melange::JsonForm;
using melange::report::Json;

// Two valid jobs that differ in one field alone.
struct Variation {
  Job a, b;
};

Job job_of(Algorithm algorithm, int n) {
  Job j;
  j.algorithm = algorithm;
  j.n = n;
  j.trials = 100;
  j.seed = 1;
  return j;
}

std::map<std::string, Variation> variations() {
  std::map<std::string, Variation> v;
  const Job base = job_of(Algorithm::fisher_yates, 5);
  const auto vary = [&](const std::string& key, Job a, auto change) {
    Job b = a;
    change(b);
    v[key] = {a, b};
  };
  vary("seed", base, [](Job& j) { j.seed = 0xfedcba9876543210u; });
  vary("algorithm", base, [](Job& j) { j.algorithm = Algorithm::sattolo; });
  vary("n", base, [](Job& j) { j.n = 6; });
  Job deal = job_of(Algorithm::partial, 6);
  deal.k = 3;
  vary("k", deal, [](Job& j) { j.k = 4; });
  Job weighted = job_of(Algorithm::weighted, 3);
  weighted.weights = {1, 2, 3};
  vary("weights", weighted, [](Job& j) { j.weights[2] = 3.5; });
  Job riffle = job_of(Algorithm::riffle, 5);
  riffle.riffles = 2;
  vary("riffles", riffle, [](Job& j) { j.riffles = 3; });
  Job shelf = job_of(Algorithm::shelf, 5);
  shelf.shelves = 3;
  shelf.passes = 1;
  vary("shelves", shelf, [](Job& j) { j.shelves = 4; });
  vary("passes", shelf, [](Job& j) { j.passes = 2; });
  Job lemire = base;
  lemire.spec.method = melange::Method::lemire;
  vary("method", lemire, [](Job& j) { j.spec.method = melange::Method::modulo; });
  vary("bits", lemire, [](Job& j) { j.spec.bits = 16; });
  vary("first", base, [](Job& j) { j.first = std::uint64_t{1} << 60; });
  vary("trials", base, [](Job& j) { j.trials = 200; });
  vary("tallies", base, [](Job& j) { j.tallies.set(melange::TallyKind::positions, true); });
  return v;
}

std::string checkpoint_text(const Job& job) {
  std::ostringstream out;
  melange::Tally done = melange::Tally::for_job(job);
  melange::write_checkpoint(out, job, done);
  return out.str();
}

Job checkpoint_round_trip(const Job& job) {
  std::istringstream in(checkpoint_text(job));
  return melange::read_checkpoint_job(in, "test").job;
}

TEST(JobFields, EveryRowHasAVariationHere) {
  const auto v = variations();
  std::set<std::string> keys;
  for (const JobField& f : melange::job_fields()) {
    keys.insert(std::string(f.key));
    EXPECT_TRUE(v.count(std::string(f.key))) << "add a variation of the new field '" << f.key << "' to this test";
  }
  EXPECT_EQ(keys.size(), melange::job_fields().size()) << "two rows share a key";
}

TEST(JobFields, EachFieldIsComparedSavedAndAgreedOn) {
  const auto v = variations();
  for (const JobField& f : melange::job_fields()) {
    const std::string key(f.key);
    if (!v.count(key)) continue;
    const Variation& var = v.at(key);
    // job_difference names the field, and nothing before it.
    const std::string difference = melange::job_difference(var.a, var.b);
    EXPECT_EQ(difference.rfind(key + " ", 0), 0u) << key << ": " << difference;
    EXPECT_EQ(melange::job_difference(var.a, var.a), "") << key;
    // The ranks' fingerprints differ.
    EXPECT_NE(melange::job_fingerprint(var.a), melange::job_fingerprint(var.b)) << key;
    // A checkpoint holds it: both jobs come back as they went.
    for (const Job* job : {&var.a, &var.b}) {
      EXPECT_EQ(melange::job_difference(*job, checkpoint_round_trip(*job)), "") << key;
      const bool line = !(f.optional_line && f.omitted(*job));
      EXPECT_EQ(checkpoint_text(*job).find("\n" + key + " ") != std::string::npos, line) << key;
    }
  }
}

// A value a row cannot read is refused in the row's words.
TEST(JobFields, AnUnknownTallyInACheckpointIsNamed) {
  std::string text = checkpoint_text(variations().at("seed").a);
  const std::string line = "\ntallies " + melange::tally_names(melange::TallySet{melange::TallyKind::ranks}) + "\n";
  const auto at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text.substr(0, 300);
  text.replace(at, line.size(), "\ntallies spades\n");
  std::istringstream in(text);
  try {
    melange::read_checkpoint_job(in, "test");
    ADD_FAILURE() << "an unknown tally was read";
  } catch (const melange::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("its 'tallies' line names a tally this melange does not know"),
              std::string::npos) << e.what();
  }
}

TEST(JobFields, EachJsonFieldIsWrittenAndReadBack) {
  const auto v = variations();
  for (const JobField* f : melange::json_job_fields()) {
    const std::string key(f->key);
    if (!v.count(key)) continue;
    for (const Job* job : {&v.at(key).a, &v.at(key).b}) {
      Json j;
      melange::report::add_job_fields(j, *job);
      EXPECT_EQ(j.contains(key), !(f->omitted && f->omitted(*job))) << key;
      const Job back = melange::report::read_job_fields(Json::parse(j.dump()), "test");  // as a file holds it
      EXPECT_EQ(f->text(back), f->text(*job)) << key;
    }
  }
}

// The JSON Schema's job part (docs/schema/common.schema.json) lists each
// JSON field of the table with its type, required where the table never
// leaves it out, and nothing else.
TEST(JobFields, TheSchemaDescribesTheJsonFields) {
  std::ifstream in(MELANGE_COMMON_SCHEMA);
  ASSERT_TRUE(in) << MELANGE_COMMON_SCHEMA;
  const Json schema = Json::parse(in);
  const Json& defs = schema.at("$defs");
  Json properties = defs.at("shuffle").at("properties");
  for (const auto& [key, value] : defs.at("job").at("properties").items()) properties[key] = value;
  std::set<std::string> required;
  for (const char* part : {"shuffle", "job"})
    for (const Json& key : defs.at(part).at("required")) required.insert(key.get<std::string>());
  std::set<std::string> rows;
  for (const JobField* f : melange::json_job_fields()) {
    const std::string key(f->key);
    rows.insert(key);
    ASSERT_TRUE(properties.contains(key)) << "the schema lacks the job field '" << key << "'";
    const Json& p = properties.at(key);
    switch (f->json) {
      case JsonForm::whole_u64: EXPECT_EQ(p.value("$ref", ""), "#/$defs/u64") << key; break;
      case JsonForm::whole_int: EXPECT_EQ(p.value("type", ""), "integer") << key; break;
      case JsonForm::name: EXPECT_TRUE(p.value("type", "") == "string" || p.contains("enum")) << key; break;
      case JsonForm::numbers: EXPECT_EQ(p.value("type", ""), "array") << key; break;
      case JsonForm::none: break;
    }
    EXPECT_EQ(required.count(key) == 1, f->omitted == nullptr) << key << ": required exactly where never left out";
  }
  for (const auto& [key, value] : properties.items())
    EXPECT_TRUE(rows.count(key)) << "the schema's job field '" << key << "' is no row of the table";
}

}  // namespace

// Every field of the shuffle, and the seed, shows in the one-line
// description (a row's phrase, or for bits its method's), and each field a
// caller gives has a parameter of its own, which front ends spell
// (job_field_for finds its row).
TEST(JobFields, TheShuffleIsDescribedAndEachGivenFieldHasItsParameter) {
  const auto v = variations();
  std::set<melange::Param> params;
  for (const JobField& f : melange::job_fields()) {
    const std::string key(f.key);
    if (f.shuffle || f.param == melange::Param::seed) {
      const Variation& var = v.at(key);
      EXPECT_NE(melange::job_description(var.a), melange::job_description(var.b)) << key;
    }
    if (f.shuffle) {
      EXPECT_NE(f.param, melange::Param::none) << key << ": a shuffle field a caller cannot give";
    }
    if (f.param == melange::Param::none) continue;
    EXPECT_TRUE(params.insert(f.param).second) << key << ": two rows given as one parameter";
    EXPECT_EQ(melange::job_field_for(f.param), &f) << key;
  }
  EXPECT_EQ(melange::job_description(v.at("shelves").a), "shelf, n 5, 3 shelves, 1 pass, batched/32-bit, seed 1");
  EXPECT_EQ(melange::job_description(v.at("weights").a), "weighted, n 3, weights 1,2,3, seed 1");
  EXPECT_EQ(melange::job_description(v.at("k").a), "partial, n 6, k 3, batched/32-bit, seed 1");
}
