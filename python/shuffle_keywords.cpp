// A shuffle given as keywords: the job-field rows that are the shuffle's
// (JobField::shuffle), each read as its row says. A field added to the
// table is a keyword here with no change to this file.
#include "module_support.hpp"

#include "melange/job_fields.hpp"

namespace melange::python_module {
namespace {

// The keyword a row is given as.
const JobField* shuffle_row(const std::string& keyword) {
  for (const JobField& f : job_fields())
    if (f.shuffle && keyword_of(f.param) == keyword) return &f;
  return nullptr;
}

// A value as its row's text: the weights as exact hex floats, names as they are.
std::string row_text(const JobField& f, const std::string& keyword, const py::handle& value) {
  if (f.json == JsonForm::numbers) {
    std::string text;
    for (const py::handle& x : py::iter(value)) {
      if (!text.empty()) text += ' ';
      text += py::float_(py::reinterpret_borrow<py::object>(x)).attr("hex")().template cast<std::string>();
    }
    return text.empty() ? "none" : text;
  }
  if (!py::isinstance<py::str>(value))
    throw py::type_error(keyword + " must be a str, not " + std::string(py::str(py::type::of(value).attr("__name__"))));
  return value.cast<std::string>();
}

}  // namespace

std::string keyword_of(Param p, const char* trials_keyword) {
  if (p == Param::trials) return trials_keyword;
  if (p == Param::position_matrix) return "position";
  if (p == Param::hand_histogram) return "hands";
  if (p == Param::algorithm) return "algo";
  return std::string(param_name(p));
}

Job shuffle_of(const py::kwargs& given, const char* function, Job job) {
  bool passes_given = false, n_given = false;
  for (const auto& [key_object, value] : given) {
    const std::string keyword = py::str(key_object);
    const JobField* f = shuffle_row(keyword);
    if (!f) throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" + keyword + "'");
    if (value.is_none()) continue;  // None: not given
    passes_given |= f->param == Param::passes;
    n_given |= f->param == Param::n;
    if (f->whole) {
      // Whole numbers to any int; the library's checks say what each allows.
      f->set_whole(job, whole_of(py::reinterpret_borrow<py::object>(value), keyword.c_str(), 0,
                                 std::numeric_limits<int>::max()));
      continue;
    }
    const std::string text = row_text(*f, keyword, value);
    if (!f->read(text, job))
      throw UsageError(f->param, "unknown {" + std::string(param_name(f->param)) + "} '" + token_safe(text) + "'" +
                                     (f->choices ? ": use " + f->choices() : std::string()));
  }
  if (!job.weights.empty() && !n_given) job.n = static_cast<int>(job.weights.size());
  if (!passes_given) job.passes = default_passes(job.algorithm);
  return job;
}

void add_shuffle_keywords(py::module_& m) {
  py::list keywords;
  for (const JobField& f : job_fields())
    if (f.shuffle) keywords.append(keyword_of(f.param));
  m.attr("SHUFFLE_KEYWORDS") = py::tuple(keywords);
}

}  // namespace melange::python_module
