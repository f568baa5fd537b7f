"""Conversions between the shapes researchers hold (ranx, pandas) and the plain values quantir reads.

The native module reads plain values itself (paths, lists of dicts, ``{qid: {docid: score}}``);
it calls ``as_claims``, ``as_run`` and ``as_qrels`` here for anything else. Nothing here decides
what a claim, a run or a judgment is: that is the library's.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional

Run = Dict[str, Dict[str, float]]
Qrels = Dict[str, Dict[str, int]]


def _is_dataframe(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns") and hasattr(value, "to_dict")


def _is_ranx(value: Any, name: str) -> bool:
    return type(value).__name__ == name and type(value).__module__.startswith("ranx")


def _missing(value: Any) -> bool:
    """pandas' missing values (NaN, NaT, None) in a DataFrame cell."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN and NaT are not equal to themselves
    except (TypeError, ValueError):
        return False


def _column(frame: Any, names: List[str], what: str) -> str:
    for name in names:
        if name in frame.columns:
            return name
    raise ValueError(f"{what}: the DataFrame has no {' or '.join(repr(n) for n in names)} column (it has {list(frame.columns)})")


def as_claims(value: Any) -> List[Any]:
    """Claims as a list of dicts: from a DataFrame with ``id``, ``text`` and optionally ``date``
    columns (``id`` defaults to the index), or from any iterable of dicts or strings."""
    if _is_dataframe(value):
        records = value.to_dict("records")
        ids = list(value.index) if "id" not in value.columns else None
        out = []
        for i, record in enumerate(records):
            claim = {k: (None if _missing(v) else v) for k, v in record.items() if k in ("id", "text", "date", "evidence")}
            if ids is not None:
                claim["id"] = ids[i]
            out.append(claim)
        return out
    if isinstance(value, (str, bytes, dict)):
        raise TypeError(f"claims: expected a path, a list of dicts or a DataFrame, found {type(value).__name__}")
    try:
        return list(value)
    except TypeError:
        raise TypeError(f"claims: expected a path, a list of dicts or a DataFrame, found {type(value).__name__}") from None


def as_run(value: Any) -> Run:
    """A run as ``{qid: {docid: score}}``: from a ``ranx.Run`` or a DataFrame with ``qid``,
    ``docid`` and ``score`` columns."""
    if _is_ranx(value, "Run"):
        return value.to_dict()
    if _is_dataframe(value):
        q = _column(value, ["qid", "q_id", "query_id", "query"], "run")
        d = _column(value, ["docid", "doc_id", "docno"], "run")
        s = _column(value, ["score"], "run")
        out: Run = {}
        for qid, docid, score in zip(value[q], value[d], value[s]):
            out.setdefault(str(qid), {})[str(docid)] = float(score)
        return out
    return value


def as_qrels(value: Any) -> Qrels:
    """Judgments as ``{qid: {docid: grade}}``: from a ``ranx.Qrels`` or a DataFrame with ``qid``,
    ``docid`` and ``rel`` (or ``relevance``, ``score``) columns."""
    if _is_ranx(value, "Qrels"):
        return value.to_dict()
    if _is_dataframe(value):
        q = _column(value, ["qid", "q_id", "query_id", "query"], "qrels")
        d = _column(value, ["docid", "doc_id", "docno"], "qrels")
        r = _column(value, ["rel", "relevance", "score", "label"], "qrels")
        out: Qrels = {}
        for qid, docid, grade in zip(value[q], value[d], value[r]):
            out.setdefault(str(qid), {})[str(docid)] = int(grade)
        return out
    return value


def to_ranx_run(run: Run, name: Optional[str] = None) -> Any:
    """A ``ranx.Run`` of a quantir run (ranx must be installed)."""
    from ranx import Run as RanxRun

    return RanxRun(run, name=name)


def to_ranx_qrels(qrels: Qrels) -> Any:
    """A ``ranx.Qrels`` of ``{qid: {docid: grade}}`` (ranx must be installed)."""
    from ranx import Qrels as RanxQrels

    return RanxQrels(qrels)


def to_dataframe(run: Run) -> Any:
    """A run as a pandas DataFrame with ``qid``, ``docid``, ``score`` and ``rank`` (from 1)
    columns, in rank order (pandas must be installed)."""
    import pandas as pd

    rows = [(qid, docid, score, rank) for qid, docs in run.items() for rank, (docid, score) in enumerate(docs.items(), start=1)]
    return pd.DataFrame(rows, columns=["qid", "docid", "score", "rank"])


def from_dataframe(frame: Any) -> Run:
    """A run from a DataFrame with ``qid``, ``docid`` and ``score`` columns."""
    return as_run(frame)


def tqdm_progress() -> Callable[[str, int, Optional[int]], None]:
    """A ``progress`` callback drawing one tqdm bar per phase (silent when tqdm is not installed)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return lambda phase, done, total: None
    bars: Dict[str, Any] = {}

    def report(phase: str, done: int, total: Optional[int]) -> None:
        bar = bars.get(phase)
        if bar is None:
            for other in bars.values():
                other.close()
            bars.clear()
            bar = bars[phase] = tqdm(total=total, desc=phase, unit="")
        bar.update(done - bar.n)
        if total is not None and done >= total:
            bar.close()

    return report


