//! [`RunSettings`]: every choice a user makes about how claims are run — the planner, the
//! retriever, the depth and k, fusion, the cutoff, feedback, MMR — with every default written
//! once ([`RunSettings::DEFAULT`]) and every value checked in one place ([`RunSettings::set`] for a
//! named value, [`RunSettings::validate`] for the whole).
//!
//! The front ends only translate: the CLI's flags take their defaults from [`RunSettings::DEFAULT`]
//! and fill a `RunSettings`; Python's keyword arguments and the server's JSON request body are
//! each a list of named values given to [`RunSettings::set`] (a null or `None` keeps the default);
//! the server's OpenAPI document reads the names, closed sets and defaults from here. The names
//! are the CLI flags without their dashes (`--hybrid-norm` is `hybrid_norm`).

use crate::corpus::PubDate;
use crate::error::{Error, Result};
use crate::fuse::{ConstantPolicy, FusionConfig, Method, Norm};
use crate::index::Bm25Params;
use crate::llm::LlmConfig;
use crate::plan::{planner_for, MmrConfig, MmrSimilarity, PlanSpec, Planner};
use crate::ranges::{Count, Number};
use crate::retrieve::{Ann, Feedback, Retriever, Rm3, Rocchio, Strategy, TemporalFilter, UndatedPolicy};

use super::{hybrid_fusion, PlanRunConfig, RunConfig};

/// Which pseudo-relevance feedback expands BM25's queries (`--rm3`, `--rocchio`; Python's and the
/// API's `feedback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FeedbackKind {
    /// RM3 ([`Rm3`]).
    Rm3,
    /// Rocchio ([`Rocchio`]).
    Rocchio,
}

/// How a batch of claims is run (module doc). Serialises with every field named as the front ends
/// name it (the plan and dates as text).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunSettings {
    /// The planner, as `--plan` writes it.
    #[serde(serialize_with = "as_text")]
    pub plan: PlanSpec,
    /// Documents kept per claim.
    pub k: usize,
    /// Documents each sub-query retrieves before fusion.
    pub depth: usize,
    /// BM25, dense or both.
    pub retriever: Retriever,
    /// Exact or HNSW dense search.
    pub ann: Ann,
    /// Candidates explored by an HNSW search.
    pub ef: usize,
    /// How a claim's sub-query lists are fused.
    pub fusion: Method,
    /// The sub-query lists' normalisation (`None`: the fusion's own).
    pub norm: Option<Norm>,
    /// What min-max gives a list of equal scores.
    pub constant: ConstantPolicy,
    /// RRF's k.
    pub rrf_k: f64,
    /// wsum's weights, one per list (empty: 1 each).
    pub weights: Vec<f64>,
    /// Under hybrid retrieval, how a sub-query's BM25 and dense lists are fused.
    pub hybrid_fusion: Method,
    /// Their normalisation (`None`: z-scores, [`super::default_hybrid_fusion`]).
    pub hybrid_norm: Option<Norm>,
    /// The cutoff of claims without a date of their own.
    #[serde(serialize_with = "as_text_or_null")]
    pub before: Option<PubDate>,
    /// Undated documents under a cutoff.
    pub undated: UndatedPolicy,
    /// Whether claims are cut off at their dates at all.
    pub temporal_filter: TemporalFilter,
    /// Drop a hit whose id equals the claim's id.
    pub remove_query: bool,
    /// BM25's k1 over the index's (`None`: the index's).
    pub k1: Option<f32>,
    /// BM25's b over the index's (`None`: the index's).
    pub b: Option<f32>,
    /// Pseudo-relevance feedback on BM25 (`None`: none).
    pub feedback: Option<FeedbackKind>,
    /// Feedback documents read from the first pass.
    pub fb_docs: usize,
    /// Feedback terms kept.
    pub fb_terms: usize,
    /// RM3: the original query's weight.
    pub rm3_original_weight: f64,
    /// Rocchio: the original query's weight.
    pub rocchio_alpha: f64,
    /// Rocchio: the feedback documents' weight.
    pub rocchio_beta: f64,
    /// Filter sub-queries with MMR.
    pub mmr: bool,
    /// MMR's β.
    pub mmr_beta: f64,
    /// MMR's threshold.
    pub mmr_threshold: f64,
    /// MMR's similarity.
    pub mmr_similarity: MmrSimilarity,
    /// Worker threads; 0: one per core.
    pub threads: usize,
    /// How BM25 finds the top k (speed only).
    pub bm25_strategy: Strategy,
}

/// Feedback documents and terms: at least one each (no greatest: the collection bounds them).
const FB_DOCS: Count = Count { name: "fb_docs", min: 1, max: u64::MAX };
const FB_TERMS: Count = Count { name: "fb_terms", min: 1, max: u64::MAX };
const RM3_ORIGINAL_WEIGHT: Number = Number { name: "rm3_original_weight", min: 0.0, max: 1.0 };
const ROCCHIO_ALPHA: Number = Number { name: "rocchio_alpha", min: 0.0, max: f64::MAX };
const ROCCHIO_BETA: Number = Number { name: "rocchio_beta", min: 0.0, max: f64::MAX };
const RRF: Number = Number { name: "rrf_k", min: 0.0, max: f64::MAX };

/// [`FusionConfig::DEFAULT`]'s method, norm, constant policy and RRF k (its empty weight list
/// forgotten: a constant may not drop one).
const FUSION: (Method, Option<Norm>, ConstantPolicy, f64) = {
    let config = FusionConfig::DEFAULT;
    let fields = (config.method, config.norm, config.constant, config.rrf_k);
    std::mem::forget(config);
    fields
};

/// A named setting's value as a front end holds it: a JSON value, a Python object.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingValue {
    /// JSON's null, Python's `None`: keep the default.
    Null,
    /// A boolean.
    Bool(bool),
    /// A whole number.
    Int(i128),
    /// A number with a fraction (or NaN or an infinity, which every range refuses).
    Float(f64),
    /// Text.
    Text(String),
    /// A list of numbers.
    Numbers(Vec<f64>),
    /// Anything else, described (`"a dict"`).
    Other(String),
}

impl SettingValue {
    /// The value as a user wrote it, for messages.
    fn shown(&self) -> String {
        match self {
            SettingValue::Null => "null".into(),
            SettingValue::Bool(b) => b.to_string(),
            SettingValue::Int(n) => n.to_string(),
            SettingValue::Float(x) => x.to_string(),
            SettingValue::Text(t) => crate::error::shorten(t),
            SettingValue::Numbers(xs) => format!("{xs:?}"),
            SettingValue::Other(what) => what.clone(),
        }
    }

    /// A refusal of this value: `wrong_type` when it is of another kind than the setting takes
    /// (text for a number), else a value of the right kind outside the setting's set.
    fn wrong(&self, name: &str, expected: impl Into<String>, wrong_type: bool) -> Error {
        Error::Setting { name: name.to_string(), found: self.shown(), expected: expected.into(), wrong_type }
    }

    fn count(&self, range: Count) -> Result<usize> {
        match self {
            // Negative, or beyond u64: out of every range.
            SettingValue::Int(n) => u64::try_from(*n).map_or_else(|_| Err(range.refusal(n)), |v| range.check(v)),
            _ => Err(self.wrong(range.name, "a whole number", true)),
        }
    }

    fn number(&self, name: &str) -> Result<f64> {
        match self {
            SettingValue::Int(n) => Ok(*n as f64),
            SettingValue::Float(x) => Ok(*x),
            _ => Err(self.wrong(name, "a number", true)),
        }
    }

    fn flag(&self, name: &str) -> Result<bool> {
        match self {
            SettingValue::Bool(b) => Ok(*b),
            _ => Err(self.wrong(name, "true or false", true)),
        }
    }

    fn text(&self, name: &str, expected: &str) -> Result<&str> {
        match self {
            SettingValue::Text(t) => Ok(t),
            _ => Err(self.wrong(name, expected.to_string(), true)),
        }
    }

    fn choice<T: clap::ValueEnum>(&self, name: &str) -> Result<T> {
        let expected = || {
            let names: Vec<String> = T::value_variants().iter().filter_map(|v| v.to_possible_value()).filter(|p| !p.is_hide_set()).map(|p| format!("{:?}", p.get_name())).collect();
            format!("one of {}", names.join(", "))
        };
        let text = self.text(name, &expected())?;
        T::from_str(text, false).map_err(|_| self.wrong(name, expected(), false))
    }
}

fn as_text<S: serde::Serializer, T: std::fmt::Display>(value: &T, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

fn as_text_or_null<S: serde::Serializer, T: std::fmt::Display>(value: &Option<T>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.collect_str(value),
        None => serializer.serialize_none(),
    }
}

impl RunSettings {
    /// Every default, once: QuanTemp++'s setting (claim-only plan, depth 100, CombMAX-Norm across
    /// sub-queries), k 1000, BM25, each claim cut off at its date with undated documents out, the
    /// measured hybrid fusion ([`super::default_hybrid_fusion`]), Anserini's feedback defaults and
    /// QGen's MMR setting.
    pub const DEFAULT: RunSettings = RunSettings {
        plan: PlanSpec::ClaimOnly,
        k: 1000,
        depth: crate::ranges::DEFAULT_DEPTH,
        retriever: Retriever::Bm25,
        ann: Ann::Exact,
        ef: 256,
        fusion: FUSION.0,
        norm: FUSION.1,
        constant: FUSION.2,
        rrf_k: FUSION.3,
        weights: Vec::new(),
        hybrid_fusion: Method::CombSum,
        hybrid_norm: None,
        before: None,
        undated: UndatedPolicy::Exclude,
        temporal_filter: TemporalFilter::Claim,
        remove_query: false,
        k1: None,
        b: None,
        feedback: None,
        fb_docs: Rm3::DEFAULT.fb_docs,
        fb_terms: Rm3::DEFAULT.fb_terms,
        rm3_original_weight: Rm3::DEFAULT.original_weight,
        rocchio_alpha: Rocchio::DEFAULT.alpha,
        rocchio_beta: Rocchio::DEFAULT.beta,
        mmr: false,
        mmr_beta: MmrConfig::DEFAULT.beta,
        mmr_threshold: MmrConfig::DEFAULT.threshold,
        mmr_similarity: MmrConfig::DEFAULT.similarity,
        threads: 0,
        bm25_strategy: Strategy::Exhaustive,
    };

    /// Every setting's name, in the order [`RunSettings::set`] and serialisation use.
    pub const NAMES: [&'static str; 31] = [
        "plan", "k", "depth", "retriever", "ann", "ef", "fusion", "norm", "constant", "rrf_k", "weights", "hybrid_fusion", "hybrid_norm", "before", "undated", "temporal_filter",
        "remove_query", "k1", "b", "feedback", "fb_docs", "fb_terms", "rm3_original_weight", "rocchio_alpha", "rocchio_beta", "mmr", "mmr_beta", "mmr_threshold", "mmr_similarity", "threads",
        "bm25_strategy",
    ];

    /// Sets the setting `name` from `value`, checked against its type, closed set and range; a
    /// null keeps the setting as it is. An unknown name is an error naming the known ones.
    pub fn set(&mut self, name: &str, value: &SettingValue) -> Result<()> {
        if !Self::NAMES.contains(&name) {
            return Err(Error::Setting { name: name.to_string(), found: value.shown(), expected: format!("a setting named one of {}", Self::NAMES.join(", ")), wrong_type: true });
        }
        if *value == SettingValue::Null {
            return Ok(());
        }
        let v = value;
        match name {
            "plan" => {
                let text = v.text(name, "a planner's name")?;
                self.plan = text.parse().map_err(|e: String| Error::Setting { name: name.into(), found: v.shown(), expected: e.trim_start_matches("expected ").split("; found").next().unwrap_or_default().to_string(), wrong_type: false })?;
            }
            "k" => self.k = v.count(crate::ranges::K)?,
            "depth" => self.depth = v.count(crate::ranges::DEPTH)?,
            "retriever" => self.retriever = v.choice(name)?,
            "ann" => self.ann = v.choice(name)?,
            "ef" => self.ef = v.count(crate::ranges::EF)?,
            "fusion" => self.fusion = v.choice(name)?,
            "norm" => self.norm = Some(v.choice(name)?),
            "constant" => self.constant = v.choice(name)?,
            "rrf_k" => self.rrf_k = RRF.check(v.number(name)?)?,
            "weights" => {
                self.weights = match v {
                    SettingValue::Numbers(ws) => ws.clone(),
                    _ => return Err(v.wrong(name, "a list of numbers", true)),
                }
            }
            "hybrid_fusion" => self.hybrid_fusion = v.choice(name)?,
            "hybrid_norm" => self.hybrid_norm = Some(v.choice(name)?),
            "before" => {
                let text = v.text(name, "a date")?;
                self.before = Some(text.parse().map_err(|_| v.wrong(name, "a date like 2021-03-21 (or 2021-03, 2021)", false))?);
            }
            "undated" => self.undated = v.choice(name)?,
            "temporal_filter" => self.temporal_filter = v.choice(name)?,
            "remove_query" => self.remove_query = v.flag(name)?,
            "k1" => self.k1 = Some(v.number(name)? as f32),
            "b" => self.b = Some(v.number(name)? as f32),
            "feedback" => self.feedback = Some(v.choice(name)?),
            "fb_docs" => self.fb_docs = v.count(FB_DOCS)?,
            "fb_terms" => self.fb_terms = v.count(FB_TERMS)?,
            "rm3_original_weight" => self.rm3_original_weight = RM3_ORIGINAL_WEIGHT.check(v.number(name)?)?,
            "rocchio_alpha" => self.rocchio_alpha = ROCCHIO_ALPHA.check(v.number(name)?)?,
            "rocchio_beta" => self.rocchio_beta = ROCCHIO_BETA.check(v.number(name)?)?,
            "mmr" => self.mmr = v.flag(name)?,
            "mmr_beta" => self.mmr_beta = crate::ranges::MMR_BETA.check(v.number(name)?)?,
            "mmr_threshold" => self.mmr_threshold = crate::ranges::MMR_THRESHOLD.check(v.number(name)?)?,
            "mmr_similarity" => self.mmr_similarity = v.choice(name)?,
            "threads" => self.threads = v.count(crate::ranges::THREADS)?,
            "bm25_strategy" => self.bm25_strategy = v.choice(name)?,
            _ => unreachable!("every name in NAMES has its arm"),
        }
        Ok(())
    }

    /// The settings `values` give over the defaults, each checked as it is set, then as a whole.
    pub fn from_values<'a>(values: impl IntoIterator<Item = (&'a str, SettingValue)>) -> Result<RunSettings> {
        let mut settings = RunSettings::default();
        for (name, value) in values {
            settings.set(name, &value)?;
        }
        settings.validate()?;
        Ok(settings)
    }

    /// Checks every value against its range and the combinations that cannot run (another
    /// normalisation under CombMAX-Norm, non-finite weights, BM25 parameters out of range).
    pub fn validate(&self) -> Result<()> {
        self.run_config(Bm25Params::default()).validate(&self.plan_run_config())?;
        crate::ranges::MMR_BETA.check(self.mmr_beta)?;
        crate::ranges::MMR_THRESHOLD.check(self.mmr_threshold)?;
        FB_DOCS.check(self.fb_docs as u64)?;
        FB_TERMS.check(self.fb_terms as u64)?;
        RM3_ORIGINAL_WEIGHT.check(self.rm3_original_weight)?;
        ROCCHIO_ALPHA.check(self.rocchio_alpha)?;
        ROCCHIO_BETA.check(self.rocchio_beta)?;
        self.fusion().validate(self.weights.len())?;
        self.hybrid().validate(2).map_err(super::hybrid_error)?;
        Bm25Params::default().over(self.k1, self.b).map_or(Ok(()), |p| p.validate())?;
        Ok(())
    }

    /// The sub-query lists' fusion.
    pub fn fusion(&self) -> FusionConfig {
        FusionConfig { method: self.fusion, norm: self.norm, constant: self.constant, rrf_k: self.rrf_k, weights: self.weights.clone() }
    }

    /// The BM25 and dense lists' fusion under hybrid retrieval.
    pub fn hybrid(&self) -> FusionConfig {
        hybrid_fusion(self.hybrid_fusion, self.hybrid_norm)
    }

    /// The feedback these settings ask for.
    pub fn feedback(&self) -> Option<Feedback> {
        let (fb_docs, fb_terms) = (self.fb_docs, self.fb_terms);
        self.feedback.map(|kind| match kind {
            FeedbackKind::Rm3 => Feedback::Rm3(Rm3 { fb_docs, fb_terms, original_weight: self.rm3_original_weight }),
            FeedbackKind::Rocchio => Feedback::Rocchio(Rocchio { fb_docs, fb_terms, alpha: self.rocchio_alpha, beta: self.rocchio_beta }),
        })
    }

    /// MMR's settings when MMR is on.
    pub fn mmr(&self) -> Option<MmrConfig> {
        MmrConfig::switched(self.mmr, self.mmr_beta, self.mmr_threshold, self.mmr_similarity)
    }

    /// Whether the run needs the query encoder: dense or hybrid retrieval, or MMR by the
    /// encoder's cosine.
    pub fn needs_encoder(&self) -> bool {
        self.retriever != Retriever::Bm25 || self.mmr().is_some_and(|m| m.needs_encoder())
    }

    /// The engine's run configuration, BM25's k1 and b over `index_bm25` (the index's own).
    /// Unchecked: [`RunSettings::validate`] first.
    pub fn run_config(&self, index_bm25: Bm25Params) -> RunConfig {
        RunConfig {
            k: self.k,
            bm25: index_bm25.over(self.k1, self.b),
            default_before: self.before,
            undated: self.undated,
            temporal_filter: self.temporal_filter,
            remove_query: self.remove_query,
            threads: self.threads,
            retriever: self.retriever,
            ann: self.ann,
            ef: self.ef,
            bm25_strategy: self.bm25_strategy,
            feedback: self.feedback(),
        }
    }

    /// How each claim's lists are fused.
    pub fn plan_run_config(&self) -> PlanRunConfig {
        PlanRunConfig { depth: self.depth, fusion: self.fusion(), hybrid: self.hybrid() }
    }

    /// The planner of [`RunSettings::plan`] with MMR as set; `llm` serves `llm:` plans, `encoder`
    /// dense MMR similarity.
    pub fn planner(&self, llm: Option<LlmConfig>, encoder: Option<std::sync::Arc<crate::index::dense::Encoder>>) -> Result<Box<dyn Planner>> {
        planner_for(&self.plan, self.mmr(), llm, encoder)
    }
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serialised_fields_and_each_can_be_set() {
        let json = serde_json::to_value(RunSettings::DEFAULT).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let mut names = RunSettings::NAMES.to_vec();
        names.sort_unstable();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, names);
        assert_eq!(json["plan"], "claim-only");
        assert_eq!(json["fusion"], "combmax-norm");
        // Setting each field to its own default's JSON value gives the defaults back: every name
        // has an arm that reads what serialisation writes.
        let mut settings = RunSettings::DEFAULT;
        for (name, value) in json.as_object().unwrap() {
            let value = match value {
                serde_json::Value::Null => SettingValue::Null,
                serde_json::Value::Bool(b) => SettingValue::Bool(*b),
                serde_json::Value::Number(n) => n.as_i64().map_or(SettingValue::Float(n.as_f64().unwrap()), |i| SettingValue::Int(i.into())),
                serde_json::Value::String(s) => SettingValue::Text(s.clone()),
                serde_json::Value::Array(a) => SettingValue::Numbers(a.iter().map(|x| x.as_f64().unwrap()).collect()),
                serde_json::Value::Object(_) => unreachable!(),
            };
            settings.set(name, &value).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert_eq!(settings, RunSettings::DEFAULT);
    }

    #[test]
    fn values_are_checked_with_their_names() {
        let set = |name: &str, value: SettingValue| RunSettings::from_values([(name, value)]).unwrap_err().to_string();
        assert_eq!(set("fusion", SettingValue::Text("best".into())), r#"fusion="best": expected one of "combsum", "combmax", "combmnz", "combmax-norm", "rrf", "wsum""#);
        assert_eq!(set("k", SettingValue::Int(0)), "k: expected at least 1, found 0");
        assert_eq!(set("k", SettingValue::Int(-3)), "k: expected at least 1, found -3");
        assert_eq!(set("threads", SettingValue::Int(-1)), "threads: expected 0 to 1024, found -1");
        assert_eq!(set("k", SettingValue::Text("5".into())), r#"k="5": expected a whole number"#);
        let kind = |name: &str, value: SettingValue| matches!(RunSettings::from_values([(name, value)]), Err(Error::Setting { wrong_type: true, .. }));
        assert!(kind("k", SettingValue::Text("5".into())) && kind("fusion", SettingValue::Int(3)) && kind("mmr", SettingValue::Int(1)));
        assert!(!kind("fusion", SettingValue::Text("best".into())) && !kind("before", SettingValue::Text("soon".into())));
        assert_eq!(set("mmr_beta", SettingValue::Float(f64::NAN)), "mmr_beta: expected 0 to 1, found NaN");
        assert!(set("plan", SettingValue::Text("bogus".into())).starts_with(r#"plan="bogus": expected claim-only, numeric"#));
        assert!(set("fusoin", SettingValue::Text("combsum".into())).contains("a setting named one of plan, k, depth"));
        assert!(set("norm", SettingValue::Text("zmuv".into())).contains("combmax-norm"), "another norm under CombMAX-Norm");
        assert!(set("k1", SettingValue::Float(-1.0)).contains("k1"));
        let settings = RunSettings::from_values([("norm", SettingValue::Null), ("before", SettingValue::Text("2020-03".into())), ("feedback", SettingValue::Text("rm3".into()))]).unwrap();
        assert_eq!((settings.norm, settings.before.map(|d| d.to_string())), (None, Some("2020-03".to_string())));
        assert_eq!(settings.feedback(), Some(Feedback::Rm3(Rm3::DEFAULT)));
    }

}
