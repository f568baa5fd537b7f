//! Provenance: what made each artifact quantir writes, and whether an earlier one may be reused.
//!
//! Every artifact — an index generation, a run file, a fused run, a plan file, a verifier, a
//! predictions file, an experiment's tables — records a [`Provenance`]: its [`Artifact`] kind,
//! quantir's and the analyzer's versions, each input with its [`Role`], its path as given and
//! what identifies its content (a file's [`Digest`], or the [`Fingerprint`] of the artifact it
//! is), the settings that change the result, and the digest of the artifact's own bytes as
//! written.
//!
//! The **fingerprint** hashes all of that except the paths and the output (moving a folder or
//! renaming a file changes nothing): two artifacts with one fingerprint were made from the same
//! bytes with the same settings by the same quantir. It is how reuse is decided — never by a file
//! name ([`Provenance::reuse`]): an artifact is reused only when its record is there, its
//! fingerprint is the one expected and its bytes are still the ones written.
//!
//! **Where records live.** Beside a file artifact as `NAME.provenance.json`
//! ([`sidecar`]); inside a folder artifact as `provenance.json`; inside an index generation's
//! `manifest.json`; as a header of an experiment's tables. This module is the one place that
//! reads and writes them.

use std::path::{Path, PathBuf};

use crate::error::{Damage, Error, Result};
use crate::io::Digest;

/// What kind of artifact a record describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Artifact {
    /// An index generation (`quantir index`).
    Index,
    /// A corpus's dense vectors, encoded chunk by chunk (the work folder a build resumes from).
    Vectors,
    /// A TREC run (`quantir run`, the experiment's runs).
    Run,
    /// A fused TREC run (`quantir fuse`).
    Fusion,
    /// A plan file of sub-queries (`quantir plan`).
    Plan,
    /// A trained verifier folder (`quantir train-verifier`, the experiment's verifiers).
    Verifier,
    /// A predictions file (`quantir verify`, the experiment's predictions).
    Predictions,
    /// A stance model folder (`quantir train-stance`).
    StanceModel,
    /// An experiment's tables (`tables.md`, `grid.json`, `verification.json`).
    Tables,
}

/// What an input is to the artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The evidence corpus.
    Corpus,
    /// The claims run or verified.
    Claims,
    /// Relevance judgments.
    Qrels,
    /// A published decomposition (`--plan file:`).
    PlanFile,
    /// The index searched.
    Index,
    /// A run read (fused, or giving a verifier its evidence).
    Run,
    /// The claims a verifier was trained on.
    TrainingClaims,
    /// The verifier that made predictions.
    Verifier,
    /// The evidence file a verifier read.
    Evidence,
    /// An encoder or classifier model file.
    Model,
    /// The documents an index update added, or the ids it deleted.
    Changes,
}

/// A hash of what made an artifact (module doc): 32 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(pub String);

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What identifies an input's content.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Source {
    /// A file, by its bytes.
    File(Digest),
    /// An artifact quantir made, by its fingerprint.
    Artifact {
        /// The artifact's fingerprint.
        fingerprint: Fingerprint,
    },
}

/// One input of an artifact.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Input {
    /// What it is to the artifact.
    pub role: Role,
    /// Its path as given (for people; not part of the fingerprint).
    pub path: String,
    /// What identifies its content.
    #[serde(flatten)]
    pub source: Source,
}

impl Input {
    /// The file at `path`, by its digest (read whole, a chunk at a time).
    pub fn file(role: Role, path: &Path) -> Result<Input> {
        Ok(Input { role, path: path.display().to_string(), source: Source::File(Digest::of_file(path)?) })
    }

    /// A file whose digest is already known (a reader computed it while reading).
    pub fn digested(role: Role, path: &Path, digest: Digest) -> Input {
        Input { role, path: path.display().to_string(), source: Source::File(digest) }
    }

    /// An artifact quantir made, by its fingerprint.
    pub fn artifact(role: Role, path: &Path, fingerprint: Fingerprint) -> Input {
        Input { role, path: path.display().to_string(), source: Source::Artifact { fingerprint } }
    }
}

/// What made an artifact (module doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Provenance {
    /// The kind of artifact.
    pub artifact: Artifact,
    /// The hash of everything below but the paths and the output.
    pub fingerprint: Fingerprint,
    /// The quantir release that made it.
    pub quantir_version: String,
    /// The analyzer version it was made with.
    pub analyzer_version: u32,
    /// Its inputs.
    pub inputs: Vec<Input>,
    /// The settings that change the result, as the typed configuration serialises.
    pub settings: serde_json::Value,
    /// The artifact's own bytes as written (a folder's main file), when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Digest>,
    /// A folder artifact's other files read with its main file (a verifier's abstention rule),
    /// by name, as written. Not part of the fingerprint.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub parts: std::collections::BTreeMap<String, Digest>,
    /// What making it counted (claims run, claims that fell back, …), for reports: a reused
    /// artifact's counts come from here. Not part of the fingerprint.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub counts: std::collections::BTreeMap<String, u64>,
}

/// Whether an earlier artifact may stand for a new one ([`Provenance::reuse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reuse {
    /// Its record matches and its bytes are unchanged.
    Reuse,
    /// It must be made again, for this reason (in words, for the log).
    Redo(String),
}

impl Provenance {
    /// The record of a new artifact of kind `artifact` made from `inputs` with `settings`, by
    /// this quantir.
    pub fn new(artifact: Artifact, inputs: Vec<Input>, settings: &impl serde::Serialize) -> Provenance {
        let settings = serde_json::to_value(settings).expect("settings serialise to JSON");
        let quantir_version = env!("CARGO_PKG_VERSION").to_string();
        let analyzer_version = crate::analysis::ANALYZER_VERSION;
        let fingerprint = fingerprint_of(artifact, &quantir_version, analyzer_version, &inputs, &settings);
        Provenance { artifact, fingerprint, quantir_version, analyzer_version, inputs, settings, output: None, parts: Default::default(), counts: Default::default() }
    }

    /// The record with what making the artifact counted.
    pub fn with_counts(mut self, counts: std::collections::BTreeMap<String, u64>) -> Provenance {
        self.counts = counts;
        self
    }

    /// The record with the digest of the artifact's bytes as written.
    pub fn with_output(mut self, output: Digest) -> Provenance {
        self.output = Some(output);
        self
    }

    /// The input with role `role`, if any.
    pub fn input(&self, role: Role) -> Option<&Input> {
        self.inputs.iter().find(|i| i.role == role)
    }

    /// Whether the artifact at `path` — a file with its record beside it, or a folder with
    /// `provenance.json` inside whose main file is `main` — may stand for the one this record
    /// describes: its record is there and readable, has this fingerprint, and its bytes are the
    /// ones it records. Anything else is [`Reuse::Redo`] with the reason, never an error: a
    /// damaged or foreign record is a reason to make the artifact again.
    pub fn reuse(&self, path: &Path, main: Option<&str>) -> Reuse {
        let (record, bytes) = match main {
            None => (sidecar(path), path.to_path_buf()),
            Some(main) => (path.join(FOLDER_RECORD), path.join(main)),
        };
        if !bytes.is_file() {
            return Reuse::Redo(format!("{} does not exist", bytes.display()));
        }
        let old = match read(&record) {
            Ok(Some(old)) => old,
            Ok(None) => return Reuse::Redo(format!("{} has no provenance record ({} is missing), so what made it is unknown", bytes.display(), record.display())),
            Err(e) => return Reuse::Redo(format!("its provenance record is unreadable ({e})")),
        };
        if old.fingerprint != self.fingerprint {
            return Reuse::Redo(format!("it was made {}", difference(&old, self)));
        }
        let Some(written) = &old.output else {
            return Reuse::Redo(format!("{} records no digest of what was written", record.display()));
        };
        match Digest::of_file(&bytes) {
            Ok(now) if &now == written => Reuse::Reuse,
            Ok(_) => Reuse::Redo(format!("{} was changed after quantir wrote it", bytes.display())),
            Err(e) => Reuse::Redo(e.to_string()),
        }
    }

    /// Writes the record beside the file artifact `path` (`NAME.provenance.json`), with the
    /// digest of the file as it is now. Nothing for a path that is not a regular file (an output
    /// streamed to `/dev/stdout` or a pipe has nowhere beside it to record anything).
    pub fn write_beside(self, path: &Path) -> Result<()> {
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        let record = self.with_output(Digest::of_file(path)?);
        write(&sidecar(path), &record)
    }

    /// Writes the record into the folder artifact `dir` (`provenance.json`), with the digest of
    /// its main file `main` and of each of `parts` the folder holds ([`read_folder`] reads them
    /// back). Written last, so a folder whose saving was cut short fails that check.
    pub fn write_into(self, dir: &Path, main: &str, parts: &[&str]) -> Result<()> {
        let mut record = self.with_output(Digest::of_file(&dir.join(main))?);
        for part in parts {
            let path = dir.join(part);
            if path.is_file() {
                record.parts.insert(part.to_string(), Digest::of_file(&path)?);
            }
        }
        write(&dir.join(FOLDER_RECORD), &record)
    }

    /// The record as lines for the head of a table: fingerprint, versions, each input with
    /// its digest, and the settings.
    pub fn header_lines(&self) -> Vec<String> {
        let mut lines = vec![format!("fingerprint {} (quantir {}, analyzer {})", self.fingerprint, self.quantir_version, self.analyzer_version)];
        for input in &self.inputs {
            let source = match &input.source {
                Source::File(digest) => format!("{} bytes, xxh3 {}", digest.bytes, digest.xxh3),
                Source::Artifact { fingerprint } => format!("fingerprint {fingerprint}"),
            };
            lines.push(format!("{}: {} ({source})", serde_name(input.role), input.path));
        }
        lines.push(format!("settings: {}", canonical_json(&self.settings)));
        lines
    }
}

/// The record kept inside a folder artifact.
pub const FOLDER_RECORD: &str = "provenance.json";

/// The texts of a folder artifact read by [`read_folder`]: each file read once and checked
/// against its record, so what is checked is what is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderTexts {
    /// The main file's text.
    pub main: String,
    parts: Vec<(String, String)>,
}

impl FolderTexts {
    /// The text of the part `name`, `None` when the folder has none (and its record none).
    pub fn part(&self, name: &str) -> Option<&str> {
        self.parts.iter().find(|(n, _)| n == name).map(|(_, text)| text.as_str())
    }
}

/// The texts of the main file `main` and of the `parts` present in the folder artifact `dir` of
/// kind `artifact`, once the folder is checked to be as quantir wrote it: its record is there
/// and of that kind, the bytes read have the digest recorded (each file read once, so what is
/// checked is what is parsed), and each of `parts` is either recorded and unchanged or absent
/// from both the folder and the record. A
/// file edited by hand — even into another valid model — a file copied in from another folder,
/// or a save cut short is [`Error::ArtifactDamaged`], naming the file; a main file that is not
/// there is a wrong path, the reader's own "not found".
pub fn read_folder(dir: &Path, artifact: Artifact, main: &str, parts: &[&str]) -> Result<FolderTexts> {
    let main_path = dir.join(main);
    let bytes = crate::io::read_bounded(&main_path)?;
    let record_path = dir.join(FOLDER_RECORD);
    let damaged = |file: PathBuf, damage: Damage| Error::ArtifactDamaged { file, damage, artifact };
    let record = match read(&record_path) {
        Ok(Some(record)) => record,
        Ok(None) => return Err(damaged(record_path, Damage::Missing)),
        Err(e) => return Err(damaged(record_path, Damage::Malformed { expected: format!("quantir's provenance record ({e})") })),
    };
    if record.artifact != artifact {
        return Err(damaged(record_path, Damage::Inconsistent { what: format!("it records a {} folder, not a {}", serde_name(record.artifact), serde_name(artifact)) }));
    }
    let unchanged = |path: PathBuf, written: &Digest, now: Digest| if &now == written { Ok(()) } else { Err(damaged(path, Damage::Content { expected: written.xxh3.clone(), found: now.xxh3 })) };
    match &record.output {
        Some(written) => unchanged(main_path.clone(), written, Digest::of_bytes(&bytes))?,
        None => return Err(damaged(record_path, Damage::Malformed { expected: format!("the digest of {main} (\"output\")") })),
    }
    let mut texts = Vec::new();
    for part in parts {
        let path = dir.join(part);
        match (record.parts.get(*part), path.is_file()) {
            (None, false) => {}
            (Some(_), false) => return Err(damaged(path, Damage::Missing)),
            (None, true) => return Err(damaged(path, Damage::Inconsistent { what: format!("{FOLDER_RECORD} records no such file, so it was not written with this folder's model") })),
            (Some(written), true) => {
                let part_bytes = crate::io::read_bounded(&path)?;
                unchanged(path.clone(), written, Digest::of_bytes(&part_bytes))?;
                texts.push((part.to_string(), crate::io::utf8(&path, part_bytes)?));
            }
        }
    }
    Ok(FolderTexts { main: crate::io::utf8(&main_path, bytes)?, parts: texts })
}

/// Where the record of the file artifact `path` is kept: `NAME.provenance.json` beside it.
pub fn sidecar(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(|| "artifact".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!("{name}.provenance.json"))
}

/// Reads the record at `path`: `None` when there is none.
pub fn read(path: &Path) -> Result<Option<Provenance>> {
    match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| Error::Malformed { path: path.to_path_buf(), at: crate::error::Position { line: e.line(), column: Some(e.column()) }, message: e.to_string() }),
    }
}

fn write(path: &Path, record: &Provenance) -> Result<()> {
    let json = serde_json::to_string_pretty(record).expect("provenance serialises") + "\n";
    crate::io::write_replacing(path, json.as_bytes())
}

/// A unit variant's name as serde writes it (`training-claims`, `stance-model`).
fn serde_name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The fingerprint of an artifact's kind, versions, inputs (roles and sources, in order) and
/// settings: xxh3-128 of their canonical JSON (object keys sorted, no spaces).
fn fingerprint_of(artifact: Artifact, quantir_version: &str, analyzer_version: u32, inputs: &[Input], settings: &serde_json::Value) -> Fingerprint {
    let inputs: Vec<serde_json::Value> = inputs.iter().map(|i| serde_json::json!([i.role, i.source])).collect();
    let all = serde_json::json!([artifact, quantir_version, analyzer_version, inputs, settings]);
    Fingerprint(Digest::of_bytes(canonical_json(&all).as_bytes()).xxh3)
}

/// `value` as JSON with every object's keys sorted and no spaces: the same text for the same
/// value, whatever order a map kept its keys in.
fn canonical_json(value: &serde_json::Value) -> String {
    fn write(value: &serde_json::Value, out: &mut String) {
        match value {
            serde_json::Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(key.clone()).to_string());
                    out.push(':');
                    write(&map[key], out);
                }
                out.push('}');
            }
            serde_json::Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// How `old` differs from `new`, in words: "with other settings (k 100 → 10)", "from other
/// inputs (claims test.json changed)", "by quantir 0.0.9".
fn difference(old: &Provenance, new: &Provenance) -> String {
    let mut reasons = Vec::new();
    if old.artifact != new.artifact {
        reasons.push(format!("as a {} artifact, not a {} one", role_like(old.artifact), role_like(new.artifact)));
    }
    if (&old.quantir_version, old.analyzer_version) != (&new.quantir_version, new.analyzer_version) {
        reasons.push(format!("by quantir {} (analyzer {}), not {} (analyzer {})", old.quantir_version, old.analyzer_version, new.quantir_version, new.analyzer_version));
    }
    let mut inputs = Vec::new();
    for input in &new.inputs {
        match old.inputs.iter().find(|o| o.role == input.role) {
            None => inputs.push(format!("{} {} was not an input", serde_name(input.role), input.path)),
            Some(o) if o.source != input.source => inputs.push(format!("{} {} changed", serde_name(input.role), input.path)),
            Some(_) => {}
        }
    }
    for o in &old.inputs {
        if !new.inputs.iter().any(|i| i.role == o.role) {
            inputs.push(format!("{} {} is no longer an input", serde_name(o.role), o.path));
        }
    }
    if !inputs.is_empty() {
        reasons.push(format!("from other inputs ({})", inputs.join("; ")));
    }
    if old.settings != new.settings {
        reasons.push(format!("with other settings ({})", settings_difference(&old.settings, &new.settings)));
    }
    if reasons.is_empty() {
        // Same parts, other fingerprint: a record edited by hand or from another fingerprint rule.
        reasons.push(format!("with fingerprint {}, not {}", old.fingerprint, new.fingerprint));
    }
    reasons.join(", ")
}

fn role_like(artifact: Artifact) -> String {
    serde_json::to_value(artifact).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// The settings that differ, `name old → new`, top-level keys (objects compared whole).
fn settings_difference(old: &serde_json::Value, new: &serde_json::Value) -> String {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return format!("{} → {}", canonical_json(old), canonical_json(new));
    };
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let show = |v: Option<&serde_json::Value>| v.map_or("none".to_string(), canonical_json);
    keys.into_iter().filter(|k| old.get(*k) != new.get(*k)).map(|k| format!("{k} {} → {}", show(old.get(k)), show(new.get(k)))).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Settings {
        k: usize,
        depth: usize,
    }

    #[test]
    fn the_fingerprint_ignores_paths_and_key_order_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&a, "[1, 2]").unwrap();
        std::fs::write(&b, "[1, 2]").unwrap();
        let make = |path: &Path, k| Provenance::new(Artifact::Run, vec![Input::file(Role::Claims, path).unwrap()], &Settings { k, depth: 100 });
        assert_eq!(make(&a, 10).fingerprint, make(&b, 10).fingerprint, "the same bytes under another name");
        assert_ne!(make(&a, 10).fingerprint, make(&a, 11).fingerprint);
        std::fs::write(&b, "[1, 3]").unwrap();
        assert_ne!(make(&a, 10).fingerprint, make(&b, 10).fingerprint);
        let as_index = Provenance::new(Artifact::Index, vec![Input::file(Role::Claims, &a).unwrap()], &Settings { k: 10, depth: 100 });
        assert_ne!(as_index.fingerprint, make(&a, 10).fingerprint);
        let reordered: serde_json::Value = serde_json::from_str(r#"{"depth": 100, "k": 10}"#).unwrap();
        assert_eq!(Provenance::new(Artifact::Run, vec![Input::file(Role::Claims, &a).unwrap()], &reordered).fingerprint, make(&a, 10).fingerprint);
    }

    #[test]
    fn a_folder_is_read_only_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path();
        std::fs::write(folder.join("model.json"), "{\"w\": 1}").unwrap();
        std::fs::write(folder.join("rule.json"), "[0.5]").unwrap();
        let record = || Provenance::new(Artifact::Verifier, vec![], &Settings { k: 1, depth: 1 });
        let check = || read_folder(folder, Artifact::Verifier, "model.json", &["rule.json", "other.json"]);
        let damage = |e: Error| match e {
            Error::ArtifactDamaged { file, damage, .. } => (file.file_name().unwrap().to_string_lossy().into_owned(), damage),
            e => panic!("{e}"),
        };
        assert_eq!(damage(check().unwrap_err()), (FOLDER_RECORD.to_string(), Damage::Missing));
        let elsewhere = read_folder(&folder.join("none"), Artifact::Verifier, "model.json", &[]).unwrap_err();
        assert!(matches!(&elsewhere, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound), "a wrong path is not found, not damaged: {elsewhere}");
        record().write_into(folder, "model.json", &["rule.json", "other.json"]).unwrap();
        let texts = check().unwrap();
        assert_eq!(texts.main, "{\"w\": 1}", "the main file's text, as checked");
        assert_eq!((texts.part("rule.json"), texts.part("other.json")), (Some("[0.5]"), None), "each part present, as checked");
        let written = read(&folder.join(FOLDER_RECORD)).unwrap().unwrap();
        assert_eq!(written.parts.keys().collect::<Vec<_>>(), ["rule.json"], "only the parts the folder holds");
        assert!(read_folder(folder, Artifact::StanceModel, "model.json", &[]).is_err(), "another kind of folder");
        std::fs::write(folder.join("model.json"), "{\"w\": 2}").unwrap();
        assert!(matches!(damage(check().unwrap_err()), (f, Damage::Content { .. }) if f == "model.json"), "an edit of the same length");
        std::fs::write(folder.join("model.json"), "{\"w\": 1}").unwrap();
        std::fs::write(folder.join("other.json"), "[]").unwrap();
        assert!(matches!(damage(check().unwrap_err()), (f, Damage::Inconsistent { .. }) if f == "other.json"), "a part the record does not name");
        std::fs::remove_file(folder.join("other.json")).unwrap();
        std::fs::remove_file(folder.join("rule.json")).unwrap();
        assert_eq!(damage(check().unwrap_err()), ("rule.json".to_string(), Damage::Missing));
    }

    #[test]
    fn reuse_needs_the_record_the_fingerprint_and_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let claims = dir.path().join("claims.json");
        std::fs::write(&claims, "[]").unwrap();
        let run = dir.path().join("run.trec");
        let expected = Provenance::new(Artifact::Run, vec![Input::file(Role::Claims, &claims).unwrap()], &Settings { k: 10, depth: 100 });
        // A planted file without a record.
        std::fs::write(&run, "q 0 d 1 1.0 x\n").unwrap();
        assert!(matches!(expected.reuse(&run, None), Reuse::Redo(why) if why.contains("no provenance record")));
        expected.clone().write_beside(&run).unwrap();
        assert_eq!(expected.reuse(&run, None), Reuse::Reuse);
        // Other settings.
        let other = Provenance::new(Artifact::Run, vec![Input::file(Role::Claims, &claims).unwrap()], &Settings { k: 5, depth: 100 });
        assert!(matches!(other.reuse(&run, None), Reuse::Redo(why) if why.contains("k 10 → 5")), "{:?}", other.reuse(&run, None));
        // Other input bytes.
        std::fs::write(&claims, "[{}]").unwrap();
        let changed = Provenance::new(Artifact::Run, vec![Input::file(Role::Claims, &claims).unwrap()], &Settings { k: 10, depth: 100 });
        assert!(matches!(changed.reuse(&run, None), Reuse::Redo(why) if why.contains("claims") && why.contains("changed")));
        // The run edited after it was written.
        std::fs::write(&run, "q 0 d 1 2.0 x\n").unwrap();
        assert!(matches!(expected.reuse(&run, None), Reuse::Redo(why) if why.contains("changed after")));
        // A damaged record.
        std::fs::write(sidecar(&run), "{").unwrap();
        assert!(matches!(expected.reuse(&run, None), Reuse::Redo(why) if why.contains("unreadable")));
    }
}
