//! Python values to the library's types and back.
//!
//! Plain values (`dict`, `list`, `str`, paths) are read here; ranx objects, pandas DataFrames and
//! other shapes are first turned into plain values by `quantir._convert` (Python, where those
//! packages are known), so the rules for what a claim, a run or a qrels holds are the library's.

use std::path::PathBuf;

use clap::ValueEnum;
use quantir::engine::{RunSettings, SettingValue};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString};

use quantir::corpus::{claims_from, documents_from, load_claims, Claim, ClaimFields, Corpus, DocumentFields, Format};
use quantir::trec::{Qrels, QrelsFormat, Run};

use crate::errors::OrRaise;

/// A closed-set argument (`fusion="rrf"`) parsed into the library's enum, as the CLI parses the
/// flag; an unknown value lists the valid ones.
pub fn choice<T: ValueEnum>(param: &str, text: &str) -> PyResult<T> {
    T::from_str(text, false).map_err(|_| {
        let names: Vec<String> = T::value_variants().iter().filter_map(|v| v.to_possible_value()).filter(|p| !p.is_hide_set()).map(|p| format!("{:?}", p.get_name())).collect();
        PyValueError::new_err(format!("{param}={text:?}: expected one of {}", names.join(", ")))
    })
}

/// An optional closed-set argument.
pub fn maybe_choice<T: ValueEnum>(param: &str, text: Option<&str>) -> PyResult<Option<T>> {
    text.map(|t| choice(param, t)).transpose()
}

/// A date given as `str`, `datetime.date` or `datetime.datetime` (its calendar date as written,
/// time and zone ignored), as text the library parses. `None` (and pandas' missing values, which
/// `quantir._convert` turns into `None`) is no date.
pub fn date_text(param: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if value.is_none() {
        return Ok(None);
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(Some(text.to_cow()?.into_owned()));
    }
    if value.hasattr("strftime")? {
        return Ok(Some(value.call_method1("strftime", ("%Y-%m-%d",))?.extract()?));
    }
    Err(PyTypeError::new_err(format!("{param}: expected a date as str, datetime.date or datetime.datetime, found {}", type_name(value))))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an object".into())
}

/// A path given as `str` or `os.PathLike`, or `None` when `value` is neither.
fn as_path(value: &Bound<'_, PyAny>) -> PyResult<Option<PathBuf>> {
    if value.is_instance_of::<PyString>() || value.hasattr("__fspath__")? {
        return Ok(Some(value.extract()?));
    }
    Ok(None)
}

/// `quantir._convert.<function>(value)`: ranx and pandas objects as plain values.
fn converted<'py>(value: &Bound<'py, PyAny>, function: &str) -> PyResult<Bound<'py, PyAny>> {
    value.py().import("quantir._convert")?.getattr(function)?.call1((value,))
}

/// An id as a string: `str`, or an `int` written in decimal (DataFrame indexes, QuanTemp
/// positions).
pub(crate) fn id_text(at: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(value.str()?.to_cow()?.into_owned());
    }
    Err(PyTypeError::new_err(format!("{at}: expected an id as str or int, found {}", type_name(value))))
}

/// Claims: a path (quantir JSONL, BEIR, QuanTemp++, read as `quantir run --claims` reads it), a
/// list of dicts with `id`, `text` and optionally `date`, a list of strings (ids are their
/// positions), or a pandas DataFrame with those columns.
pub fn claims(value: &Bound<'_, PyAny>, format: Format) -> PyResult<Vec<Claim>> {
    if let Some(path) = as_path(value)? {
        return value.py().detach(|| load_claims(&path, format, None)).or_raise();
    }
    let value = if value.is_instance_of::<PyList>() { value.clone() } else { converted(value, "as_claims")? };
    let list = value.cast::<PyList>().map_err(|_| PyTypeError::new_err(format!("claims: expected a path, a list of dicts or a DataFrame, found {}", type_name(&value))))?;
    let mut items = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        if let Ok(text) = item.cast::<PyString>() {
            items.push(ClaimFields { id: i.to_string(), text: text.to_cow()?.into_owned(), date: None });
            continue;
        }
        let dict = item.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("claims[{i}]: expected a dict with \"id\", \"text\" and \"date\" (optional), or a str, found {}", type_name(&item))))?;
        let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
            dict.get_item(name)?.ok_or_else(|| PyValueError::new_err(format!("claims[{i}]: missing \"{name}\" (a claim needs \"id\" and \"text\"; \"date\" is optional)")))
        };
        let id = id_text(&format!("claims[{i}][\"id\"]"), &field("id")?)?;
        let text_value = field("text")?;
        let text = text_value.cast::<PyString>().map_err(|_| PyTypeError::new_err(format!("claims[{i}][\"text\"]: expected str, found {}", type_name(&text_value))))?.to_cow()?.into_owned();
        let date = match dict.get_item("date")? {
            Some(d) => date_text(&format!("claims[{i}][\"date\"]"), &d)?,
            None => None,
        };
        items.push(ClaimFields { id, text, date });
    }
    claims_from("claims", items).or_raise()
}

/// Documents to add: a path (read as `quantir add --corpus` reads it), or a list of dicts with
/// `id`, `text` and optionally `title`, `date` and `url`, checked by
/// [`quantir::corpus::documents_from`].
pub enum DocumentsArg {
    Path(PathBuf),
    Memory(Corpus),
}

pub fn documents(value: &Bound<'_, PyAny>) -> PyResult<DocumentsArg> {
    if let Some(path) = as_path(value)? {
        return Ok(DocumentsArg::Path(path));
    }
    let list = value.cast::<PyList>().map_err(|_| PyTypeError::new_err(format!("docs: expected a path or a list of dicts, found {}", type_name(value))))?;
    let mut items = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let dict = item.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("docs[{i}]: expected a dict with \"id\" and \"text\" (\"title\", \"date\", \"url\" optional), found {}", type_name(&item))))?;
        let id = match dict.get_item("id")? {
            Some(id) => id_text(&format!("docs[{i}][\"id\"]"), &id)?,
            None => return Err(PyValueError::new_err(format!("docs[{i}]: missing \"id\" (a document needs \"id\" and \"text\")"))),
        };
        let string = |name: &str| -> PyResult<Option<String>> {
            match dict.get_item(name)? {
                None => Ok(None),
                Some(v) if v.is_none() => Ok(None),
                Some(v) => Ok(Some(v.cast::<PyString>().map_err(|_| PyTypeError::new_err(format!("docs[{i}][\"{name}\"]: expected str, found {}", type_name(&v))))?.to_cow()?.into_owned())),
            }
        };
        let text = string("text")?.ok_or_else(|| PyValueError::new_err(format!("docs[{i}]: missing \"text\" (a document needs \"id\" and \"text\")")))?;
        let date = match dict.get_item("date")? {
            Some(d) => date_text(&format!("docs[{i}][\"date\"]"), &d)?,
            None => None,
        };
        items.push(DocumentFields { id, title: string("title")?.unwrap_or_default(), text, url: string("url")?, date });
    }
    Ok(DocumentsArg::Memory(documents_from("docs", items).or_raise()?))
}

/// A run: a path to a TREC run file, `{qid: {docid: score}}` (pytrec_eval's and ranx's shape), a
/// `ranx.Run`, or a DataFrame with `qid`, `docid` and `score` columns. `name` names it in errors.
pub fn run(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Run> {
    if let Some(path) = as_path(value)? {
        return value.py().detach(|| Run::read_trec(&path)).or_raise();
    }
    let value = if value.is_instance_of::<PyDict>() { value.clone() } else { converted(value, "as_run")? };
    let dict = value.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("{name}: expected a path, a dict {{qid: {{docid: score}}}}, a ranx.Run or a DataFrame, found {}", type_name(&value))))?;
    let mut queries = Vec::with_capacity(dict.len());
    for (qid, docs) in dict.iter() {
        let qid = id_text(&format!("{name}: a query id"), &qid)?;
        let docs = docs.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("{name}[{qid:?}]: expected a dict {{docid: score}}, found {}", type_name(&docs))))?;
        let mut scored = Vec::with_capacity(docs.len());
        for (docid, score) in docs.iter() {
            let docid = id_text(&format!("{name}[{qid:?}]: a document id"), &docid)?;
            let score: f64 = if score.is_instance_of::<PyFloat>() || score.is_instance_of::<PyInt>() || score.hasattr("__float__")? {
                score.extract()?
            } else {
                return Err(PyTypeError::new_err(format!("{name}[{qid:?}][{docid:?}]: expected a number, found {}", type_name(&score))));
            };
            scored.push((docid, score));
        }
        queries.push((qid, scored));
    }
    Run::from_scores(name, queries, None).or_raise()
}

/// Judgments: a path (TREC, BEIR tsv or QuanTemp++ JSON), `{qid: {docid: grade}}`, a
/// `ranx.Qrels`, or a DataFrame with `qid`, `docid` and `rel` (or `relevance`, `score`) columns.
pub fn qrels(value: &Bound<'_, PyAny>) -> PyResult<Qrels> {
    if let Some(path) = as_path(value)? {
        return value.py().detach(|| Qrels::read(&path, QrelsFormat::Auto)).or_raise();
    }
    let value = if value.is_instance_of::<PyDict>() { value.clone() } else { converted(value, "as_qrels")? };
    let dict = value.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("qrels: expected a path, a dict {{qid: {{docid: grade}}}}, a ranx.Qrels or a DataFrame, found {}", type_name(&value))))?;
    let mut qrels = Qrels::default();
    for (qid, docs) in dict.iter() {
        let qid = id_text("qrels: a query id", &qid)?;
        let docs = docs.cast::<PyDict>().map_err(|_| PyTypeError::new_err(format!("qrels[{qid:?}]: expected a dict {{docid: grade}}, found {}", type_name(&docs))))?;
        let mut grades = std::collections::BTreeMap::new();
        for (docid, grade) in docs.iter() {
            let docid = id_text(&format!("qrels[{qid:?}]: a document id"), &docid)?;
            let grade: i64 = grade.extract().map_err(|_| PyTypeError::new_err(format!("qrels[{qid:?}][{docid:?}]: expected an integer grade, found {}", type_name(&grade))))?;
            let grade = i32::try_from(grade).map_err(|_| PyValueError::new_err(format!("qrels[{qid:?}][{docid:?}]: grade {grade} is out of range")))?;
            grades.insert(docid, grade);
        }
        qrels.judgments.insert(qid, grades);
    }
    Ok(qrels)
}

/// A run as `{qid: {docid: score}}`, queries in run order and each query's documents in rank
/// order (dicts keep insertion order).
pub fn run_to_py<'py>(py: Python<'py>, run: &Run) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for list in &run.queries {
        let docs = PyDict::new(py);
        for doc in &list.docs {
            docs.set_item(&doc.docid, doc.score)?;
        }
        out.set_item(&list.qid, docs)?;
    }
    Ok(out)
}

/// A JSON value as the Python value `json.loads` would give.
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::IntoPyObjectExt;
    Ok(match value {
        serde_json::Value::Null => py.None().into_bound(py),
        serde_json::Value::Bool(b) => b.into_bound_py_any(py)?,
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (None, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        serde_json::Value::String(s) => s.into_bound_py_any(py)?,
        serde_json::Value::Array(items) => PyList::new(py, items.iter().map(|v| json_to_py(py, v)).collect::<PyResult<Vec<_>>>()?)?.into_any(),
        serde_json::Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// Run settings from keyword arguments (`**settings` of `run` and `search`): each named as
/// [`RunSettings::NAMES`] names it, over `base`, checked by the library ([`RunSettings::set`]; a
/// `None` keeps the default) and, when `allowed` is given, only those names. Dates (`before`) may
/// be `datetime.date`s.
pub fn run_settings(kwargs: Option<&Bound<'_, PyDict>>, base: RunSettings, allowed: Option<&[&str]>) -> PyResult<RunSettings> {
    let mut settings = base;
    if let Some(kwargs) = kwargs {
        for (key, value) in kwargs.iter() {
            let name: String = key.extract()?;
            if let Some(allowed) = allowed {
                if !allowed.contains(&name.as_str()) {
                    let why = if RunSettings::NAMES.contains(&name.as_str()) { "is a setting of run, not of search" } else { "is not an argument" };
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!("{name} {why}; search takes {}", allowed.join(", "))));
                }
            }
            let value = if name == "before" { date_text("before", &value)?.map_or(SettingValue::Null, SettingValue::Text) } else { setting_value(&value)? };
            settings.set(&name, &value).map_err(crate::errors::to_py)?;
        }
    }
    settings.validate().map_err(crate::errors::to_py)?;
    Ok(settings)
}

/// A Python value as a setting's value.
fn setting_value(value: &Bound<'_, PyAny>) -> PyResult<SettingValue> {
    use pyo3::types::{PyBool, PyTuple};
    Ok(if value.is_none() {
        SettingValue::Null
    } else if let Ok(flag) = value.cast::<PyBool>() {
        SettingValue::Bool(flag.is_true())
    } else if value.is_instance_of::<PyInt>() {
        value.extract::<i64>().map_or(SettingValue::Other("an int beyond 64 bits".into()), |n| SettingValue::Int(n.into()))
    } else if value.is_instance_of::<PyFloat>() {
        SettingValue::Float(value.extract()?)
    } else if let Ok(text) = value.cast::<PyString>() {
        SettingValue::Text(text.to_cow()?.into_owned())
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        value.extract::<Vec<f64>>().map_or_else(|_| SettingValue::Other(format!("a {} of other than numbers", type_name(value))), SettingValue::Numbers)
    } else {
        SettingValue::Other(format!("a {}", type_name(value)))
    })
}

