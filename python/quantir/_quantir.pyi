"""Type stubs of quantir's native module (the Rust library through PyO3)."""

import datetime
import os
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Union

from typing_extensions import TypedDict, Unpack

__version__: str

# Every run setting's default, as the library defines it once (its RunSettings::DEFAULT): read it
# here rather than from these stubs, which name the settings without restating their defaults.
RUN_DEFAULTS: Dict[str, Any]
# Hits `search` returns when not given `k`.
SEARCH_DEFAULT_K: int

class SearchSettings(TypedDict, total=False):
    """`search`'s keyword arguments (defaults: RUN_DEFAULTS, k SEARCH_DEFAULT_K)."""

    before: Optional[DateLike]
    k: int
    undated: Literal["exclude", "include"]
    k1: Optional[float]
    b: Optional[float]
    retriever: Literal["bm25", "dense", "hybrid"]
    ann: Literal["exact", "hnsw"]
    ef: int

class RunSettings(SearchSettings, total=False):
    """`run`'s keyword arguments besides `plan`, the LLM connection, `format` and `progress`: the
    CLI flags' names without dashes; defaults in RUN_DEFAULTS; `None` keeps the default."""

    depth: int
    fusion: Literal["combsum", "combmax", "combmnz", "combmax-norm", "rrf", "wsum"]
    norm: Optional[Literal["none", "min-max", "max", "sum", "zmuv", "rank"]]
    constant: Literal["zero", "one", "raw"]
    rrf_k: float
    weights: Optional[Sequence[float]]
    hybrid_fusion: Literal["combsum", "combmax", "combmnz", "combmax-norm", "rrf", "wsum"]
    hybrid_norm: Optional[Literal["none", "min-max", "max", "sum", "zmuv", "rank"]]
    temporal_filter: Literal["claim", "off"]
    remove_query: bool
    feedback: Optional[Literal["rm3", "rocchio"]]
    fb_docs: int
    fb_terms: int
    rm3_original_weight: float
    rocchio_alpha: float
    rocchio_beta: float
    mmr: bool
    mmr_beta: float
    mmr_threshold: float
    mmr_similarity: Literal["lexical", "dense"]
    threads: int
    bm25_strategy: Literal["exhaustive", "maxscore", "pruned"]

PathLike = Union[str, "os.PathLike[str]"]
DateLike = Union[str, datetime.date, datetime.datetime]
Run = Dict[str, Dict[str, float]]
Qrels = Dict[str, Dict[str, int]]
RunLike = Union[PathLike, Mapping[str, Mapping[str, float]], Any]  # also ranx.Run, pandas.DataFrame
QrelsLike = Union[PathLike, Mapping[str, Mapping[str, int]], Any]  # also ranx.Qrels, pandas.DataFrame
ClaimsLike = Union[PathLike, Sequence[Union[str, Mapping[str, Any]]], Any]  # also pandas.DataFrame
Progress = Union[None, bool, Callable[[str, int, Optional[int]], Any]]
# A planner written in Python: plan(claim, search) -> sub-queries (or rounds of them); `claim` is
# {"id", "text", "date"}, `search` a ClaimSearch under that claim's cutoff.
PlanCallable = Callable[[Dict[str, Any], "ClaimSearch"], Sequence[Union[str, Sequence[str]]]]

class QuantirError(ValueError):
    """An input quantir cannot use: a malformed file (file:line:col and field), a duplicate id,
    an incompatible index."""

class Hit:
    """One search result with its stored fields."""

    id: str
    score: float
    date: Optional[str]
    title: str
    text: str
    url: Optional[str]
    def to_dict(self) -> Dict[str, Any]: ...

class ClaimSearch:
    """The run's index under one claim's cutoff: what a Python planner is handed."""

    before: Optional[str]
    def __call__(self, query: str, k: int = 10, retriever: Literal["bm25", "dense", "hybrid"] = "bm25") -> List[Hit]:
        """The top k documents for `query` published strictly before the claim's cutoff, by BM25
        or, where the index has vectors, by the dense or hybrid retriever (even in a BM25 run)."""

class Index:
    """A quantir index (BM25 over the numeric-aware analyzer, optional dense vectors,
    publication dates for the exact cutoff). Safe to share between threads."""

    def __init__(self, path: PathLike, *, dense: Optional[PathLike] = None, ort_lib: Optional[PathLike] = None, encoder_workers: int = 2, batch_size: int = 4, device: Literal["cpu", "cuda", "auto"] = "cpu") -> None: ...
    @classmethod
    def build(
        cls,
        corpus: PathLike,
        index: PathLike,
        *,
        format: str = "auto",
        k1: Optional[float] = None,
        b: Optional[float] = None,
        threads: int = 0,
        doc_order: str = "date",
        dense: Optional[PathLike] = None,
        ort_lib: Optional[PathLike] = None,
        f16: bool = False,
        hnsw: bool = False,
        hnsw_m: int = 16,
        hnsw_ef_construction: int = 200,
        encoder_workers: int = 2,
        batch_size: int = 4,
        device: Literal["cpu", "cuda", "auto"] = "cpu",
        max_record_mib: int = 64,
        progress: Progress = None,
    ) -> "Index":
        """Builds an index of a JSONL file, a BEIR folder or a QuanTemp++ corpus.json (BM25 k1 0.9,
        b 0.4 unless given), as a new generation of `index` (a new folder is moved into place
        whole), and opens it. A record longer than `max_record_mib` is an error. `doc_order` "date" stores
        documents by publication date (a date cutoff reads only the postings before it), "corpus" in
        the corpus's order; results are the same."""
    @property
    def path(self) -> str: ...
    @property
    def num_docs(self) -> int: ...
    @property
    def has_vectors(self) -> bool: ...
    @property
    def generation(self) -> int:
        """The generation served now: it moves forward when the folder is rebuilt (the next call
        picks a rebuild up; a call in progress finishes on the generation it started on)."""
    @property
    def fingerprint(self) -> str:
        """The fingerprint of what made the generation served (its corpus's bytes and settings)."""
    @property
    def manifest(self) -> Dict[str, Any]:
        """The generation's manifest: versions, BM25 parameters, counts, file digests, provenance."""
    def reload(self) -> int:
        """Opens the generation CURRENT names now and serves it; raises when it cannot be opened.
        Returns the generation served."""
    def add(
        self,
        docs: Union[PathLike, Sequence[Dict[str, Any]]],
        *,
        format: str = "auto",
        merge_factor: int = 10,
        max_record_mib: int = 64,
        progress: Progress = None,
    ) -> Dict[str, Any]:
        """Adds documents (a corpus path, or dicts with "id", "text" and optionally "title",
        "date", "url"), replacing those whose id the index holds and leaving those it holds as
        given unchanged: one new generation, equal to a rebuild of the final collection. An index
        with vectors encodes only the new and replaced passages. Returns the counts `quantir add
        --json` prints (added, replaced, unchanged, deleted, documents, generation, committed, ...)."""
    def delete(self, ids: Sequence[Union[str, int]], *, merge_factor: int = 10, progress: Progress = None) -> Dict[str, Any]:
        """Deletes the documents `ids` (ids the index lacks are counted in "not_found"): one new
        generation, equal to a rebuild without them."""
    def compact(self, *, threads: int = 0, progress: Progress = None) -> Dict[str, Any]:
        """Rewrites every segment into a build's layout (`quantir compact`)."""
    def __len__(self) -> int: ...
    def search(self, query: str, **settings: Unpack[SearchSettings]) -> List[Hit]:
        """The top k among documents published strictly before `before`: exact BM25, or dense/hybrid (`retriever`) as `run` retrieves a claim dated `before`."""
    def run(
        self,
        claims: ClaimsLike,
        *,
        plan: Union[str, PlanCallable, None] = None,
        llm_url: Optional[str] = None,
        llm_model: Optional[str] = None,
        llm_key: Optional[str] = None,
        format: str = "auto",
        progress: Progress = None,
        **settings: Unpack[RunSettings],
    ) -> Run:
        """Runs claims as `quantir run` does (each cut off at its own date) into {qid: {docid: score}}.

        `plan` is a planner's name as `--plan` takes it (None: "claim-only") or a callable
        plan(claim, search) returning the claim's sub-queries (a list of str, or of lists of str
        for rounds), called once per claim in order; `search` is limited to that claim's cutoff.
        `llm_url`, `llm_model` and `llm_key` (for "llm:" plans) fall back to QUANTIR_LLM_URL,
        QUANTIR_LLM_MODEL and OPENAI_API_KEY, as the CLI's flags do.
        `feedback="rm3"` or `"rocchio"` expands each sub-query from its first pass under the claim's
        cutoff, as `quantir run --rm3 / --rocchio` (`fb_docs`, `fb_terms` and the weights likewise)."""

class OpenSearchIndex:
    """A quantir index on an OpenSearch cluster: the embedded index's BM25 scores, exact cutoff,
    planners and fusion, served by the cluster; dense and hybrid retrieval when it was loaded with
    vectors (`build(..., vectors_from=DIR)`)."""

    def __init__(self, urls: Union[str, Sequence[str]], index: str = "quantir", *, user: Optional[str] = None, password: Optional[str] = None, ca_certificate: Optional[PathLike] = None, insecure: bool = False, concurrency: int = 4, dense: Optional[PathLike] = None, ort_lib: Optional[PathLike] = None, encoder_workers: int = 2, batch_size: int = 4, device: Literal["cpu", "cuda", "auto"] = "cpu") -> None:
        """Opens the index; `dense` names the query encoder's model folder (by default the one its vectors record)."""
    @classmethod
    def build(
        cls,
        corpus: PathLike,
        urls: Union[str, Sequence[str]],
        index: str = "quantir",
        *,
        format: str = "auto",
        k1: Optional[float] = None,
        b: Optional[float] = None,
        shards: int = 2,
        replicas: int = 1,
        batch: int = 500,
        vectors_from: Optional[PathLike] = None,
        user: Optional[str] = None,
        password: Optional[str] = None,
        ca_certificate: Optional[PathLike] = None,
        insecure: bool = False,
        concurrency: int = 4,
        progress: Progress = None,
    ) -> "OpenSearchIndex":
        """Loads a corpus into the cluster (resumable; the alias moves only once it is complete) and opens it;
        with `vectors_from`, each document's vector from that embedded index of the same corpus (built with `dense`)."""
    @property
    def name(self) -> str: ...
    @property
    def num_docs(self) -> int: ...
    @property
    def version(self) -> str: ...
    def __len__(self) -> int: ...
    def search(self, query: str, **settings: Unpack[SearchSettings]) -> List[Hit]:
        """The top k among documents published strictly before `before`: exact BM25, or dense/hybrid (`retriever`) as `run` retrieves a claim dated `before`."""
    def run(
        self,
        claims: ClaimsLike,
        *,
        plan: Union[str, PlanCallable, None] = None,
        llm_url: Optional[str] = None,
        llm_model: Optional[str] = None,
        llm_key: Optional[str] = None,
        format: str = "auto",
        progress: Progress = None,
        **settings: Unpack[RunSettings],
    ) -> Run:
        """Runs claims as `quantir run --backend opensearch` does into {qid: {docid: score}}."""

class Verifier:
    """A verifier: trained:DIR, stance:DIR, onnx:DIR, llm:MODEL, or a folder."""

    @staticmethod
    def load(spec: str, *, dense: Optional[PathLike] = None, ort_lib: Optional[PathLike] = None, llm_url: Optional[str] = None, llm_key: Optional[str] = None) -> "Verifier": ...
    def predict(self, claims: ClaimsLike, evidence: Optional[Mapping[str, Union[str, Sequence[str]]]] = None, *, top: int = 3, labels: Optional[str] = None, abstain: bool = False, abstention_rule: Optional[PathLike] = None, progress: Progress = None) -> List[Dict[str, Any]]:
        """Verdicts {"id", "label", "confidence", "evidence", "comparisons"} as `quantir verify` writes them; abstaining adds "verdict", "relevance" and "abstained"."""

def evaluate(qrels: QrelsLike, run: RunLike, measures: Optional[Sequence[str]] = None, *, per_query: bool = False, complete: bool = False) -> Dict[str, Any]:
    """trec_eval's measures: {"ndcg_cut_10": mean} or, per_query, {qid: {"ndcg_cut_10": value}}."""

def read_qrels(path: PathLike) -> Qrels:
    """Judgments (TREC, BEIR tsv or QuanTemp++ JSON) as {qid: {docid: grade}}."""

def read_run(path: PathLike) -> Run:
    """A TREC run file as {qid: {docid: score}} in trec_eval's order."""

def fuse(runs: Sequence[RunLike], method: str, *, norm: Optional[str] = None, constant: str = "zero", rrf_k: float = 60.0, weights: Optional[Sequence[float]] = None, k: int = 1000) -> Run:
    """Fuses runs query by query (combsum, combmax, combmnz, combmax-norm, rrf, wsum)."""

def compare(qrels: QrelsLike, runs: Mapping[str, RunLike], measures: Optional[Sequence[str]] = None, *, test: str = "t", alpha: float = 0.05, correction: str = "holm", permutations: int = 10000, seed: int = 42, complete: bool = False) -> Dict[str, Any]:
    """Paired significance tests against the first run, as `quantir compare --json`."""

def score(gold: Mapping[str, str], predictions: Union[Mapping[str, str], Sequence[Mapping[str, Any]]]) -> Dict[str, Any]:
    """Accuracy, macro/weighted F1, per-class scores and the confusion matrix."""
