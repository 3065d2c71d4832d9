// melange.predict: who could predict the next deal, as `melange predict`.
#include "module_support.hpp"

#include "melange/predict/search.hpp"

namespace melange::python_module {
namespace {

// Records as lists of cards: None or -1 for a card not seen.
predict::Observed observed_of(const py::object& records, const py::object& n) {
  predict::Observed o;
  for (const py::handle& row : py::iter(records)) {
    std::vector<int> record;
    for (const py::handle& card : py::iter(row))
      record.push_back(card.is_none() || py::int_(py::reinterpret_borrow<py::object>(card)).cast<long long>() == -1
                           ? predict::kUnseen
                           : static_cast<int>(whole_of(py::reinterpret_borrow<py::object>(card), "a card", 0, 65535)));
    o.records.push_back(std::move(record));
  }
  if (o.records.empty()) throw UsageError("records: give at least one deal");
  o.n = n.is_none() ? predict::deck_size_of(o.records[0]) : int_of(n, "n");
  predict::validate_observed(o);
  return o;
}

py::dict result_dict(const std::vector<predict::FamilyResult>& results, const predict::Observed& o) {
  py::list families;
  for (const predict::FamilyResult& r : results) {
    py::list matches;
    for (const predict::Match& m : r.matches) {
      py::list next;
      for (const auto& deck : m.next) next.append(py::cast(std::vector<int>(deck.begin(), deck.end())));
      py::list dealt;
      for (const predict::Dealt& x : m.dealt) dealt.append(py::make_tuple(x.seed, x.reseeded));
      py::dict d;
      d["seed"] = m.seed;
      py::list explained;
      for (int r = 1; r <= m.explained(); ++r) explained.append(r);
      d["records"] = explained;
      d["explained"] = m.explained();
      d["dealt"] = dealt;
      d["pattern"] = m.pattern;
      d["chance"] = m.chance;
      d["telling"] = predict::telling(m, o);
      d["next_seed"] = m.next_seed ? py::object(py::int_(*m.next_seed)) : py::object(py::none());
      d["next"] = next;
      matches.append(d);
    }
    py::dict f;
    f["family"] = std::string(r.family->name);
    f["seeds"] = py::make_tuple(r.range.first, r.range.last);
    f["complete"] = r.complete;
    f["chance_matches"] = r.chance_matches;
    f["chance_matches_all"] = r.chance_matches_all;
    f["matches"] = matches;
    families.append(f);
  }
  const predict::Verdict v = predict::verdict_of(results, o);
  py::dict out;
  out["verdict"] = v.verdict;
  out["why"] = v.why;
  out["n"] = o.n;
  out["families"] = families;
  return out;
}

py::dict predict_records(const py::object& records, const py::object& families_arg, const py::object& seeds,
                         const py::object& n, const py::object& next, const py::object& threads,
                         const py::object& reseed_window, const std::string& backend) {
  const predict::Observed observed = observed_of(records, n);
  std::vector<std::string> names;
  if (!families_arg.is_none())
    for (const py::handle& name : py::iter(families_arg)) names.push_back(name.cast<std::string>());
  const std::vector<const predict::FamilyRow*> families = predict::families_named(names);
  predict::SearchOptions options;
  options.next_deals = int_of(next, "next");
  if (options.next_deals < 0 || options.next_deals > 1000) throw UsageError("next takes 0 to 1000 deals");
  options.threads = options_of(optional_int_of(threads, "threads"), "auto").threads;
  options.reseed_window = u64_of(reseed_window, "reseed_window");
  if (backend != "auto" && backend != "simd" && backend != "scalar")
    throw UsageError("backend takes 'auto' or 'simd' (seeds in vector lanes where a family has them) or 'scalar', got '" +
                     token_safe(backend) + "'");
  options.one_by_one = backend == "scalar";
  std::vector<predict::FamilyResult> results;
  for (const predict::FamilyRow* f : families) {
    predict::SeedRange range{0, f->seed_space - 1};
    if (!seeds.is_none()) {
      const auto pair = seeds.cast<std::pair<py::object, py::object>>();
      range = {u64_of(pair.first, "seeds"), u64_of(pair.second, "seeds")};
      if (range.last < range.first) throw UsageError("seeds=(lo, hi) needs lo <= hi");
    }
    results.push_back(interruptible([&](const std::function<bool()>& stop) {
      predict::SearchOptions stoppable = options;
      stoppable.stop = stop;
      return predict::search_family(*f, observed, range, stoppable);
    }));
  }
  return result_dict(results, observed);
}

}  // namespace

void add_predict(py::module_& m) {
  m.def(
      "predict",
      [](const py::object& records, const py::object& families, const py::object& seeds, const py::object& n,
         const py::object& next, const py::object& threads, const py::object& reseed_window,
         const std::string& backend) {
        return guarded("trials", [&] {
          return predict_records(records, families, seeds, n, next, threads, reseed_window, backend);
        });
      },
      py::arg("records"), py::kw_only(), py::arg("families") = py::none(), py::arg("seeds") = py::none(),
      py::arg("n") = py::none(), py::arg("next") = 1, py::arg("threads") = py::none(),
      py::arg("reseed_window") = 1 << 20, py::arg("backend") = "auto", python_docs::kPredict);
  py::list names;
  for (const predict::FamilyRow& f : predict::families()) names.append(std::string(f.name));
  m.attr("PREDICT_FAMILIES") = py::tuple(names);
}

}  // namespace melange::python_module
