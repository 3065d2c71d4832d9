// A call that does not fit a function, answered as Python and NumPy answer
// it: one line that names the keyword (and the closest one the function
// takes), the missing argument or the argument of the wrong type. pybind11
// answers with every overload's signature and the arguments given, arrays
// printed whole.
//
// Each public function and method is wrapped once, when the module loads.
// A call goes straight through; only when it raises TypeError is the call
// read against the function's signature, the first line of its docstring,
// which pybind11 writes in Python's own def syntax (ast reads it). A
// TypeError the call itself was right to raise (a dtype, say) is raised as
// it was.
#include "module_support.hpp"

namespace melange::python_module {
namespace {

enum class Kind { positional, keyword_only, any_keyword };

struct Parameter {
  std::string name;
  Kind kind = Kind::positional;
  bool required = false;
  std::string annotation;  // as written ("str", "Optional[float]"); empty: none
};

struct Signature {
  std::string function;
  std::vector<Parameter> parameters;
  std::vector<std::string> extra_keywords;  // what **kwargs takes: the shuffle's keywords
};

Signature signature_of(const std::string& function, const py::handle& f, const py::object& extra) {
  Signature s{function, {}, {}};
  const py::object doc = py::getattr(f, "__doc__", py::none());
  if (doc.is_none()) return s;
  const std::string text = py::str(doc);
  const std::string line = text.substr(0, text.find('\n'));
  const py::module_ ast = py::module_::import("ast");
  py::object tree;
  try {
    tree = ast.attr("parse")("def " + line + ": pass");
  } catch (const py::error_already_set&) {
    return s;  // no signature line: nothing to read the call against
  }
  const py::object args = tree.attr("body")[py::int_(0)].attr("args");
  const auto annotation = [&](const py::handle& a) {
    const py::object note = a.attr("annotation");
    return note.is_none() ? std::string() : std::string(py::str(ast.attr("unparse")(note)));
  };
  const py::list positional = args.attr("args");
  const std::size_t defaults = py::len(args.attr("defaults"));
  for (std::size_t i = 0; i < positional.size(); ++i)
    s.parameters.push_back({py::str(positional[i].attr("arg")), Kind::positional, i + defaults < positional.size(),
                            annotation(positional[i])});
  const py::list keyword_only = args.attr("kwonlyargs");
  const py::list keyword_defaults = args.attr("kw_defaults");
  for (std::size_t i = 0; i < keyword_only.size(); ++i)
    s.parameters.push_back({py::str(keyword_only[i].attr("arg")), Kind::keyword_only, keyword_defaults[i].is_none(),
                            annotation(keyword_only[i])});
  if (!args.attr("kwarg").is_none()) {
    s.parameters.push_back({py::str(args.attr("kwarg").attr("arg")), Kind::any_keyword, false, ""});
    for (const py::handle k : extra) s.extra_keywords.push_back(py::str(k));
  }
  return s;
}

const Parameter* named(const Signature& s, const std::string& keyword) {
  for (const Parameter& p : s.parameters)
    if (p.kind != Kind::any_keyword && p.name == keyword && p.name != "self") return &p;
  return nullptr;
}

// What a value must be, where an annotation says it plainly; empty where
// it does not (object, a class): the function itself checks those.
std::string wrong_type(const std::string& annotation, const py::handle& value) {
  const py::module_ builtins = py::module_::import("builtins");
  const py::module_ numbers = py::module_::import("numbers");
  const auto is = [&](const std::string& type) -> bool {
    if (type == "str") return py::isinstance<py::str>(value);
    if (type == "bool") return py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_"));
    if (type == "float") return py::isinstance(value, numbers.attr("Real"));
    if (type == "int") return py::isinstance(value, numbers.attr("Integral"));
    return true;
  };
  std::string type = annotation;
  bool none_allowed = false;
  if (type.rfind("Optional[", 0) == 0) {
    type = type.substr(9, type.size() - 10);
    none_allowed = true;
  }
  if (none_allowed && value.is_none()) return {};
  if (type == "Union[bool, str]") return is("bool") || is("str") ? "" : "True, False or a str";
  if (type.rfind("List[", 0) == 0) {
    const std::string item = type.substr(5, type.size() - 6);
    const bool sequence = py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value);
    if (sequence)
      for (const py::handle x : value)
        if (!wrong_type(item, x).empty()) return "a list of " + item;
    return sequence ? "" : "a list of " + item;
  }
  if (type != "str" && type != "bool" && type != "float" && type != "int") return {};
  if (is(type)) return {};
  return std::string(type == "int" ? "an " : "a ") + type + (none_allowed ? " or None" : "");
}

// The keyword the function takes that is closest to `word`, as difflib finds it.
std::string closest(const Signature& s, const std::string& word) {
  py::list names;
  for (const Parameter& p : s.parameters)
    if (p.kind != Kind::any_keyword && p.name != "self") names.append(p.name);
  for (const std::string& k : s.extra_keywords) names.append(k);
  const py::list found = py::module_::import("difflib").attr("get_close_matches")(word, names, 1, 0.6);
  return found.empty() ? std::string() : std::string(py::str(found[0]));
}

// What is wrong with the call, in one line; empty when nothing the
// signature says is.
std::string diagnosis(const Signature& s, const py::args& args, const py::kwargs& kwargs) {
  const std::string f = s.function + "()";
  std::size_t takes = 0;
  for (const Parameter& p : s.parameters) takes += p.kind == Kind::positional;
  if (args.size() > takes) {
    const std::size_t self = !s.parameters.empty() && s.parameters.front().name == "self" ? 1 : 0;
    return f + " takes " + std::to_string(takes - self) + " positional argument" + (takes - self == 1 ? "" : "s") +
           " but " + std::to_string(args.size() - self) + " were given; give the others by keyword";
  }
  for (const auto& [key, value] : kwargs) {
    const std::string keyword = py::str(key);
    const Parameter* p = named(s, keyword);
    if (!p) {
      if (std::find(s.extra_keywords.begin(), s.extra_keywords.end(), keyword) != s.extra_keywords.end()) continue;
      const std::string near = closest(s, keyword);
      return f + " got an unexpected keyword argument '" + keyword + "'" +
             (near.empty() ? "; see help(" + s.function + ")" : "; did you mean '" + near + "'?");
    }
    if (p->kind == Kind::positional) {
      const auto at = static_cast<std::size_t>(p - s.parameters.data());
      if (at < args.size()) return f + " got multiple values for argument '" + keyword + "'";
    }
  }
  for (std::size_t i = 0; i < s.parameters.size(); ++i) {
    const Parameter& p = s.parameters[i];
    if (p.kind == Kind::any_keyword || p.name == "self") continue;
    py::object value;
    if (p.kind == Kind::positional && i < args.size()) value = args[i];
    else if (kwargs.contains(p.name)) value = kwargs[py::str(p.name)];
    if (!value) {
      if (p.required) return f + " missing required argument '" + p.name + "'";
      continue;
    }
    const std::string want = wrong_type(p.annotation, value);
    if (!want.empty())
      return f + ": " + p.name + " must be " + want + ", not " + std::string(py::str(py::type::of(value).attr("__name__")));
  }
  return {};
}

// A wrapper's own state: the function it calls, its name as told, the
// keywords **kwargs takes, and the PyMethodDef CPython keeps a pointer to.
// Held by a capsule the wrapper holds, so that it lives as long as the wrapper.
struct Minded {
  std::string function, attribute, doc;
  py::object original, extra;
  PyMethodDef def{};
};
constexpr const char* kMindedCapsule = "melange.minded";

// The TypeError a call raised, re-read: one line where the signature says
// what is wrong, else the error as it was (a pybind11 list of signatures
// only where nothing can be said: then a line that points to help()).
PyObject* re_read(const Minded& m, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  py::error_already_set raised;  // takes the error set
  py::tuple positional(nargs);
  for (Py_ssize_t i = 0; i < nargs; ++i) positional[i] = py::reinterpret_borrow<py::object>(args[i]);
  py::dict keywords;
  const Py_ssize_t named = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < named; ++i)
    keywords[PyTuple_GET_ITEM(kwnames, i)] = py::reinterpret_borrow<py::object>(args[nargs + i]);
  const std::string told = diagnosis(signature_of(m.function, m.original, m.extra),
                                     py::reinterpret_borrow<py::args>(positional),
                                     py::reinterpret_borrow<py::kwargs>(keywords));
  if (!told.empty()) {
    PyErr_SetString(PyExc_TypeError, told.c_str());
    return nullptr;
  }
  const std::string what = raised.what();
  if (what.find("incompatible function arguments") == std::string::npos &&
      what.find("incompatible constructor arguments") == std::string::npos) {
    raised.restore();
    return nullptr;
  }
  PyErr_SetString(PyExc_TypeError,
                  (m.function + "() does not take these arguments; see help(" + m.function + ")").c_str());
  return nullptr;
}

// The wrapper itself, CPython's fast calling convention: the arguments go
// to the original as they came (no tuple or dict is built), so a call that
// fits costs one more C call.
PyObject* call_minded(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const auto* m = static_cast<const Minded*>(PyCapsule_GetPointer(self, kMindedCapsule));
  if (!m) return nullptr;
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* result = PyObject_Vectorcall(m->original.ptr(), args, static_cast<size_t>(nargs), kwnames);
  if (result || !PyErr_ExceptionMatches(PyExc_TypeError)) return result;
  try {
    return re_read(*m, args, nargs, kwnames);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

// `original` wrapped: the same name, docstring (its signature line and
// all) and module; a method stays a method.
py::object minded(const std::string& function, const std::string& attribute, const py::object& original,
                  const py::object& extra, bool method, const py::module_& module) {
  auto state = std::make_unique<Minded>();
  state->function = function;
  state->attribute = attribute;
  state->doc = py::str(py::getattr(original, "__doc__", py::str("")));
  state->original = original;
  state->extra = extra;
  state->def.ml_name = state->attribute.c_str();
  state->def.ml_meth = reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&call_minded));
  state->def.ml_flags = METH_FASTCALL | METH_KEYWORDS;
  state->def.ml_doc = state->doc.c_str();
  PyMethodDef* def = &state->def;
  const py::capsule holder(state.release(), kMindedCapsule,
                           [](PyObject* c) { delete static_cast<Minded*>(PyCapsule_GetPointer(c, kMindedCapsule)); });
  auto function_object = py::reinterpret_steal<py::object>(PyCFunction_NewEx(def, holder.ptr(), module.attr("__name__").ptr()));
  if (!function_object) throw py::error_already_set();
  if (!method) return function_object;
  auto bound = py::reinterpret_steal<py::object>(PyInstanceMethod_New(function_object.ptr()));
  if (!bound) throw py::error_already_set();
  return bound;
}

// A function pybind11 made (a module's), or a method (an instancemethod
// over one). py::cpp_function's own check takes anything callable, classes too.
bool is_pybind_function(const py::handle& f) {
  return PyCFunction_Check(f.ptr()) || PyInstanceMethod_Check(f.ptr());
}

}  // namespace

void mind_calls(py::module_& m) {
  const py::object extra = m.attr("SHUFFLE_KEYWORDS");
  for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(m.attr("__dict__"))) {
    const std::string name = py::str(key);
    if (name.front() == '_') continue;
    if (PyCFunction_Check(value.ptr())) {
      m.attr(name.c_str()) = minded(name, name, py::reinterpret_borrow<py::object>(value), extra, false, m);
    } else if (py::isinstance<py::type>(value)) {
      const py::object cls = py::reinterpret_borrow<py::object>(value);
      // A copy: a class's __dict__ is a read-only proxy, not a dict.
      for (const auto& [method_key, method] : py::dict(cls.attr("__dict__"))) {
        const std::string method_name = py::str(method_key);
        if ((method_name.front() == '_' && method_name != "__init__") || !is_pybind_function(method)) continue;
        const std::string shown = method_name == "__init__" ? name : name + "." + method_name;
        py::setattr(cls, method_name.c_str(),
                    minded(shown, method_name, py::reinterpret_borrow<py::object>(method), extra, true, m));
      }
    }
  }
}

}  // namespace melange::python_module
